"""files/prepare-disks.sh run for real against fake devices, with the disk tools faked.

The fakes keep their state in files: which devices carry a signature or label, what is
mounted, and a log of every formatting call, so the tests see exactly what would have been
done to the disks.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "libsonnet" / "files" / "prepare-disks.sh"

pytestmark = pytest.mark.skipif(shutil.which("sh") is None, reason="needs a POSIX shell")

FAKES = {
    # exit code: STATE/rc/<name> if present (util-linux: 0 found, 2 nothing, 4 usage, 8 ambivalent)
    # STATE/err/<name>: blkid could not open the device (its message on stderr, exit 2)
    "blkid": """\
name=$(basename "$4"); [ "$2" = -s ] && name=$(basename "$6")
[ -f "$STATE/err/$name" ] && cat "$STATE/err/$name" >&2 && exit 2
[ -f "$STATE/rc/$name" ] && exit "$(cat "$STATE/rc/$name")"
if [ "$2" = -s ]; then [ -f "$STATE/label/$name" ] && cat "$STATE/label/$name" && exit 0; exit 2; fi
[ -f "$STATE/sig/$name" ] && cat "$STATE/sig/$name" && exit 0
exit 2
""",
    "wipefs": 'n=$(basename "$2"); rm -f "$STATE/sig/$n" "$STATE/label/$n" "$STATE/rc/$n"; echo "wipefs $2" >> "$STATE/log"\n',
    # mkfs.*: -L LABEL somewhere, the device last
    "mkfs.xfs": 'eval dev=\\${$#}; while [ "$1" != -L ]; do shift; done\n'
    'echo "$2" > "$STATE/label/$(basename "$dev")"; echo "mkfs.xfs $dev" >> "$STATE/log"\n',
    "mkfs.ext4": 'eval dev=\\${$#}; while [ "$1" != -L ]; do shift; done\n'
    'echo "$2" > "$STATE/label/$(basename "$dev")"; echo "mkfs.ext4 $dev" >> "$STATE/log"\n',
    "mount": 'echo "$6" >> "$STATE/mounted"; echo "mount $5 $6" >> "$STATE/log"\n',
    # the mount point is made immutable before mounting: logged, so the order is visible
    "chattr": 'echo "chattr $1 $2" >> "$STATE/log"\n',
    "mountpoint": 'grep -qx "$2" "$STATE/mounted" 2>/dev/null\n',
}


@pytest.fixture
def node(tmp_path: Path) -> Path:
    """Three instance-store NVMe disks (nvme1n1 empty, nvme2n1 holding ext4, nvme3n1 mounted by the
    host) and an EBS volume, nvme0n1, which is NVMe too and must never be touched."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, body in FAKES.items():
        tool = bin_dir / name
        tool.write_text("#!/bin/sh\n" + body, encoding="utf-8")
        tool.chmod(0o755)
    state = tmp_path / "state"
    for sub in ("sig", "label", "rc", "err"):
        (state / sub).mkdir(parents=True)
    (state / "log").write_text("", encoding="utf-8")
    by_id = tmp_path / "dev" / "disk" / "by-id"
    by_id.mkdir(parents=True)
    for n in (0, 1, 2, 3):
        (tmp_path / "dev" / f"nvme{n}n1").write_text("", encoding="utf-8")
    (by_id / "nvme-Amazon_Elastic_Block_Store_vol0123").symlink_to("../../nvme0n1")
    for n in (1, 2, 3):
        (by_id / f"nvme-Disk_SN{n}").symlink_to(f"../../nvme{n}n1")
        # udev's further names of the same disk (newer systemd, Amazon Linux rules) and a partition
        (by_id / f"nvme-Disk_SN{n}_1").symlink_to(f"../../nvme{n}n1")
        (by_id / f"nvme-Disk_SN{n}-ns-1").symlink_to(f"../../nvme{n}n1")
        (by_id / f"nvme-Disk_SN{n}-part1").symlink_to(f"../../nvme{n}n1p1")
    (state / "sig" / "nvme2n1").write_text("DEVNAME=/dev/nvme2n1\nTYPE=ext4\n", encoding="utf-8")
    (state / "host-mounts").write_text("/dev/nvme3n1 /data xfs rw 0 0\n", encoding="utf-8")
    return tmp_path


