"""``gpu-gitops schemas sync``: pinned upstream CRDs, verified, converted and used with no flag.

The mirror is ../shared/upstream-crds (the upstream files byte for byte); the download path is
tested against a loopback HTTP server. Every test has its own empty cache (conftest).
"""

from __future__ import annotations

import hashlib
import http.server
import json
import shutil
import threading
from pathlib import Path

import pytest
from conftest import SHARED, needs_shared

from generator import paths
from generator.errors import InputError
from generator.lint import schemasync
from generator.validate import schemaset

MIRROR = SHARED / "upstream-crds"
REPO = Path(__file__).resolve().parents[2]
needs_mirror = needs_shared(MIRROR, "the upstream CRD mirror")

# what the generator renders (every example cluster) plus the kinds GPU platforms run beside it
COMPANIONS = {
    "Kueue": "kueue.x-k8s.io/v1beta2 ClusterQueue",
    "Volcano": "batch.volcano.sh/v1alpha1 Job",
    "KubeRay": "ray.io/v1 RayCluster",
    "Kubeflow Training": "kubeflow.org/v1 PyTorchJob",
    "Kubeflow Trainer": "trainer.kubeflow.org/v1alpha1 TrainJob",
    "LeaderWorkerSet": "leaderworkerset.x-k8s.io/v1 LeaderWorkerSet",
    "JobSet": "jobset.x-k8s.io/v1alpha2 JobSet",
    "Prometheus Operator": "monitoring.coreos.com/v1 PrometheusRule",
    "cert-manager": "cert-manager.io/v1 Certificate",
    "NIM operator": "apps.nvidia.com/v1alpha1 NIMService",
    "Cilium": "cilium.io/v2 CiliumNetworkPolicy",
    "Cilium clusterwide": "cilium.io/v2 CiliumClusterwideNetworkPolicy",
}


def _listed_kinds() -> set[str]:
    return {kind for source in schemasync.load_sources().sources for kind in source.kinds}


def test_sources_cover_every_custom_resource_the_generator_renders():
    rendered = set()
    for path in (REPO / "rendered").rglob("*.yaml"):
        head = dict(
            line.split(": ", 1)
            for line in path.read_text(encoding="utf-8").splitlines()
            if line.startswith(("apiVersion: ", "kind: "))
        )
        api_version = head.get("apiVersion", "")
        if (
            "." in api_version.split("/")[0]
            and not api_version.startswith(("kustomize.config.k8s.io/",))
            and not api_version.split("/")[0].endswith("k8s.io")
        ):
            rendered.add(f"{api_version} {head['kind']}")
    assert rendered and rendered <= _listed_kinds(), rendered - _listed_kinds()
    assert set(COMPANIONS.values()) <= _listed_kinds()


def test_sources_are_pinned_urls_at_their_ref():
    listed = schemasync.load_sources()
    assert listed.version
    for source in listed.sources:
        assert source.url == f"https://raw.githubusercontent.com/{source.repo}/{source.ref}/{source.path}"
        assert source.ref not in ("main", "master") and len(source.sha256) == 64
        assert source.ref.startswith("v") or source.note, f"{source.url}: a ref that is not a tag needs a note"


def _in_mirror(source: schemasync.Source) -> bool:
    return any(p.name == source.filename for p in MIRROR.rglob("*.yaml"))


@needs_mirror
def test_checksums_are_those_of_the_upstream_files():
    by_sum = {hashlib.sha256(p.read_bytes()).hexdigest(): p for p in MIRROR.rglob("*.yaml")}
    mirrored = [s for s in schemasync.load_sources().sources if _in_mirror(s)]
    assert len(mirrored) >= 56
    for source in mirrored:
        assert by_sum.get(source.sha256, Path()).name == source.filename, source.url


def test_mirror_files_are_matched_by_checksum_when_renamed(tmp_path):
    body = CRD.encode()
    (tmp_path / "mirror").mkdir()
    (tmp_path / "mirror" / "renamed.yaml").write_bytes(body)
    listed = _one_source("https://example.invalid/crds/runs.yaml", body)
    installed = schemasync.sync(mirror=tmp_path / "mirror", sources=listed)
    assert (Path(installed.folder) / "example.com" / "run_v1.json").is_file() and installed.version == "test-1"


