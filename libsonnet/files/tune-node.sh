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
#   RESTART_KUBELET=true   restart the kubelet so it advertises runtime huge pages: it reads
#                          them only when it starts (kubernetes/kubernetes#111757)
#   KUBELET_RESTART_COMMAND   how (default: systemctl in the host's namespaces, waiting for it)
#   STATE_DIR  where the restart record lives, on the host (default /var/lib/gpu-gitops)
#   HOST_PROC  the host's /proc (default /proc: the pod shares the host's PID namespace)
#   LOCK_NAME, LOCK_NAMESPACE   the pool's kubelet restart lock, a coordination.k8s.io Lease
#                            (none: no lock); KUBECTL (default kubectl) reaches the API server
#   NODE_NAME  the lock holder's identity (default: hostname)
#   LOCK_SECONDS  how long a lock whose holder went away blocks the pool (default 600)
#   LOCK_POLL_SECONDS  how often a waiting node checks the lock (default 10)
#   KUBELET_HEALTHZ_URL  polled after the restart (default http://127.0.0.1:10248/healthz, the
#                        kubelet's --healthz-bind-address and --healthz-port defaults)
#   STARTUP_TAINT  the key of the NoSchedule taint the node starts with (none: none), removed
#                  once node allocatable shows the runtime huge pages (see below)
#   ALLOCATABLE_TRIES, ALLOCATABLE_POLL_SECONDS  how long to wait for that (default 30 x 2 s)
#
# Whether the kubelet must restart is not decided from what this run changed: a restart that
# failed once would never be retried, and after a reboot the pages are set again after the
# kubelet started. Instead STATE_DIR/kubelet-hugepages records the runtime huge pages and the
# boot (kernel boot_id) of the last successful restart; the kubelet is restarted whenever that
# record is missing or differs, and the record is written only once the restart succeeded.
# The restart goes through systemd; it is refused (an error) when the host's PID 1 is not
# systemd, where `systemctl restart kubelet` cannot work (e.g. Talos).
#
# The restarted kubelet admits the pods already bound to the node again, against an allocatable
# smaller by the pages (kubelet HandlePodAdditions): a pod that no longer fits is rejected and
# killed. So the node starts with STARTUP_TAINT (the provisioner's startupTaints), which only this
# DaemonSet and the node's system agents tolerate, and the taint is removed only when the run
# succeeded and the Node's status.allocatable shows every runtime huge page size at the count set
# (the kubelet reports it after its restart): workloads land after the restart, never before.
#
# One node of the pool restarts its kubelet at a time: a pool's nodes are created together and
# often rebooted together. The lock is a Lease held by NODE_NAME in the standard fields
# (spec.holderIdentity, renewTime, leaseDurationSeconds: k8s.io/api coordination/v1 types.go,
# "leaseDurationSeconds is a duration that candidates for a lease need to wait to force acquire
# it ... measured against the time of last observed renewTime"). `kubectl create` is atomic (it
# fails while the Lease exists), and the Lease is deleted once the kubelet answers its health
# check again, with the resourceVersion read as a precondition (DeleteOptions.preconditions,
# sent by `kubectl delete --raw`: plain `kubectl delete` does no resourceVersion check), so a
# node never deletes a Lease another node has taken since.
# - A kubelet that does not answer after its restart holds the pool: the holder marks its Lease
#   (annotation gpu-gitops.io/held), which never expires, and no other node restarts its kubelet
#   (the next one would likely break the same way) until that kubelet is back (its pod runs again
#   and releases the Lease) or someone deletes the Lease. The holder exits non-zero.
# - A Lease whose holder went away without a word (its node died mid-restart) is taken over once
#   renewTime (else acquireTime, else creationTimestamp) plus leaseDurationSeconds (else
#   LOCK_SECONDS) has passed. Any Lease of that name is judged so, whoever wrote it (older
#   versions, a hand-made one); one without a holder (released the client-go way) is free.
# - The holder's own Lease (its pod restarted) is taken back at once.
# A takeover is a `kubectl replace` at the resourceVersion read, so two waiting nodes cannot
# both take it.
#
# Huge pages the kernel cannot fully allocate (fragmented memory) are rolled back to the count
# before this run: a partial pool pins memory the kubelet still counts as allocatable.
# Without RESTART_KUBELET every run warns that node allocatable may lack the runtime pages.
#
# Idempotent: a value already in place is not written again, so a second run changes nothing
# and never restarts the kubelet twice for the same pages and boot. Every setting is logged,
# changed or not. Exits non-zero if a setting could not be applied, a check failed or the
# kubelet restart failed, so the pod shows it (Init:CrashLoopBackOff) and retries.
set -eu
set -f  # values are data, never globs