def prepare(node: Path, **env) -> subprocess.CompletedProcess:
    environ = {
        "PATH": f"{node / 'bin'}:{os.environ['PATH']}",
        "STATE": str(node / "state"),
        "DEV_ROOT": str(node),
        "MOUNTS": str(node / "state" / "host-mounts"),
        "DISK_ID_PATTERN": "nvme-Disk_*",
        "MODE": "Filesystem",
        "FS_TYPE": "xfs",
        "HOST_DIR": str(node / "mnt" / "disks" / "local-nvme"),
        "DEVICE_TEST": "-f",  # the fake disks are files
        **env,
    }
    return subprocess.run(["sh", str(SCRIPT)], env=environ, capture_output=True, encoding="utf-8")


def log(node: Path) -> list[str]:
    return (node / "state" / "log").read_text(encoding="utf-8").splitlines()


def test_formats_and_mounts_empty_disks_by_stable_name_and_refuses_the_rest(node):
    result = prepare(node)
    host_dir = node / "mnt" / "disks" / "local-nvme"
    assert log(node) == [
        f"mkfs.xfs {node}/dev/nvme1n1",
        f"chattr +i {host_dir}/nvme-Disk_SN1",
        f"mount {node}/dev/nvme1n1 {host_dir}/nvme-Disk_SN1",
    ]
    assert sorted(p.name for p in host_dir.iterdir()) == ["nvme-Disk_SN1"]  # one entry per disk, not per link
    assert "refusing" in result.stdout and "nvme2n1: it holds TYPE=ext4" in result.stdout
    assert "nvme3n1: it is mounted" in result.stdout
    assert result.returncode == 1  # a disk holding data is refused loudly


def test_second_run_leaves_mounted_disks_alone(node):
    prepare(node)
    before = log(node)
    result = prepare(node)
    assert log(node) == before
    assert "unchanged" in result.stdout


def test_after_a_reboot_a_prepared_disk_is_mounted_again_not_reformatted(node):
    prepare(node)
    (node / "state" / "mounted").write_text("", encoding="utf-8")  # the mounts are gone, the filesystem is not
    prepare(node)
    assert [line.split()[0] for line in log(node)] == ["mkfs.xfs", "chattr", "mount", "chattr", "mount"]


def test_force_erases_a_disk_that_holds_data(node):
    result = prepare(node, FORCE="true", FS_TYPE="ext4")
    assert f"wipefs {node}/dev/nvme2n1" in log(node)
    assert f"mkfs.ext4 {node}/dev/nvme2n1" in log(node)
    assert not any("nvme3n1" in line for line in log(node))  # mounted: never touched, even with force
    assert result.returncode == 0, result.stdout


def test_block_mode_links_the_stable_by_id_path_under_the_discovery_directory(node):
    host_dir = node / "mnt" / "disks" / "local-nvme"
    result = prepare(node, MODE="Block", DISK_ID_PATTERN="nvme-Disk_SN1")
    assert result.returncode == 0, result.stdout
    link = host_dir / "nvme-Disk_SN1"
    assert link.is_symlink() and os.readlink(link) == "/dev/disk/by-id/nvme-Disk_SN1"
    assert log(node) == []  # nothing formatted in Block mode
    assert "unchanged" in prepare(node, MODE="Block", DISK_ID_PATTERN="nvme-Disk_SN1").stdout
    assert os.readlink(link) == "/dev/disk/by-id/nvme-Disk_SN1"


def renumber(node: Path) -> None:
    """A reboot that swaps the kernel names of the disks with serials SN1 and SN2."""
    by_id = node / "dev" / "disk" / "by-id"
    for serial, kernel in (("SN1", "nvme2n1"), ("SN2", "nvme1n1")):
        (by_id / f"nvme-Disk_{serial}").unlink()
        (by_id / f"nvme-Disk_{serial}").symlink_to(f"../../{kernel}")


