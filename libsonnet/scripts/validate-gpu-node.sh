#!/bin/sh
# Validate one GPU node: the driver is at least the pinned minimum, the node has exactly the
# number of GPUs its pool declares and (NVIDIA) every GPU carries exactly the pool's MIG layout,
# so the device plugin advertises what the pool's quotas assume. Prints one line starting
# "gpu-validation: PASS" or "gpu-validation: FAIL" and exits non-zero on failure, so the pod
# status shows the result.
#
# usage: validate-gpu-node.sh nvidia|amd MIN_DRIVER_VERSION EXPECTED_GPUS [MIG_LAYOUT]
#   MIG_LAYOUT (nvidia): "none", or the MIG devices of one GPU as "<profile>=<count>,..."
#   (e.g. "1g.10gb=7"), compared with the MIG devices `nvidia-smi -L` lists under each GPU.
# usage: validate-gpu-node.sh advertised RESOURCE=COUNT...
#   The node's allocatable (kubectl, in-cluster) has exactly COUNT of each RESOURCE: what the
#   device plugin registered with the kubelet, e.g. nvidia.com/gpu=32 for 8 GPUs time-sliced 4x.
# usage: validate-gpu-node.sh slices DEVICE=COUNT...
#   A DRA pool's node: the NVIDIA DRA driver's ResourceSlices for it (kubectl, in-cluster) publish
#   exactly COUNT devices of each DEVICE and nothing else, where DEVICE is "gpu" (a whole GPU) or
#   "mig/<profile>" (a MIG device), from each device's `type` and `profile` attributes.
# usage: validate-gpu-node.sh fabric infiniband|roce|efa NICS
#   The node's training fabric: at least NICS RDMA devices of the fabric with a port in state
#   ACTIVE, from sysfs (/sys/class/infiniband: every HCA, whatever the pod's network namespace in
#   the kernel's default shared RDMA mode). infiniband/roce: NVIDIA (Mellanox, PCI vendor 0x15b3)
#   devices whose port link layer is InfiniBand or Ethernet; efa: devices of the `efa` driver.
#   $SYSFS (default /sys) is where sysfs is mounted.
set -u
export LC_ALL=C

vendor=${1:?vendor}
node=${NODE_NAME:-$(hostname)}

fail() {
    echo "gpu-validation: FAIL node=$node vendor=$vendor: $*"
    exit 1
}

