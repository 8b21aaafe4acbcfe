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
    "blkid": """\
name=$(basename "$4"); [ "$2" = -s ] && name=$(basename "$6")
if [ "$2" = -s ]; then [ -f "$STATE/label/$name" ] && cat "$STATE/label/$name" && exit 0; exit 2; fi
[ -f "$STATE/sig/$name" ] && cat "$STATE/sig/$name" && exit 0
exit 2
""",
    "wipefs": 'rm -f "$STATE/sig/$(basename "$2")" "$STATE/label/$(basename "$2")"; echo "wipefs $2" >> "$STATE/log"\n',
    # mkfs.*: -L LABEL somewhere, the device last
    "mkfs.xfs": 'eval dev=\\${$#}; while [ "$1" != -L ]; do shift; done\n'
                'echo "$2" > "$STATE/label/$(basename "$dev")"; echo "mkfs.xfs $dev" >> "$STATE/log"\n',
    "mkfs.ext4": 'eval dev=\\${$#}; while [ "$1" != -L ]; do shift; done\n'
                 'echo "$2" > "$STATE/label/$(basename "$dev")"; echo "mkfs.ext4 $dev" >> "$STATE/log"\n',
    "mount": 'echo "$6" >> "$STATE/mounted"; echo "mount $5 $6" >> "$STATE/log"\n',
    "mountpoint": 'grep -qx "$2" "$STATE/mounted" 2>/dev/null\n',
}


@pytest.fixture
def node(tmp_path: Path) -> Path:
    """Three NVMe disks: nvme1n1 empty, nvme2n1 holding ext4, nvme3n1 mounted by the host."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, body in FAKES.items():
        tool = bin_dir / name
        tool.write_text("#!/bin/sh\n" + body)
        tool.chmod(0o755)
    state = tmp_path / "state"
    for sub in ("sig", "label"):
        (state / sub).mkdir(parents=True)
    (state / "log").write_text("")
    by_id = tmp_path / "dev" / "disk" / "by-id"
    by_id.mkdir(parents=True)
    for n in (1, 2, 3):
        (tmp_path / "dev" / f"nvme{n}n1").write_text("")
        (by_id / f"nvme-Disk_SN{n}").symlink_to(f"../../nvme{n}n1")
    (state / "sig" / "nvme2n1").write_text("DEVNAME=/dev/nvme2n1\nTYPE=ext4\n")
    (state / "host-mounts").write_text("/dev/nvme3n1 /data xfs rw 0 0\n")
    return tmp_path


def prepare(node: Path, **env) -> subprocess.CompletedProcess:
    environ = {
        "PATH": f"{node / 'bin'}:{os.environ['PATH']}",
        "STATE": str(node / "state"),
        "DEV_ROOT": str(node),
        "MOUNTS": str(node / "state" / "host-mounts"),
        "DEVICE_PATTERN": "/dev/nvme[1-3]n1",
        "MODE": "Filesystem",
        "FS_TYPE": "xfs",
        "HOST_DIR": str(node / "mnt" / "disks" / "local-nvme"),
        **env,
    }
    return subprocess.run(["sh", str(SCRIPT)], env=environ, capture_output=True, text=True, timeout=30)


def log(node: Path) -> list[str]:
    return (node / "state" / "log").read_text().splitlines()


def test_formats_and_mounts_empty_disks_by_stable_name_and_refuses_the_rest(node):
    result = prepare(node)
    host_dir = node / "mnt" / "disks" / "local-nvme"
    assert log(node) == [
        f"mkfs.xfs {node}/dev/nvme1n1",
        f"mount {node}/dev/nvme1n1 {host_dir}/nvme-Disk_SN1",
    ]
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
    (node / "state" / "mounted").write_text("")  # the mounts are gone, the filesystem is not
    prepare(node)
    assert [line.split()[0] for line in log(node)] == ["mkfs.xfs", "mount", "mount"]


def test_force_erases_a_disk_that_holds_data(node):
    result = prepare(node, FORCE="true", FS_TYPE="ext4")
    assert f"wipefs {node}/dev/nvme2n1" in log(node)
    assert f"mkfs.ext4 {node}/dev/nvme2n1" in log(node)
    assert not any("nvme3n1" in line for line in log(node))  # mounted: never touched, even with force
    assert result.returncode == 0, result.stdout


def test_block_mode_links_the_stable_by_id_path_under_the_discovery_directory(node):
    host_dir = node / "mnt" / "disks" / "local-nvme"
    result = prepare(node, MODE="Block", DEVICE_PATTERN="/dev/nvme1n1")
    assert result.returncode == 0, result.stdout
    link = host_dir / "nvme-Disk_SN1"
    assert link.is_symlink() and os.readlink(link) == "/dev/disk/by-id/nvme-Disk_SN1"
    assert log(node) == []  # nothing formatted in Block mode
    assert "unchanged" in prepare(node, MODE="Block", DEVICE_PATTERN="/dev/nvme1n1").stdout
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
    result = prepare(node, MODE="Block", DEVICE_PATTERN="/dev/nvme2n1")  # now the disk SN1
    assert result.returncode == 0, result.stdout
    link = host_dir / "nvme-Disk_SN1"
    assert os.readlink(link) == "/dev/disk/by-id/nvme-Disk_SN1"
    assert (node / "dev" / "disk" / "by-id" / "nvme-Disk_SN1").resolve() == node / "dev" / "nvme2n1"
    assert f"relinked {link} -> /dev/disk/by-id/nvme-Disk_SN1 (it pointed at {old_target})" in result.stdout
    assert sorted(p.name for p in host_dir.iterdir()) == ["nvme-Disk_SN1"]  # no leftover temporary link
    assert log(node) == []  # data untouched: no wipe, no format


def test_block_mode_without_a_by_id_link_warns_that_the_kernel_name_can_move(node):
    (node / "dev" / "disk" / "by-id" / "nvme-Disk_SN1").unlink()
    host_dir = node / "mnt" / "disks" / "local-nvme"
    result = prepare(node, MODE="Block", DEVICE_PATTERN="/dev/nvme1n1")
    assert result.returncode == 0, result.stdout + result.stderr
    assert os.readlink(host_dir / "nvme1n1") == "/dev/nvme1n1"
    assert "no /dev/disk/by-id link" in result.stderr


def test_no_matching_device_is_an_error(node):
    result = prepare(node, DEVICE_PATTERN="/dev/nvme[7-9]n1")
    assert result.returncode == 1
    assert "no device matches" in result.stdout