config=${1:?usage: tune-node.sh CONFIG}
proc_sys=${PROC_SYS:-/proc/sys}
sys_root=${SYS_ROOT:-/sys}
restart_kubelet=${RESTART_KUBELET:-false}
restart_command=${KUBELET_RESTART_COMMAND:-nsenter --target 1 --mount --uts --ipc --net --pid -- systemctl restart kubelet}
state_dir=${STATE_DIR:-/var/lib/gpu-gitops}
host_proc=${HOST_PROC:-/proc}
kubectl=${KUBECTL:-kubectl}
lock_name=${LOCK_NAME:-}
lock_ns=${LOCK_NAMESPACE:-}
node_name=${NODE_NAME:-$(hostname)}
lock_seconds=${LOCK_SECONDS:-600}
lock_poll=${LOCK_POLL_SECONDS:-10}
healthz=${KUBELET_HEALTHZ_URL:-http://127.0.0.1:10248/healthz}
startup_taint=${STARTUP_TAINT:-}
allocatable_tries=${ALLOCATABLE_TRIES:-30}
allocatable_poll=${ALLOCATABLE_POLL_SECONDS:-2}
record=$state_dir/kubelet-hugepages

changed=0
unchanged=0
failed=0
runtime_hugepages=''
hugepages_failed=0

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
  runtime_hugepages="$runtime_hugepages ${size}kB=$want"
  before=$failed
  if write "hugepages-${size}kB" "$file" "$want"; then
    got=$(cat "$file")
    if [ "$got" -lt "$want" ]; then
      log "error: hugepages-${size}kB: the kernel allocated $got of $want pages (memory is fragmented);" \
          "reserve them at boot instead"
      failed=$((failed + 1))
      # $have: the count before this run (set by write)
      if printf '%s\n' "$have" > "$file" && [ "$(cat "$file")" = "$have" ]; then
        log "rolled back hugepages-${size}kB to $have: a partial pool pins memory the kubelet counts as allocatable"
      else
        log "error: hugepages-${size}kB: cannot roll back to $have (now $(cat "$file"))"
      fi
    fi
  fi
  [ "$failed" -eq "$before" ] || hugepages_failed=1
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

lease_path() { printf '/apis/coordination.k8s.io/v1/namespaces/%s/leases/%s' "$lock_ns" "$lock_name"; }

# lease [RESOURCE_VERSION [HELD]]: the lock's manifest (JSON), held by this node and renewed now.
lease() {
  version='' held=''
  [ -z "${1:-}" ] || version=",\"resourceVersion\":\"$1\""
  [ -z "${2:-}" ] || held=",\"annotations\":{\"gpu-gitops.io/held\":\"$2\"}"
  printf '{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"%s","namespace":"%s"%s%s},' \
    "$lock_name" "$lock_ns" "$version" "$held"
  printf '"spec":{"holderIdentity":"%s","leaseDurationSeconds":%s,"renewTime":"%s"}}\n' \
    "$node_name" "$lock_seconds" "$(date -u +%Y-%m-%dT%H:%M:%S.000000Z)"
}

# epoch TIMESTAMP: seconds since the epoch of an API timestamp (RFC 3339 in UTC, as the API
# server writes every Time and MicroTime), or nothing. busybox and GNU date both read
# "YYYY-MM-DD hh:mm:ss".
epoch() {
  [ -n "$1" ] || return 0
  date -u -d "$(printf '%s' "$1" | sed 's/\.[0-9]*//; s/Z$//; s/T/ /')" +%s 2>/dev/null || true
}

# read_lock: the lock's fields, or false when it cannot be read (lock_error says why). Sets
# lock_version, lock_holder, lock_held and lock_expires (epoch seconds; empty: unknown).
read_lock() {
  current=$($kubectl get lease -n "$lock_ns" "$lock_name" -o 'jsonpath={.metadata.resourceVersion}|{.spec.holderIdentity}|{.spec.leaseDurationSeconds}|{.spec.renewTime}|{.spec.acquireTime}|{.metadata.creationTimestamp}|{.metadata.annotations.gpu-gitops\.io/held}|end' 2>&1) \
    || { lock_error=$current; return 1; }
  saved_ifs=$IFS
  IFS='|'
  set -- $current
  IFS=$saved_ifs
  if [ $# -ne 8 ] || [ "$8" != end ] || [ -z "$1" ]; then
    lock_error="unexpected answer: $current"
    return 1
  fi
  lock_version=$1 lock_holder=$2 lock_held=$7
  since=$(epoch "${4:-${5:-$6}}")
  lock_expires=''
  [ -z "$since" ] || lock_expires=$((since + ${3:-$lock_seconds}))
}

acquire_lock() {
  [ -n "$lock_name" ] || return 0
  while :; do
    if lock_error=$(lease | $kubectl create -f - 2>&1); then
      log "holding the kubelet restart lock $lock_ns/$lock_name"
      return 0
    fi
    if read_lock; then
      why=''
      if [ "$lock_holder" = "$node_name" ]; then why="its own"
      elif [ -z "$lock_holder" ]; then why="released"
      elif [ -z "$lock_held" ] && [ -n "$lock_expires" ] && [ "$lock_expires" -lt "$(date +%s)" ]; then
        why="expired"
      fi
      if [ -n "$why" ] && lease "$lock_version" | $kubectl replace -f - >/dev/null 2>&1; then
        log "holding the kubelet restart lock $lock_ns/$lock_name (taken over from ${lock_holder:-nobody}: $why)"
        return 0
      fi
      if [ -n "$lock_held" ]; then
        log "waiting for the kubelet restart lock $lock_ns/$lock_name, held by $lock_holder: its kubelet" \
            "did not answer after its restart ($lock_held); no node of the pool restarts its kubelet until" \
            "that kubelet is back or the Lease is deleted (kubectl delete lease -n $lock_ns $lock_name)"
      else
        log "waiting for the kubelet restart lock $lock_ns/$lock_name, held by ${lock_holder:-nobody}: one node of the pool at a time"
      fi
    else
      log "waiting for the kubelet restart lock $lock_ns/$lock_name: $lock_error"
    fi
    sleep "$lock_poll"
  done
}

# release_lock [quiet]: delete the lock if this node holds it, at the resourceVersion read.
release_lock() {
  [ -n "$lock_name" ] || return 0
  lock_holder=''
  if read_lock && [ "$lock_holder" = "$node_name" ] \
     && printf '{"apiVersion":"v1","kind":"DeleteOptions","preconditions":{"resourceVersion":"%s"}}\n' "$lock_version" \
        | $kubectl delete --raw "$(lease_path)" -f - >/dev/null; then
    log "released the kubelet restart lock $lock_ns/$lock_name"
  elif [ -z "${1:-}" ]; then
    log "warning: the kubelet restart lock $lock_ns/$lock_name is not released by $node_name (holder: ${lock_holder:-none})"
  fi
}

# hold_lock: mark this node's lock as held (it never expires): its kubelet did not come back.
hold_lock() {
  [ -n "$lock_name" ] || return 0
  held="kubelet not healthy after its restart at $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  lock_error=''
  if read_lock && [ "$lock_holder" = "$node_name" ] \
     && lease "$lock_version" "$held" | $kubectl replace -f - >/dev/null; then
    log "error: the kubelet does not answer $healthz after its restart; the lock $lock_ns/$lock_name is" \
        "held, so no other node of the pool restarts its kubelet until this one is back"
  else
    log "error: the kubelet does not answer $healthz after its restart, and the lock $lock_ns/$lock_name" \
        "cannot be marked held (${lock_error:-holder ${lock_holder:-none}}): it expires after ${lock_seconds}s"
  fi
}

# The kubelet answers its health check within a minute of the restart.
kubelet_healthy() {
  tries=0
  while [ "$tries" -lt 30 ]; do
    wget -q -O /dev/null "$healthz" 2>/dev/null && return 0
    tries=$((tries + 1))
    sleep 2
  done
  return 1
}

# Restart the kubelet unless the record says it already restarted for these pages in this boot.
restart_for_hugepages() {
  [ -n "$runtime_hugepages" ] || return 0
  boot=$(cat "$proc_sys/kernel/random/boot_id" 2>/dev/null || echo unknown)
  want="hugepages$runtime_hugepages boot $boot"
  if [ "$restart_kubelet" != true ]; then
    log "warning: huge pages$runtime_hugepages are set at runtime, but the kubelet reads huge pages" \
        "only when it starts and tuning.restartKubelet is false: node allocatable lacks them until" \
        "the kubelet restarts after this point (again after every reboot), so pods requesting them" \
        "stay Pending"
    return 0
  fi
  have=$(cat "$record" 2>/dev/null || true)
  if [ "$have" = "$want" ]; then
    log "unchanged kubelet: restarted for huge pages$runtime_hugepages in this boot ($record)"
    # A kubelet that came back late: this run is the first since, and the lock may be ours.
    if [ -n "$lock_name" ] && kubelet_healthy; then release_lock quiet; fi
    return 0
  fi
  if [ "$hugepages_failed" = 1 ]; then
    log "not restarting the kubelet: the huge pages are not all in place (retried on the next run)"
    return 0
  fi
  if [ -z "$have" ]; then reason="no restart recorded in $record"
  elif [ "${have% boot *}" != "${want% boot *}" ]; then reason="huge pages changed"
  else reason="the node rebooted since the last restart"
  fi
  init=$(cat "$host_proc/1/comm" 2>/dev/null || echo unknown)
  if [ "$init" != systemd ]; then
    log "error: cannot restart the kubelet: the host's init is '$init', not systemd;" \
        "set tuning.restartKubelet: false and reserve the huge pages at boot in the node image"
    failed=$((failed + 1))
    return 0
  fi
  acquire_lock
  log "restarting the kubelet so it advertises huge pages$runtime_hugepages ($reason)"
  if ! $restart_command; then
    log "error: the kubelet restart failed; retried on the next run"
    failed=$((failed + 1))
    release_lock
    return 0
  fi
  if mkdir -p "$state_dir" && printf '%s\n' "$want" > "$record.new" && mv -f "$record.new" "$record"; then
    log "kubelet restarted; recorded in $record"
  else
    log "error: kubelet restarted, but $record cannot be written: it will be restarted again"
    failed=$((failed + 1))
  fi
  if ! kubelet_healthy; then
    hold_lock
    failed=$((failed + 1))
    return 0
  fi
  release_lock
}

# bytes QUANTITY: a Kubernetes quantity as the kubelet reports huge pages (2Gi, 2147483648, 0)
bytes() {
  printf '%s\n' "$1" | awk '{
    n = $0; m = 1
    if (sub(/Ki$/, "", n)) m = 1024; else if (sub(/Mi$/, "", n)) m = 1048576
    else if (sub(/Gi$/, "", n)) m = 1073741824; else if (sub(/Ti$/, "", n)) m = 1099511627776
    else if (sub(/k$/, "", n)) m = 1000; else if (sub(/M$/, "", n)) m = 1000000
    else if (sub(/G$/, "", n)) m = 1000000000
    if (n !~ /^[0-9]+$/) n = 0
    printf "%.0f\n", n * m }'
}

# Remove the startup taint once the Node's allocatable shows the runtime huge pages; keep it
# (and fail, so the pod retries) while it does not, or when this run failed.
release_startup_taint() {
  [ -n "$startup_taint" ] || return 0
  if [ "$failed" -ne 0 ]; then
    log "keeping the startup taint $startup_taint: this run failed (retried)"
    return 0
  fi
  tries=0
  while :; do
    if ! node=$($kubectl get node "$node_name" -o 'jsonpath={.spec.taints[*].key}|{.status.allocatable}' 2>&1); then
      log "error: cannot read Node $node_name: $node"
      failed=$((failed + 1))
      return 0
    fi
    case " ${node%%|*} " in
      *" $startup_taint "*) ;;
      *) log "no startup taint $startup_taint on $node_name"; return 0 ;;
    esac
    missing=''
    for setting in $runtime_hugepages; do
      size=${setting%%kB=*} count=${setting#*kB=}
      name=hugepages-$(size_arg "$size")i
      shown=$(printf '%s' "${node#*|}" | sed -n "s/.*\"$name\":\"\([^\"]*\)\".*/\1/p")
      [ "$(bytes "${shown:-0}")" -ge $((size * 1024 * count)) ] || missing="$missing $name=${shown:-0} (needs $count pages)"
    done
    if [ -z "$missing" ]; then
      if out=$($kubectl taint node "$node_name" "$startup_taint:NoSchedule-" 2>&1); then
        log "removed the startup taint $startup_taint: node allocatable shows huge pages$runtime_hugepages"
      else
        log "error: cannot remove the startup taint $startup_taint: $out"
        failed=$((failed + 1))
      fi
      return 0
    fi
    tries=$((tries + 1))
    if [ "$tries" -ge "$allocatable_tries" ]; then
      log "error: keeping the startup taint $startup_taint: node allocatable lacks$missing (retried)"
      failed=$((failed + 1))
      return 0
    fi
    sleep "$allocatable_poll"
  done
}

restart_for_hugepages
release_startup_taint
log "$changed changed, $unchanged unchanged, $failed failed"

[ "$failed" -eq 0 ]
