#!/bin/sh
# Prepare a node's local instance-store NVMe disks for local-static-provisioner, which only
# discovers what is already under its discovery directory: mount points (Filesystem mode) or
# links to block devices (Block mode). DESTRUCTIVE: formats disks. Rendered only when the pool
# opts in (`localNvme.prepare.enabled`); runs as the init container of the pool's prepare DaemonSet.
#
# Environment:
#   DISK_ID_PATTERN  shell glob of the disks' names under /dev/disk/by-id, e.g.
#                    nvme-Amazon_EC2_NVMe_Instance_Storage_* (the model is part of the name)
#   MODE            Filesystem (format + mount) or Block (link the raw device)
#   FS_TYPE         xfs or ext4 (Filesystem mode)
#   HOST_DIR        the discovery directory (bind-mounted from the host, Bidirectional)
#   FORCE=true      also take devices that hold a filesystem or partition table (erased)
#   FEATURE_FILE    NFD feature file to write `local-nvme-disks=<prepared disks>` to (optional)
#   DEV_ROOT        prefix of the device tree (tests); links always point at the /dev path
#   DEVICE_TEST     the test(1) operator a disk must pass before `blkid -p` exit 2 counts as
#                   empty (default -b, a block device; tests, whose disks are files: -f)
#   MOUNTS          the host's mount table (default /proc/1/mounts: the pod shares the host's
#                   PID namespace, so PID 1's table is the host's, not the container's)
#
# Disks are selected by their /dev/disk/by-id name, never by kernel name: on Nitro instances EBS
# volumes are NVMe devices too (nvmeXnY), and CSI volumes picked up here would be formatted and
# later wiped on release. The by-id name carries the model (udev: nvme-<model>_<serial>), which
# tells instance storage from EBS. udev makes several links per disk (`..._<serial>`,
# `..._<serial>_1`, `...-ns-1`, `-partN`): partitions are skipped and each disk is taken once, by
# its first (shortest) name. nvmeXnY names can also change across reboots; a Local PV's path and
# a Block-mode link (`/dev/disk/by-id/<name>`) keep pointing at the same disk. An existing link is
# checked on every run and re-pointed if it points anywhere else (older versions pointed at
# /dev/nvmeXnY: after a renumbering that opens another disk).
#
# A disk is empty only when `blkid -p` exits 2 ("nothing found", util-linux blkid(8) RETURN
# CODE) for a block device, with nothing on stderr: blkid also exits 2 when it cannot open the
# device (util-linux misc-utils/blkid.c lowprobe_device: `warn("error: %s")`, then
# BLKID_EXIT_NOTFOUND), and a disk that could not be read is not an empty disk. 0 (a signature),
# 8 (ambivalent probe: several signatures) and anything else (4: usage error, or the probe
# failed) mean it may hold data: refused, or with FORCE=true wiped with wipefs and probed again.
# mkfs runs without its force flags, so it refuses what blkid missed.
#
# Filesystem mode: the mount point is made immutable (chattr +i) before the disk is mounted on
# it. After a reboot the directory exists on the root disk before this pod mounts the disk again,
# and a pod of a Local PV on it would start and write to the OS disk; an immutable directory
# takes no writes (the mounted filesystem's root is not immutable, so nothing changes once
# mounted). A disk formatted here carries the label `gpu-gitops` and is mounted again (never
# re-formatted) after a reboot. Devices that are mounted or held by LVM/RAID are refused even
# with FORCE=true (in use by the host: left alone, not an error). Idempotent: a disk already mounted or correctly linked is left alone.
#
# A node without any matching disk is reported (log and `local-nvme-disks=0` in FEATURE_FILE,
# which NFD turns into the node label feature.node.kubernetes.io/local-nvme-disks=0) and the pod
# succeeds: one node without disks must not hold up the rollout. The feature file is written
# under a dot-name and renamed into place: NFD's local source reads every file in features.d
# whose name does not start with a dot (node-feature-discovery v0.19.0 source/local/local.go,
# "ignore hidden feature file"), so it never reads a half-written one. Exits non-zero when a
# matching disk was refused or could not be prepared (every step's failure counts: a mount, a
# link, a wipe), or when the feature file cannot be written.
set -eu

