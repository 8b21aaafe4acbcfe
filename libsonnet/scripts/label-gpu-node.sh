# Labels this pod's Node (NODE_NAME) with the pool's GPU Operator labels (gpu-node-config).
#
# usage: label-gpu-node.sh once|loop KEY=VALUE...
#   once  one pass (the init container); loop: a pass every REASSERT_SECONDS (60) until one fails.
#
# A pass reads the Node once and patches only the labels whose value differs, with the Node's
# resourceVersion (`kubectl label --resource-version`): when another writer changed the Node in
# between, the API server answers Conflict and the pass is tried again on a fresh read, so a
# value set by another controller after the read is never written over.
#
# A value `paused-*` is left as it is, whatever the label: the GPU Operator's driver manager sets
# the label it evicts GPU pods by to `paused-for-driver-upgrade`, drains, reloads the driver and
# only then restores it (NVIDIA/k8s-driver-manager, NODE_LABEL_FOR_GPU_POD_EVICTION), and
# mig-manager pauses the operands' deploy labels with `paused-for-mig-change` while it
# repartitions (NVIDIA/mig-parted deployments/gpu-operator/labels.go, maybeSetPaused, v0.15.0).
# Each restores the value it found (maybeSetTrue keeps `false`), so the pool's value comes back.
#
# MIG_GATED_LABEL (a DRA pool with MIG): the label the DRA kubelet plugin is scheduled by. The
# plugin lists the GPUs and MIG devices once, when it starts (cmd/gpu-kubelet-plugin
# device_state.go NewDeviceState, NVIDIA/k8s-dra-driver-gpu v25.12.0), so it is labelled `true`
# only while mig-manager reports the layout applied (nvidia.com/mig.config.state=success) and
# `false` otherwise, which makes the DaemonSet controller delete the plugin's pod. While the
# state is success, the node's ResourceSlices must publish exactly MIG_GATED_DEVICES
# ("mig/<profile>=<count> ..."): a plugin that started before the layout was in place (a
# `success` left from before a reboot) is restarted, through `false`, after two passes in a row
# saw other devices. The count of such passes is kept in $TMPDIR (/tmp, the pod's emptyDir).
set -u
export LC_ALL=C

mode=${1:?once or loop}
shift
node=${NODE_NAME:?NODE_NAME}
interval=${REASSERT_SECONDS:-60}
gate=${MIG_GATED_LABEL:-}
devices=${MIG_GATED_DEVICES:-}
misses_file=${TMPDIR:-/tmp}/label-gpu-node.misses
kubectl="kubectl --cache-dir=${TMPDIR:-/tmp}/kubectl-cache"

log() {
    echo "gpu-node-config: node=$node: $*"
}

# The value of label $1 in $labels ("key=value" lines), empty when it is not set.
value_of() {
    printf '%s\n' "$labels" | awk -v key="$1" 'index($0, key "=") == 1 { print substr($0, length(key) + 2); exit }'
}

# "mig/<profile>=<count> ..." sorted, from the node's ResourceSlices of the DRA driver (as
# validate-gpu-node.sh slices reads them).
published() {
    listing=$($kubectl get resourceslices.v1.resource.k8s.io \
        --field-selector "spec.nodeName=$node,spec.driver=gpu.nvidia.com" \
        -o 'jsonpath={range .items[*].spec.devices[*]}{.attributes.type.string}{" "}{.attributes.profile.string}{"\n"}{end}') ||
        return 1
    printf '%s\n' "$listing" | awk 'NF { if ($1 == "mig") print "mig/" $2; else print $1 }' |
        sort | uniq -c | awk '{ print $2 "=" $1 }' | sort | paste -s -d' ' -
}

# The value the gated label should have now: `false` unless mig-manager reports the pool's own
# layout ($3, the value this pass wants for nvidia.com/mig.config) applied.
gated_value() {
    want=$1
    current=$2
    if [ "$(value_of nvidia.com/mig.config)" != "$3" ] || [ "$(value_of nvidia.com/mig.config.state)" != success ]; then
        echo 0 >"$misses_file"
        echo false
        return
    fi
    [ "$current" = true ] || { echo "$want"; return; }
    have=$(published) || { echo "$want"; return; }
    expected=$(printf '%s\n' $devices | sort | paste -s -d' ' -)
    misses=$(cat "$misses_file" 2>/dev/null || echo 0)
    if [ "$have" = "$expected" ]; then
        misses=0
    else
        misses=$((misses + 1))
    fi
    if [ "$misses" -ge 2 ]; then
        log "ResourceSlices publish ${have:-no devices}, the layout is $expected: restarting the DRA kubelet plugin" >&2
        echo 0 >"$misses_file"
        echo false
        return
    fi
    echo "$misses" >"$misses_file"
    echo "$want"
}

# One read, one conditional patch; status 2 on a Conflict (the Node changed since the read).
pass() {
    read=$($kubectl get node "$node" \
        -o 'go-template={{.metadata.resourceVersion}}{{"\n"}}{{range $k, $v := .metadata.labels}}{{$k}}={{$v}}{{"\n"}}{{end}}') ||
        return 1
    version=$(printf '%s\n' "$read" | head -n 1)
    labels=$(printf '%s\n' "$read" | tail -n +2)
    changes=""
    layout=""
    for pair in "$@"; do
        case $pair in nvidia.com/mig.config=*) layout=${pair#*=} ;; esac
    done
    for pair in "$@"; do
        key=${pair%%=*}
        want=${pair#*=}
        current=$(value_of "$key")
        case $current in
            paused-*)
                log "$key=$current left as it is (paused by its controller)"
                continue
                ;;
        esac
        if [ -n "$gate" ] && [ "$key" = "$gate" ]; then
            want=$(gated_value "$want" "$current" "$layout")
        fi
        [ "$current" = "$want" ] || changes="$changes $key=$want"
    done
    [ -n "$changes" ] || return 0
    # shellcheck disable=SC2086 # one word per label
    if ! out=$($kubectl label node "$node" --overwrite --resource-version="$version" $changes 2>&1); then
        case $out in
            *onflict* | *"has been modified"*) return 2 ;;
        esac
        echo "$out" >&2
        return 1
    fi
    log "set$changes"
}

# A pass, tried again at once (up to 5 times) while it meets a Conflict.
reconcile() {
    tries=0
    while :; do
        pass "$@"
        status=$?
        [ "$status" -eq 2 ] || return "$status"
        tries=$((tries + 1))
        [ "$tries" -lt 5 ] || return 1
    done
}

case $mode in
    once) reconcile "$@" ;;
    loop)
        while reconcile "$@"; do
            sleep "$interval"
        done
        exit 1
        ;;
    *)
        echo "usage: label-gpu-node.sh once|loop KEY=VALUE..." >&2
        exit 2
        ;;
esac