@pytest.mark.parametrize("old_target", ["/dev/nvme1n1", "/dev/nvme2n1"], ids=["kernel-name", "renumbered"])
def test_block_mode_repoints_an_existing_link_that_is_not_the_by_id_path(node, old_target):
    """Links from older versions point at kernel names; after a renumbering those open another disk."""
    host_dir = node / "mnt" / "disks" / "local-nvme"
    host_dir.mkdir(parents=True)
    (host_dir / "nvme-Disk_SN1").symlink_to(old_target)
    renumber(node)
    result = prepare(node, MODE="Block", DISK_ID_PATTERN="nvme-Disk_SN1")  # now nvme2n1
    assert result.returncode == 0, result.stdout
    link = host_dir / "nvme-Disk_SN1"
    assert os.readlink(link) == "/dev/disk/by-id/nvme-Disk_SN1"
    assert (node / "dev" / "disk" / "by-id" / "nvme-Disk_SN1").resolve() == node / "dev" / "nvme2n1"
    assert f"relinked {link} -> /dev/disk/by-id/nvme-Disk_SN1 (it pointed at {old_target})" in result.stdout
    assert sorted(p.name for p in host_dir.iterdir()) == ["nvme-Disk_SN1"]  # no leftover temporary link
    assert log(node) == []  # data untouched: no wipe, no format


def test_ebs_volumes_are_never_selected_though_they_are_nvme_too(node):
    """Kernel names cannot tell instance storage from EBS on Nitro; the by-id model can."""
    result = prepare(node, FORCE="true")
    assert not any("nvme0n1" in line for line in log(node)), log(node)
    assert "nvme0n1" not in result.stdout


@pytest.mark.parametrize("code,why", [(4, "usage error"), (8, "ambivalent probe"), (0, "signature found")])
def test_only_blkid_exit_2_means_empty(node, code, why):
    """util-linux blkid(8): 2 = nothing found; 0 found, 4 usage error, 8 ambivalent (several signatures)."""
    (node / "state" / "rc" / "nvme1n1").write_text(str(code), encoding="utf-8")
    result = prepare(node, DISK_ID_PATTERN="nvme-Disk_SN1")
    assert result.returncode == 1, why
    assert "refusing" in result.stdout and "nvme1n1" in result.stdout
    assert log(node) == []  # not formatted, not wiped, not mounted


def test_blkid_exit_2_is_formatted(node):
    (node / "state" / "rc" / "nvme1n1").write_text("2", encoding="utf-8")
    result = prepare(node, DISK_ID_PATTERN="nvme-Disk_SN1")
    assert result.returncode == 0, result.stdout
    assert log(node)[0] == f"mkfs.xfs {node}/dev/nvme1n1"


def test_force_wipes_an_ambivalent_disk_but_never_a_disk_it_cannot_probe(node):
    (node / "state" / "rc" / "nvme1n1").write_text("8", encoding="utf-8")
    result = prepare(node, DISK_ID_PATTERN="nvme-Disk_SN1", FORCE="true")
    assert result.returncode == 0, result.stdout
    assert log(node)[:2] == [f"wipefs {node}/dev/nvme1n1", f"mkfs.xfs {node}/dev/nvme1n1"]
    (node / "state" / "log").write_text("", encoding="utf-8")
    (node / "state" / "mounted").write_text("", encoding="utf-8")
    (node / "state" / "label" / "nvme1n1").unlink()
    (node / "state" / "rc" / "nvme1n1").write_text("4", encoding="utf-8")
    result = prepare(node, DISK_ID_PATTERN="nvme-Disk_SN1", FORCE="true")
    assert result.returncode == 1
    assert "cannot tell whether it holds data" in result.stdout
    assert log(node) == []


def test_mkfs_is_never_forced(node, tmp_path):
    record = node / "bin" / "mkfs.xfs"
    record.write_text('#!/bin/sh\necho "mkfs.xfs $*" >> "$STATE/log"\n', encoding="utf-8")
    ext4 = node / "bin" / "mkfs.ext4"
    ext4.write_text('#!/bin/sh\necho "mkfs.ext4 $*" >> "$STATE/log"\n', encoding="utf-8")
    prepare(node, DISK_ID_PATTERN="nvme-Disk_SN1")
    prepare(node, DISK_ID_PATTERN="nvme-Disk_SN2", FORCE="true", FS_TYPE="ext4")
    calls = [line.split() for line in log(node) if line.startswith("mkfs")]
    assert len(calls) == 2
    assert all("-f" not in c and "-F" not in c for c in calls), calls