if [ "$vendor" = advertised ]; then
    shift
    [ "$#" -gt 0 ] || fail "no RESOURCE=COUNT given"
    summary=""
    for pair in "$@"; do
        resource=${pair%%=*}
        expected=${pair#*=}
        # jsonpath needs the dots of the resource name escaped: nvidia\.com/gpu
        path=$(printf '%s' "$resource" | sed 's/\./\\./g')
        have=$(kubectl --cache-dir=/tmp/kubectl-cache get node "$node" -o "jsonpath={.status.allocatable.$path}" 2>/tmp/kubectl.err) \
            || fail "kubectl get node failed: $(cat /tmp/kubectl.err)"
        [ "$have" = "$expected" ] || fail "the node advertises ${have:-no} $resource, the pool declares $expected"
        summary="$summary $resource=$have"
    done
    echo "gpu-validation: PASS node=$node vendor=$vendor$summary"
    exit 0
fi

if [ "$vendor" = slices ]; then
    shift
    [ "$#" -gt 0 ] || fail "no DEVICE=COUNT given"
    # resourceslices.v1.resource.k8s.io: the v1 layout whatever the server prefers; the driver and
    # node field selectors are the ones the API server supports for ResourceSlices.
    listing=$(kubectl --cache-dir=/tmp/kubectl-cache get resourceslices.v1.resource.k8s.io \
        --field-selector "spec.nodeName=$node,spec.driver=gpu.nvidia.com" \
        -o 'jsonpath={range .items[*].spec.devices[*]}{.attributes.type.string}{" "}{.attributes.profile.string}{"\n"}{end}' \
        2>/tmp/kubectl.err) || fail "kubectl get resourceslices failed: $(cat /tmp/kubectl.err)"
    have=$(printf '%s\n' "$listing" | awk 'NF { if ($1 == "mig") print "mig/" $2; else print $1 }' |
        sort | uniq -c | awk '{ print $2 "=" $1 }' | sort | paste -s -d' ' -)
    want=$(printf '%s\n' "$@" | sort | paste -s -d' ' -)
    if [ "$have" != "$want" ]; then
        case $want in
            # The kubelet plugin lists devices once, when it starts: one that started before the
            # MIG layout was applied publishes what the GPUs held then.
            *mig/*) fail "the node's ResourceSlices publish ${have:-no devices}, the pool declares $want;" \
                "check nvidia.com/mig.config.state on the node: until it is success mig-manager is still applying" \
                "the layout (or failed: its logs say why); once it is, gpu-node-config restarts the DRA kubelet plugin" \
                "within two minutes, or delete the plugin's pod on this node" ;;
            *) fail "the node's ResourceSlices publish ${have:-no devices}, the pool declares $want" ;;
        esac
    fi
    echo "gpu-validation: PASS node=$node vendor=$vendor $have"
    exit 0
fi

if [ "$vendor" = fabric ]; then
    kind=${2:?fabric type}
    want=${3:?NICs per node}
    root=${SYSFS:-/sys}/class/infiniband
    case "$kind" in
    infiniband) layer=InfiniBand ;;
    roce) layer=Ethernet ;;
    efa) layer="" ;;
    *) fail "unknown fabric $kind (expected infiniband, roce or efa)" ;;
    esac
    [ -d "$root" ] || fail "no RDMA devices: $root does not exist (is the NIC's RDMA driver loaded?)"
    found=0
    down=""
    for dev in "$root"/*; do
        [ -e "$dev" ] || continue
        if [ "$kind" = efa ]; then
            driver=$(readlink "$dev/device/driver" 2>/dev/null || true)
            [ "${driver##*/}" = efa ] || continue
        else
            [ "$(cat "$dev/device/vendor" 2>/dev/null)" = 0x15b3 ] || continue
            [ "$(cat "$dev/ports/1/link_layer" 2>/dev/null)" = "$layer" ] || continue
        fi
        active=no
        for state in "$dev"/ports/*/state; do
            case "$(cat "$state" 2>/dev/null)" in *ACTIVE*) active=yes ;; esac
        done
        if [ "$active" = yes ]; then
            found=$((found + 1))
        else
            down="$down ${dev##*/}"
        fi
    done
    [ "$found" -ge "$want" ] || fail "found $found $kind devices with an active port, the pool declares $want per node${down:+ (no active port:$down)}"
    echo "gpu-validation: PASS node=$node vendor=$vendor $kind devices=$found (expected at least $want)"
    exit 0
fi

min_version=${2:?minimum driver version}
want=${3:?expected GPU count}
want_layout=${4:-}

# "<profile>=<count>,..." sorted by profile, from "<profile>=<count>" items split by commas or lines.
normalize_layout() {
    tr ',' '\n' | grep . | sort | paste -s -d, -
}

# One line per GPU, "<index> <layout>", from `nvidia-smi -L` on stdin, where a GPU is
# "GPU <i>: <name> (UUID: ...)" and each of its MIG devices an indented
# "MIG <profile> Device <n>: (UUID: ...)" line below it.
gpu_layouts() {
    listing=$(cat)
    for gpu in $(printf '%s\n' "$listing" | sed -n 's/^GPU \([0-9][0-9]*\):.*/\1/p'); do
        layout=$(printf '%s\n' "$listing" | awk -v gpu="$gpu" '
            /^GPU [0-9]+:/ { current = $2; sub(":", "", current); next }
            current == gpu && $1 == "MIG" { print $2 }' | sort | uniq -c | awk '{ print $2 "=" $1 }' | normalize_layout)
        echo "$gpu ${layout:-none}"
    done
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

mig=""
if [ "$vendor" = nvidia ] && [ -n "$want_layout" ]; then
    [ "$want_layout" = none ] || want_layout=$(printf '%s\n' "$want_layout" | normalize_layout)
    listing=$(nvidia-smi -L 2>&1) || fail "nvidia-smi -L failed: $listing"
    layouts=$(printf '%s\n' "$listing" | gpu_layouts)
    listed=$(printf '%s\n' "$layouts" | grep -c .)
    [ "$listed" -eq "$count" ] || fail "nvidia-smi -L lists $listed GPUs, --query-gpu $count"
    wrong=$(printf '%s\n' "$layouts" | awk -v want="$want_layout" '$2 != want { printf "%sGPU %s has %s", sep, $1, $2; sep = "; " }')
    [ -z "$wrong" ] || fail "MIG layout differs from the pool's ($want_layout per GPU): $wrong"
    mig=" mig=$want_layout"
fi
echo "gpu-validation: PASS node=$node vendor=$vendor driver=$version gpus=$count$mig (minimum driver $min_version, expected $want)"