def test_a_changed_file_in_the_mirror_is_an_error_naming_it(tmp_path):
    (tmp_path / "mirror").mkdir()
    (tmp_path / "mirror" / "runs.yaml").write_text(CRD + "# changed\n", encoding="utf-8")
    with pytest.raises(InputError, match="runs.yaml .* in the mirror has a different checksum"):
        schemasync.sync(
            mirror=tmp_path / "mirror", sources=_one_source("https://example.invalid/runs.yaml", CRD.encode())
        )
    assert schemaset.installed() is None


def test_a_file_the_mirror_lacks_is_skipped_and_its_kinds_named(tmp_path):
    (tmp_path / "mirror").mkdir()
    installed = schemasync.sync(
        mirror=tmp_path / "mirror", sources=_one_source("https://example.invalid/runs.yaml", CRD.encode())
    )
    assert installed.absent == ("example.com/v1 Run",) and installed.kinds == 0
    assert schemaset.installed() == installed


CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: runs.example.com}
spec:
  group: example.com
  names: {kind: Run, plural: runs}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                gpus: {type: integer}
"""


def _one_source(url: str, body: bytes, version: str = "test-1") -> schemasync.SourceList:
    return schemasync.load_sources(
        json.dumps(
            {
                "version": version,
                "sources": [
                    {
                        "project": "example",
                        "repo": "example/runs",
                        "ref": "v1.0.0",
                        "path": "crds/runs.yaml",
                        "url": url,
                        "sha256": hashlib.sha256(body).hexdigest(),
                        "kinds": ["example.com/v1 Run"],
                    }
                ],
            }
        )
    )


@pytest.fixture
def served():
    """A loopback server answering every path with the bytes in ``served.body``."""

    class Handler(http.server.BaseHTTPRequestHandler):
        body = CRD.encode()

        def do_GET(self):  # noqa: N802 (http.server's naming)
            self.send_response(200)
            self.send_header("Content-Length", str(len(Handler.body)))
            self.end_headers()
            self.wfile.write(Handler.body)

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", Handler
    httpd.shutdown()
    httpd.server_close()


def test_download_is_verified_and_a_mismatch_keeps_the_previous_set(served):
    base, handler = served
    url = base + "/crds/runs.yaml"
    first = schemasync.sync(sources=_one_source(url, CRD.encode()))
    assert first.version == "test-1"
    handler.body = CRD.replace("integer", "string").encode()  # changed upstream or in transit
    with pytest.raises(InputError, match="checksum mismatch for runs.yaml") as caught:
        schemasync.sync(sources=_one_source(url, CRD.encode(), version="test-2"))
    assert caught.value.location.path == url
    kept = schemaset.installed()
    assert kept is not None and kept.version == "test-1"
    assert (
        json.loads((Path(kept.folder) / "example.com" / "run_v1.json").read_text(encoding="utf-8"))["properties"][
            "spec"
        ]["properties"]["gpus"]["type"]
        == "integer"
    )
    # no staging or old set left beside it (schema-checks/ is the metaschema memo, not a set)
    others = ("schema-checks", "charts", "inflated")  # the metaschema memo and the chart store, not sets
    assert sorted(p.name for p in Path(kept.folder).parent.iterdir() if p.name not in others) == ["crd-schemas"]


def test_unreachable_download_is_an_error(tmp_path):
    with pytest.raises(InputError, match="cannot download runs.yaml"):
        schemasync.sync(sources=_one_source("http://127.0.0.1:9/runs.yaml", CRD.encode()))
    assert schemaset.installed() is None


def test_cache_folder_follows_the_platform_and_the_override(monkeypatch, tmp_path):
    monkeypatch.delenv("GPU_GITOPS_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert paths.cache_root() == tmp_path / "xdg" / "gpu-gitops"
    monkeypatch.setenv("GPU_GITOPS_CACHE_DIR", str(tmp_path / "mine"))
    assert paths.cache_root() == tmp_path / "mine"


RUN = "apiVersion: example.com/v1\nkind: Run\nmetadata: {name: r}\nspec:\n  gpus: two\n"


def test_lint_uses_the_synced_set_with_no_flag(tmp_path, run, served):
    base, _ = served
    (tmp_path / "run.yaml").write_text(RUN, encoding="utf-8")
    before = run(tmp_path, "lint", str(tmp_path / "run.yaml"))
    assert before.exit_code == 0 and "no schema found, not schema-checked: Run (example.com/v1)" in before.stderr
    assert "schemas sync" in before.stderr and "0 of 1 objects schema-checked" in before.stderr
    assert run(tmp_path, "lint", "--require-schemas", str(tmp_path / "run.yaml")).exit_code == 1
    schemasync.sync(sources=_one_source(base + "/runs.yaml", CRD.encode()))
    after = run(tmp_path, "lint", str(tmp_path / "run.yaml"))
    assert after.exit_code == 1 and "[K8S003]" in after.stdout and "not schema-checked" not in after.stderr
    assert "checked against schema set test-1" in after.stderr and "1 of 1 objects schema-checked" in after.stderr
    # the error names the CRD release it was checked against, and how to check against another
    assert "(checked against the CRD of example/runs v1.0.0) [K8S003]" in after.stdout
    assert "gpu-gitops schemas import crd.yaml" in after.stdout


def test_ignore_missing_schemas_says_what_it_skipped(tmp_path, run):
    (tmp_path / "run.yaml").write_text(RUN + "---\n" + RUN.replace("name: r", "name: s"), encoding="utf-8")
    result = run(tmp_path, "lint", "--ignore-missing-schemas", str(tmp_path / "run.yaml"))
    assert result.exit_code == 0
    assert "skipped 2 object(s) of 1 kind(s) without a schema (-v names them)" in result.stderr
    verbose = run(tmp_path, "-v", "lint", "--ignore-missing-schemas", str(tmp_path / "run.yaml"))
    assert "skipped 2 object(s) of 1 kind(s) without a schema: Run (example.com/v1)" in verbose.stderr


@pytest.mark.slow
@needs_mirror
def test_fresh_repository_lints_clean_before_and_after_sync(tmp_path, run, mirror_sync):
    """init + render + lint: one warning naming the unchecked kinds, then every object checked.
    The sync is conftest's one run of ``schemas sync --from`` (its own cache folder); its set is
    copied into this test's cache as that run installed it."""
    root = tmp_path / "x"
    root.mkdir()
    assert run(root, "init", "x").exit_code == 0
    rendered = run(root, "render")
    assert rendered.exit_code == 0, rendered.output
    assert (
        "GitRepository (source.toolkit.fluxcd.io/v1)" in rendered.stderr
        and "`gpu-gitops schemas sync`" in rendered.stderr
    )
    before = run(root, "lint")
    assert before.exit_code == 0, before.output
    warnings = [line for line in before.stderr.splitlines() if "not schema-checked" in line]
    assert len(warnings) == 1 and "HelmRelease (helm.toolkit.fluxcd.io/v2)" in warnings[0]
    sync_root, synced = mirror_sync
    assert synced.exit_code == 0, synced.output
    assert not list(sync_root.glob("*.part")) and schemaset.installed(sync_root) is not None
    shutil.copytree(sync_root / "crd-schemas", paths.cache_root() / "crd-schemas")
    installed = schemaset.installed()
    assert installed is not None and installed.version == schemasync.load_sources().version
    assert f"schema set {installed.version}: {installed.kinds} schemas" in synced.stdout
    # only kinds whose upstream file the mirror lacks may stay unchecked
    absent = {f"{kind.split()[1]} ({kind.split()[0]})" for kind in installed.absent}
    after = run(root, "lint", "--format", "json")
    assert after.exit_code == 0, after.output
    unchecked = {
        f"{f['object']['kind']} ({f['object']['apiVersion']})" if isinstance(f.get("object"), dict) else f["message"]
        for f in json.loads(after.stdout)["findings"]
        if f["rule"] == "K8S004"
    }
    assert unchecked <= absent, unchecked
    assert not [f for f in json.loads(after.stdout)["findings"] if f["rule"] in ("K8S001", "K8S002", "K8S003")]
    if not absent:
        assert run(root, "lint", "--require-schemas").exit_code == 0
    assert "checked against schema set" in run(root, "lint").stderr
    from generator.render import pipeline

    pipeline.validator.cache_clear()  # render's validators live for the process; the CLI starts a new one
    render_again = run(root, "render", *([] if absent else ["--require-schemas"]))
    assert render_again.exit_code == 0 and "checked against schema set" in render_again.stderr
