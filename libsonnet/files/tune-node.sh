#!/bin/sh
# Apply one node pool's kernel settings: node-level sysctls and runtime huge pages, and check
# the huge pages the node image reserves at boot. Rendered by gpu-gitops into the node-tuning
# ConfigMap; runs as the init container of the pool's tuning DaemonSet.
#
# Usage: tune-node.sh CONFIG
# CONFIG has one setting a line ('#' starts a comment):
#   sysctl KEY VALUE...          write VALUE to /proc/sys/KEY (dots become slashes)
#   hugepages SIZE_KB COUNT      set the persistent pool of SIZE_KB pages to COUNT
#   reserved-hugepages SIZE_KB COUNT   only check that at least COUNT pages are there
# Environment:
#   PROC_SYS   where /proc/sys is (default /proc/sys)
#   SYS_ROOT   where /sys is (default /sys)
#   RESTART_KUBELET=true   restart the kubelet after huge pages changed: it reads them only
#                          when it starts (kubernetes/kubernetes#111757)
#   KUBELET_RESTART_COMMAND   how (default: systemctl in the host's namespaces, not waiting)
#
# Idempotent: a value already in place is not written again, so a second run changes nothing
# and never restarts the kubelet. Every setting is logged, changed or not. Exits non-zero if a
# setting could not be applied or a check failed, so the pod shows it (Init:CrashLoopBackOff)
# and retries.
set -eu
set -f  # values are data, never globs

config=${1:?usage: tune-node.sh CONFIG}
proc_sys=${PROC_SYS:-/proc/sys}
sys_root=${SYS_ROOT:-/sys}
restart_kubelet=${RESTART_KUBELET:-false}
restart_command=${KUBELET_RESTART_COMMAND:-nsenter --target 1 --mount --uts --ipc --net --pid -- systemctl restart --no-block kubelet}

changed=0
unchanged=0
failed=0
hugepages_changed=0

log() { printf 'tune-node: %s\n' "$*"; }

# Word-split on purpose: "4096\t87380" and "4096 87380" are the same setting.
normalise() { set -- $*; printf '%s' "$*"; }

# write NAME FILE VALUE: set FILE to VALUE unless it already holds it.
write() {
  name=$1 file=$2 want=$(normalise "$3")
  if [ ! -f "$file" ]; then
    log "error: $name: $file does not exist on this kernel"
    failed=$((failed + 1))
    return 1
  fi
  have=$(normalise "$(cat "$file")")
  if [ "$have" = "$want" ]; then
    log "unchanged $name = $want"
    unchanged=$((unchanged + 1))
    return 1
  fi
  if ! printf '%s\n' "$want" > "$file"; then
    log "error: $name: cannot write $file"
    failed=$((failed + 1))
    return 1
  fi
  log "set $name: $have -> $want"
  changed=$((changed + 1))
  return 0
}

# kernel command-line spelling of a page size in kB: 2048 -> 2M, 1048576 -> 1G
size_arg() { if [ $(($1 % 1048576)) -eq 0 ]; then echo "$(($1 / 1048576))G"; else echo "$(($1 / 1024))M"; fi; }

hugepages_file() { printf '%s/kernel/mm/hugepages/hugepages-%skB/nr_hugepages' "$sys_root" "$1"; }

set_hugepages() {
  size=$1 want=$2 file=$(hugepages_file "$1")
  if write "hugepages-${size}kB" "$file" "$want"; then
    hugepages_changed=1
    got=$(cat "$file")
    if [ "$got" -lt "$want" ]; then
      log "error: hugepages-${size}kB: the kernel allocated $got of $want pages (memory is fragmented);" \
          "reserve them at boot instead"
      failed=$((failed + 1))
    fi
  fi
}

check_reserved() {
  size=$1 want=$2 file=$(hugepages_file "$1")
  have=$(cat "$file" 2>/dev/null || echo 0)
  if [ "$have" -lt "$want" ]; then
    log "error: hugepages-${size}kB: the node reserves $have pages at boot, the pool needs $want;" \
        "add 'hugepagesz=$(size_arg "$size") hugepages=$want' to the kernel command line of the node image"
    failed=$((failed + 1))
  else
    log "ok hugepages-${size}kB reserved at boot: $have (needs $want)"
  fi
}

while read -r kind key value || [ -n "$kind" ]; do
  case $kind in
    ''|'#'*) continue ;;
    sysctl) write "$key" "$proc_sys/$(printf '%s' "$key" | tr . /)" "$value" || true ;;
    hugepages) set_hugepages "$key" "$value" ;;
    reserved-hugepages) check_reserved "$key" "$value" ;;
    *) log "error: unknown setting '$kind' in $config"; failed=$((failed + 1)) ;;
  esac
done < "$config"

log "$changed changed, $unchanged unchanged, $failed failed"

if [ "$hugepages_changed" = 1 ]; then
  if [ "$restart_kubelet" = true ]; then
    log "huge pages changed: restarting the kubelet so it advertises them"
    $restart_command
  else
    log "huge pages changed: the kubelet advertises them after its next restart"
  fi
fi

[ "$failed" -eq 0 ]
