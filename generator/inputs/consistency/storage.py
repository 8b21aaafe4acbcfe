"""Local NVMe: settings that do not fit the volume mode, and a destructive flag without its action.

(A StorageClass name used by two pools is checked in ``pools.py``.)

- ``fsType`` in ``Block`` mode: pods get the raw device, nothing is formatted, so the setting
  would silently do nothing.
- ``blockCleaner`` in ``Filesystem`` mode: the provisioner deletes files on release; the block
  cleaner runs only for Block volumes.
- ``prepare.force`` without ``prepare.enabled``: asks to erase disks but nothing would run.
- ``hostDir`` that is a system directory (``/``, ``/mnt``, ``/var/lib/kubelet``...): the
  preparation step would mount disks over it.
- Disk preparation without ``diskIdPattern`` where the provider has no default, or where its
  default cannot apply (a GPU pool whose model none of the provider's instance types has:
  ``conventions.provider_instance``): nothing says which disks are local, and kernel names
  (``nvmeXnY``) would take remote disks too.
- A ``diskIdPattern`` that matches an EBS volume's name (``nvme-Amazon_Elastic_Block_Store_vol...``):
  on Nitro instances EBS volumes are NVMe disks, and CSI volumes would be formatted, then wiped
  on release.
"""

from __future__ import annotations

from collections.abc import Iterator
from fnmatch import fnmatchcase

from generator.errors import InputError
from generator.inputs.conventions import provider_instance
from generator.yamlio.positions import Located

SYSTEM_DIRS = frozenset(
    {
        "/",
        "/bin",
        "/boot",
        "/dev",
        "/etc",
        "/home",
        "/lib",
        "/lib64",
        "/mnt",
        "/opt",
        "/proc",
        "/root",
        "/run",
        "/sbin",
        "/sys",
        "/tmp",
        "/usr",
        "/var",
        "/var/lib",
        "/var/lib/kubelet",
    }
)

# /dev/disk/by-id name of an EBS volume (model "Amazon Elastic Block Store", serial vol<id>).
EBS_DISK_ID = "nvme-Amazon_Elastic_Block_Store_vol0123456789abcdef0"


def _check_disk_selection(
    nvme: dict,
    raw: dict,
    base: tuple,
    doc: Located,
    why: str = "this provider has no default for its instance-store disks",
) -> Iterator[InputError]:
    pattern = nvme.get("diskIdPattern")
    if pattern is None:
        if nvme["prepare"]["enabled"]:
            yield doc.error(
                f"disk preparation needs localNvme.diskIdPattern: {why}",
                base + ("prepare", "enabled"),
                "set diskIdPattern to the glob of the disks' names under /dev/disk/by-id, which name the "
                "model (e.g. nvme-SAMSUNG_MZWLR3T8HBLS-00007_*; `ls -l /dev/disk/by-id` on a node shows them)",
            )
        return
    if fnmatchcase(EBS_DISK_ID, pattern):
        where = base + ("diskIdPattern",) if "diskIdPattern" in raw else base
        yield doc.error(
            f"diskIdPattern {pattern!r} matches EBS volumes ({EBS_DISK_ID}): they are NVMe disks on Nitro "
            "instances and would be formatted",
            where,
            "name the instance-store model: nvme-Amazon_EC2_NVMe_Instance_Storage_*",
            at_value=True,
        )


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, pool in enumerate(spec["nodePools"]):
        nvme = pool.get("localNvme")
        if not nvme:
            continue
        raw = doc.data["nodePools"][i]["localNvme"]
        base = ("nodePools", i, "localNvme")
        why = "this provider has no default for its instance-store disks"
        if facts["localDiskIdPattern"] is not None and not provider_instance(pool, facts):
            why = (
                f"{spec['provider']}'s instance-store pattern ({facts['localDiskIdPattern']}) does not apply, since "
                f"none of its instance types has {pool['gpu'].get('model')} GPUs: the pool's nodes are not its instances"
            )
        yield from _check_disk_selection(nvme, raw, base, doc, why)
        if nvme["mode"] == "Block" and "fsType" in raw:
            yield doc.error(
                "fsType has no effect in Block mode: pods get the raw device",
                base + ("fsType",),
                "remove fsType, or use mode: Filesystem to have the disks formatted and mounted",
            )
        if nvme["mode"] == "Filesystem" and "blockCleaner" in raw:
            yield doc.error(
                "blockCleaner has no effect in Filesystem mode: released volumes are cleaned by deleting files",
                base + ("blockCleaner",),
                "remove blockCleaner, or use mode: Block",
            )
        if nvme["prepare"]["force"] and not nvme["prepare"]["enabled"]:
            yield doc.error(
                "prepare.force is set but disk preparation is not enabled",
                base + ("prepare", "force"),
                "set prepare.enabled: true to have the disks prepared (force lets it erase disks that hold data), "
                "or remove force",
            )
        if nvme["hostDir"].rstrip("/") in SYSTEM_DIRS or nvme["hostDir"] == "/":
            yield doc.error(
                f"hostDir {nvme['hostDir']!r} is a system directory: disks would be mounted over it",
                base + ("hostDir",),
                f"use a directory of its own, e.g. /mnt/disks/{nvme['storageClass']}",
                at_value=True,
            )