def test_mount_point_is_immutable_before_the_disk_is_mounted_after_a_reboot(node):
    prepare(node, DISK_ID_PATTERN="nvme-Disk_SN1")
    (node / "state" / "mounted").write_text("", encoding="utf-8")  # rebooted: the directory is back on the root disk
    (node / "state" / "log").write_text("", encoding="utf-8")
    prepare(node, DISK_ID_PATTERN="nvme-Disk_SN1")
    target = node / "mnt" / "disks" / "local-nvme" / "nvme-Disk_SN1"
    assert log(node) == [f"chattr +i {target}", f"mount {node}/dev/nvme1n1 {target}"]


def test_a_mount_point_that_cannot_be_made_immutable_is_not_used(node):
    (node / "bin" / "chattr").write_text("#!/bin/sh\nexit 1\n", encoding="utf-8")
    result = prepare(node, DISK_ID_PATTERN="nvme-Disk_SN1")
    assert result.returncode == 1
    assert "cannot make the mount point" in result.stdout
    assert not any(line.startswith("mount") for line in log(node))


def test_a_node_without_matching_disks_is_reported_and_does_not_fail(node):
    feature = node / "etc" / "features.d" / "gpu-gitops-local-nvme"
    result = prepare(node, DISK_ID_PATTERN="nvme-Amazon_EC2_NVMe_Instance_Storage_*", FEATURE_FILE=str(feature))
    assert result.returncode == 0, result.stdout
    assert "warning: no disk matches" in result.stdout
    assert "local-nvme-disks=0" in feature.read_text(encoding="utf-8").splitlines()
    assert log(node) == []


def test_feature_file_counts_the_prepared_disks_for_nfd(node):
    feature = node / "etc" / "features.d" / "gpu-gitops-local-nvme"
    prepare(node, FEATURE_FILE=str(feature))  # SN1 prepared, SN2 (data) and SN3 (mounted) refused
    assert "local-nvme-disks=1" in feature.read_text(encoding="utf-8").splitlines()
    assert not feature.with_name(feature.name + ".new").exists()


def test_the_feature_written_is_the_one_the_local_nvme_rule_matches(node):
    """NFD local source: `name=value` lines of features.d files become local.feature attributes."""
    from clusterinput import objects

    feature = node / "features.d" / "gpu-gitops-local-nvme"
    prepare(node, DISK_ID_PATTERN="nvme-Disk_SN1", FEATURE_FILE=str(feature))
    attributes = dict(
        line.split("=", 1) for line in feature.read_text(encoding="utf-8").splitlines() if not line.startswith("#")
    )
    (rule_object,) = objects(REPO, "eks-mi300x-inference")["node-feature-rules"]
    (rule,) = [r for r in rule_object["spec"]["rules"] if r["name"] == "local-nvme"]
    (term,) = rule["matchFeatures"]
    assert term["feature"] == "local.feature"
    ((key, expression),) = term["matchExpressions"].items()
    assert expression["op"] == "Gt" and int(attributes[key]) > int(expression["value"][0])


def wrap(node: Path, name: str, before: str = "", fail: bool = False) -> None:
    """Put a stand-in for the real NAME on the node's PATH: it logs its arguments, runs `before`,
    then fails (fail=True) or runs the real tool."""
    real = shutil.which(name)
    tool = node / "bin" / name
    tool.write_text(
        f'#!/bin/sh\necho "{name} $*" >> "$STATE/log"\n{before}\n' + ("exit 1\n" if fail else f'exec {real} "$@"\n'),
        encoding="utf-8",
    )
    tool.chmod(0o755)


def test_feature_file_is_renamed_from_a_dot_file_nfd_never_reads(node):
    """NFD's local source reads every features.d file whose name does not start with a dot."""
    feature = node / "etc" / "features.d" / "gpu-gitops-local-nvme"
    wrap(node, "mv")
    result = prepare(node, DISK_ID_PATTERN="nvme-Disk_SN1", FEATURE_FILE=str(feature))
    assert result.returncode == 0, result.stdout
    (move,) = [line.split() for line in log(node) if line.startswith("mv ")]
    assert Path(move[-2]).name.startswith(".") and Path(move[-2]).parent == feature.parent, move
    assert move[-1] == str(feature)
    assert sorted(p.name for p in feature.parent.iterdir()) == ["gpu-gitops-local-nvme"]