pattern=${DISK_ID_PATTERN:?DISK_ID_PATTERN is required}
mode=${MODE:-Filesystem}
fs_type=${FS_TYPE:-xfs}
host_dir=${HOST_DIR:?HOST_DIR is required}
force=${FORCE:-false}
feature_file=${FEATURE_FILE:-}
dev_root=${DEV_ROOT:-}
device_test=${DEVICE_TEST:--b}
mounts=${MOUNTS:-/proc/1/mounts}
label=gpu-gitops
found=0
prepared=0
failed=0
seen=' '

log() { printf 'prepare-disks: %s\n' "$*"; }

refuse() { log "refusing $1: $2"; failed=$((failed + 1)); }

# probe DEVICE: run `blkid -p`; sets probe_rc (its exit code) and signature (what it printed,
# stderr included). Exit 2 from a device that is not a block device, or with a message (blkid
# could not open it), becomes 4: the disk could not be read, so whether it holds data is unknown.
probe() {
  probe_rc=0
  signature=$(blkid -p -o export "$1" 2>&1) || probe_rc=$?
  if [ "$probe_rc" = 2 ] && { [ -n "$signature" ] || ! [ "$device_test" "$1" ]; }; then
    probe_rc=4
    [ -n "$signature" ] || signature="not a block device"
  fi
}

# usable DEVICE: not in use, and empty (or FORCE=true, then wiped and probed empty).
usable() {
  dev=$1 kernel_name=$(basename "$1")
  if grep -qs "^${1#"$dev_root"}[p ]" "$mounts"; then
    log "refusing $dev: it is mounted (in use by the host: left alone)"
    return 1
  fi
  if [ -n "$(ls -A "$dev_root/sys/block/$kernel_name/holders" 2>/dev/null)" ]; then
    log "refusing $dev: it is held by another device (LVM, RAID or crypt: left alone)"
    return 1
  fi
  probe "$dev"
  case $probe_rc in
    2) return 0 ;;
    0|8)
      found_types=$(printf '%s\n' "$signature" | grep -E '^(TYPE|PTTYPE)=' | tr '\n' ' ' || true)
      [ "$probe_rc" = 8 ] && found_types="several signatures (blkid: ambivalent probe)"
      if [ "$force" != true ]; then
        refuse "$dev" "it holds ${found_types:-a signature}; its data would be lost. Set localNvme.prepare.force: true to erase it"
        return 1
      fi
      log "erasing $dev (force): it held ${found_types:-a signature}"
      if ! wipefs --all "$dev"; then
        refuse "$dev" "wipefs --all failed"
        return 1
      fi
      probe "$dev"
      if [ "$probe_rc" != 2 ]; then
        refuse "$dev" "blkid -p still finds a signature after wipefs (exit $probe_rc)"
        return 1
      fi
      return 0 ;;
    *)
      refuse "$dev" "blkid -p failed (exit $probe_rc${signature:+: $signature}): cannot tell whether it holds data"
      return 1 ;;
  esac
}

format() {
  case $fs_type in
    xfs) mkfs.xfs -q -L "$label" "$1" </dev/null ;;
    ext4) mkfs.ext4 -q -m 0 -L "$label" "$1" </dev/null ;;
    *) log "error: unsupported filesystem $fs_type"; return 1 ;;
  esac
}

# mount_disk DEVICE TARGET: mount on an immutable, empty mount point. Every step is checked
# here: callers run it in a condition, where `set -e` does not apply.
mount_disk() {
  if ! mkdir -p "$2"; then
    refuse "$1" "cannot create the mount point $2"
    return 1
  fi
  if ! chattr +i "$2"; then
    refuse "$1" "cannot make the mount point $2 immutable: a pod could write to the OS disk while it is not mounted"
    return 1
  fi
  if ! mount -t "$fs_type" -o noatime "$1" "$2"; then
    refuse "$1" "mount -t $fs_type on $2 failed"
    return 1
  fi
}

