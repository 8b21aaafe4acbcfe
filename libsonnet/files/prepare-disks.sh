#!/bin/sh
# Prepare a node's local NVMe disks for local-static-provisioner, which only discovers what is
# already under its discovery directory: mount points (Filesystem mode) or links to block
# devices (Block mode). DESTRUCTIVE: formats disks. Rendered only when the pool opts in
# (`localNvme.prepare.enabled`); runs as the init container of the pool's prepare DaemonSet.
#
# Environment:
#   DEVICE_PATTERN  shell glob of the devices, e.g. /dev/nvme[1-8]n1
#   MODE            Filesystem (format + mount) or Block (link the raw device)
#   FS_TYPE         xfs or ext4 (Filesystem mode)
#   HOST_DIR        the discovery directory (bind-mounted from the host, Bidirectional)
#   FORCE=true      also take devices that hold a filesystem or partition table (erased)
#   DEV_ROOT        prefix of the device tree (tests); links always point at the /dev path
#   MOUNTS          the host's mount table (default /proc/1/mounts: the pod shares the host's
#                   PID namespace, so PID 1's table is the host's, not the container's)
#
# Every disk is named by its stable /dev/disk/by-id link when there is one: nvmeXnY names can
# change across reboots, and a Local PV's path must keep pointing at the same disk. For the same
# reason a Block-mode link points at /dev/disk/by-id/<name>, never at the kernel name, and an
# existing link is checked on every run and re-pointed if it points anywhere else (links made by
# older versions pointed at /dev/nvmeXnY: after a renumbering they would open another disk).
# A disk formatted here carries the label `gpu-gitops` and is mounted again (never re-formatted)
# after a reboot. Devices that are mounted, held by LVM/RAID, or carry any signature are refused
# unless FORCE=true. Idempotent: a disk already mounted or correctly linked is left alone.
set -eu

pattern=${DEVICE_PATTERN:?DEVICE_PATTERN is required}
mode=${MODE:-Filesystem}
fs_type=${FS_TYPE:-xfs}
host_dir=${HOST_DIR:?HOST_DIR is required}
force=${FORCE:-false}
dev_root=${DEV_ROOT:-}
mounts=${MOUNTS:-/proc/1/mounts}
label=gpu-gitops
found=0
failed=0

log() { printf 'prepare-disks: %s\n' "$*"; }

# The by-id name of a device ("nvme-<model>_<serial>"), or its kernel name.
stable_name() {
  for link in "$dev_root"/dev/disk/by-id/nvme-*; do
    [ -L "$link" ] || continue
    case $link in *-part[0-9]*) continue ;; esac
    if [ "$(readlink -f "$link")" = "$(readlink -f "$1")" ]; then
      basename "$link"
      return
    fi
  done
  basename "$1"
}

# The path a Block-mode link points at: the by-id link (the host's path, without DEV_ROOT), or
# the kernel name when the disk has no by-id link (then a renumbering can swap disks: warned).
link_target() {
  if [ -L "$dev_root/dev/disk/by-id/$1" ]; then
    printf '/dev/disk/by-id/%s\n' "$1"
  else
    log "warning: $2 has no /dev/disk/by-id link; linking its kernel name, which a reboot can renumber" >&2
    printf '%s\n' "${2#"$dev_root"}"
  fi
}

# usable DEVICE: not in use, and empty (or FORCE=true, then wiped).
usable() {
  dev=$1 kernel_name=$(basename "$1")
  if grep -qs "^${1#"$dev_root"}[p ]" "$mounts"; then
    log "refusing $dev: it is mounted"
    return 1
  fi
  if [ -n "$(ls -A "$dev_root/sys/block/$kernel_name/holders" 2>/dev/null)" ]; then
    log "refusing $dev: it is held by another device (LVM, RAID or crypt)"
    return 1
  fi
  if signature=$(blkid -p -o export "$dev" 2>/dev/null) && [ -n "$signature" ]; then
    found_types=$(printf '%s\n' "$signature" | grep -E '^(TYPE|PTTYPE)=' | tr '\n' ' ')
    if [ "$force" != true ]; then
      log "refusing $dev: it holds ${found_types:-a signature}; its data would be lost." \
          "Set localNvme.prepare.force: true to erase it"
      failed=$((failed + 1))
      return 1
    fi
    log "erasing $dev (force): it held ${found_types:-a signature}"
    wipefs --all "$dev"
  fi
  return 0
}

format() {
  case $fs_type in
    xfs) mkfs.xfs -q -f -L "$label" "$1" ;;
    ext4) mkfs.ext4 -q -F -m 0 -L "$label" "$1" ;;
    *) log "error: unsupported filesystem $fs_type"; return 1 ;;
  esac
}

mkdir -p "$host_dir"
set +f
for dev in $dev_root$pattern; do
  [ -e "$dev" ] || continue
  found=$((found + 1))
  name=$(stable_name "$dev")
  target=$host_dir/$name
  if [ "$mode" = Block ]; then
    want=$(link_target "$name" "$dev")
    if [ -L "$target" ]; then
      had=$(readlink "$target")
      if [ "$had" = "$want" ]; then
        log "unchanged $dev: linked at $target"
        continue
      fi
      # The link is ours (named after this disk's serial): re-point it in one rename, so a
      # Local PV never sees it missing.
      rm -f "$target.new"
      ln -s "$want" "$target.new"
      mv -f "$target.new" "$target"
      log "relinked $target -> $want (it pointed at $had)"
      continue
    fi
    usable "$dev" || continue
    ln -s "$want" "$target"
    log "linked $target -> $want"
  else
    if mountpoint -q "$target" 2>/dev/null; then
      log "unchanged $dev: mounted at $target"
      continue
    fi
    if [ "$(blkid -p -s LABEL -o value "$dev" 2>/dev/null || true)" = "$label" ]; then
      mkdir -p "$target"
      mount -t "$fs_type" -o noatime "$dev" "$target"
      log "mounted $dev at $target (formatted earlier)"
      continue
    fi
    usable "$dev" || continue
    format "$dev"
    mkdir -p "$target"
    mount -t "$fs_type" -o noatime "$dev" "$target"
    log "formatted $dev as $fs_type and mounted it at $target"
  fi
done

if [ "$found" -eq 0 ]; then
  log "error: no device matches $pattern on this node"
  exit 1
fi
log "$found device(s) matched, $failed refused"
[ "$failed" -eq 0 ]