def test_a_feature_file_that_cannot_be_written_fails_the_pod(node):
    (node / "etc").mkdir()
    (node / "etc" / "features.d").write_text("", encoding="utf-8")  # a file where the directory should be
    result = prepare(node, DISK_ID_PATTERN="nvme-Amazon_EC2_*", FEATURE_FILE=str(node / "etc/features.d/x"))
    assert result.returncode == 1
    assert "error: cannot write the NFD feature file" in result.stdout


@pytest.mark.parametrize(
    "message,env,why",
    [
        ("blkid: error: /dev/nvme1n1: Permission denied", {}, "Permission denied"),
        (None, {"DEVICE_TEST": "-b"}, "not a block device"),  # the fake disk is a file
    ],
    ids=["could-not-open", "not-a-block-device"],
)
def test_blkid_exit_2_is_empty_only_for_a_block_device_it_opened(node, message, env, why):
    """util-linux blkid.c lowprobe_device: a device it cannot open is also exit 2, after a warning."""
    if message:
        (node / "state" / "err" / "nvme1n1").write_text(message, encoding="utf-8")
    result = prepare(node, DISK_ID_PATTERN="nvme-Disk_SN1", **env)
    assert result.returncode == 1, result.stdout
    assert f"blkid -p failed (exit 4: {message or why}): cannot tell whether it holds data" in result.stdout
    assert log(node) == []  # not formatted


def test_a_failed_mount_fails_the_disk(node):
    feature = node / "features.d" / "gpu-gitops-local-nvme"
    (node / "bin" / "mount").write_text('#!/bin/sh\necho "mount: wrong fs type" >&2; exit 32\n', encoding="utf-8")
    result = prepare(node, DISK_ID_PATTERN="nvme-Disk_SN1", FEATURE_FILE=str(feature))
    assert result.returncode == 1, result.stdout
    assert "mount -t xfs on" in result.stdout and "failed" in result.stdout
    assert "1 disk(s) matched, 0 prepared, 1 refused" in result.stdout
    assert "local-nvme-disks=0" in feature.read_text(encoding="utf-8").splitlines()


def test_a_failed_link_fails_the_disk(node):
    wrap(node, "ln", fail=True)
    result = prepare(node, MODE="Block", DISK_ID_PATTERN="nvme-Disk_SN1")
    assert result.returncode == 1, result.stdout
    assert "cannot link" in result.stdout
    assert "0 prepared, 1 refused" in result.stdout


def test_a_relink_that_cannot_be_renamed_keeps_the_old_link_and_fails(node):
    host_dir = node / "mnt" / "disks" / "local-nvme"
    host_dir.mkdir(parents=True)
    (host_dir / "nvme-Disk_SN1").symlink_to("/dev/nvme1n1")
    wrap(node, "mv", fail=True)
    result = prepare(node, MODE="Block", DISK_ID_PATTERN="nvme-Disk_SN1")
    assert result.returncode == 1, result.stdout
    assert "cannot re-point" in result.stdout
    assert sorted(p.name for p in host_dir.iterdir()) == ["nvme-Disk_SN1"]  # no half-made link left
    assert os.readlink(host_dir / "nvme-Disk_SN1") == "/dev/nvme1n1"


def test_a_relinked_disk_is_built_under_a_dot_name_the_provisioner_skips(node):
    """The provisioner's namePattern is `[^.]*` (local-storage.libsonnet)."""
    host_dir = node / "mnt" / "disks" / "local-nvme"
    host_dir.mkdir(parents=True)
    (host_dir / "nvme-Disk_SN1").symlink_to("/dev/nvme1n1")
    wrap(node, "ln")
    assert prepare(node, MODE="Block", DISK_ID_PATTERN="nvme-Disk_SN1").returncode == 0
    (made,) = [line.split()[-1] for line in log(node) if line.startswith("ln ")]
    assert Path(made).name.startswith("."), made


def test_a_failed_wipe_is_refused_before_probing_again(node):
    (node / "bin" / "wipefs").write_text("#!/bin/sh\nexit 1\n", encoding="utf-8")
    result = prepare(node, DISK_ID_PATTERN="nvme-Disk_SN2", FORCE="true")
    assert result.returncode == 1
    assert "wipefs --all failed" in result.stdout
    assert log(node) == []