# link_disk NAME DEVICE TARGET (Block mode). Every step is checked here, as in mount_disk.
link_disk() {
  want=/dev/disk/by-id/$1
  if [ -L "$3" ]; then
    had=$(readlink "$3")
    if [ "$had" = "$want" ]; then
      log "unchanged $2: linked at $3"
      return 0
    fi
    # The link is ours (named after this disk's serial): re-point it in one rename, so a
    # Local PV never sees it missing. The new link is made under a dot-name, which the
    # provisioner's namePattern (`[^.]*`, local-storage.libsonnet) never discovers as a volume.
    partial=$(dirname "$3")/.$(basename "$3").new
    if ! { rm -f "$partial" && ln -s "$want" "$partial" && mv -f "$partial" "$3"; }; then
      rm -f "$partial"
      refuse "$2" "cannot re-point $3 at $want (it points at $had)"
      return 1
    fi
    log "relinked $3 -> $want (it pointed at $had)"
    return 0
  fi
  usable "$2" || return 1
  if ! ln -s "$want" "$3"; then
    refuse "$2" "cannot link $3 -> $want"
    return 1
  fi
  log "linked $3 -> $want"
}

# mount_fs DEVICE TARGET (Filesystem mode)
mount_fs() {
  if mountpoint -q "$2" 2>/dev/null; then
    log "unchanged $1: mounted at $2"
    return 0
  fi
  if [ "$(blkid -p -s LABEL -o value "$1" 2>/dev/null || true)" = "$label" ]; then
    mount_disk "$1" "$2" || return 1
    log "mounted $1 at $2 (formatted earlier)"
    return 0
  fi
  usable "$1" || return 1
  if ! format "$1"; then
    refuse "$1" "mkfs.$fs_type failed"
    return 1
  fi
  mount_disk "$1" "$2" || return 1
  log "formatted $1 as $fs_type and mounted it at $2"
}

# report: write FEATURE_FILE through a dot-file NFD skips, then rename it into place.
report() {
  [ -n "$feature_file" ] || return 0
  partial=$(dirname "$feature_file")/.$(basename "$feature_file").new
  if mkdir -p "$(dirname "$feature_file")" \
     && printf '# written by prepare-disks.sh: disks matching %s prepared under %s\nlocal-nvme-disks=%s\n' \
          "$pattern" "$host_dir" "$prepared" > "$partial" \
     && mv -f "$partial" "$feature_file"; then
    return 0
  fi
  rm -f "$partial"
  log "error: cannot write the NFD feature file $feature_file: the node's local-nvme label is not updated"
  failed=$((failed + 1))
}

mkdir -p "$host_dir"
set +f
for link in "$dev_root"/dev/disk/by-id/$pattern; do
  [ -L "$link" ] || continue
  case $link in *-part[0-9]*) continue ;; esac
  dev=$(readlink -f "$link")
  case $seen in *" $dev "*) continue ;; esac
  seen="$seen$dev "
  found=$((found + 1))
  name=$(basename "$link")
  if [ "$mode" = Block ]; then
    link_disk "$name" "$dev" "$host_dir/$name" && prepared=$((prepared + 1))
  else
    mount_fs "$dev" "$host_dir/$name" && prepared=$((prepared + 1))
  fi
done
report

if [ "$found" -eq 0 ]; then
  log "warning: no disk matches /dev/disk/by-id/$pattern on this node: nothing to prepare" \
      "(reported as local-nvme-disks=0); check localNvme.diskIdPattern and the node's instance type"
  exit "$((failed > 0))"
fi
log "$found disk(s) matched, $prepared prepared, $failed refused"
[ "$failed" -eq 0 ]
