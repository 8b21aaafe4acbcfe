#!/bin/sh
# Validate one GPU node: the driver is at least the pinned minimum and the node has exactly
# the number of GPUs its pool declares. Prints one line starting "gpu-validation: PASS" or
# "gpu-validation: FAIL" and exits non-zero on failure, so the pod status shows the result.
#
# usage: validate-gpu-node.sh nvidia|amd MIN_DRIVER_VERSION EXPECTED_GPUS
set -u

vendor=${1:?vendor}
min_version=${2:?minimum driver version}
want=${3:?expected GPU count}
node=${NODE_NAME:-$(hostname)}

fail() {
    echo "gpu-validation: FAIL node=$node vendor=$vendor: $*"
    exit 1
}

# True when dotted version $1 >= $2, compared field by field as numbers.
version_ge() {
    lowest=$(printf '%s\n%s\n' "$1" "$2" | sort -t. -k1,1n -k2,2n -k3,3n | head -n 1)
    [ "$lowest" = "$2" ]
}

case "$vendor" in
nvidia)
    command -v nvidia-smi >/dev/null 2>&1 || fail "nvidia-smi not found: is the NVIDIA runtime (runtimeClassName nvidia) configured on this node?"
    out=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>&1) || fail "nvidia-smi failed: $out"
    version=$(printf '%s\n' "$out" | head -n 1 | tr -d ' ')
    count=$(printf '%s\n' "$out" | grep -c .)
    ;;
amd)
    command -v amd-smi >/dev/null 2>&1 || fail "amd-smi not found in the validation image"
    out=$(amd-smi static --driver 2>&1) || fail "amd-smi failed: $out"
    version=$(printf '%s\n' "$out" | sed -n 's/^[[:space:]]*VERSION:[[:space:]]*//p' | head -n 1)
    count=$(printf '%s\n' "$out" | grep -c '^GPU:[[:space:]]*[0-9]')
    ;;
*)
    fail "unknown vendor (expected nvidia or amd)"
    ;;
esac

[ -n "$version" ] || fail "could not read the driver version"
version_ge "$version" "$min_version" || fail "driver $version is older than the required minimum $min_version"
[ "$count" -eq "$want" ] || fail "found $count GPUs, the pool declares $want per node"
echo "gpu-validation: PASS node=$node vendor=$vendor driver=$version gpus=$count (minimum driver $min_version, expected $want)"
