"""Disk preparation is enabled, but nothing says which disks are local.

Rationale: the preparation step formats and mounts the disks ``localNvme.diskIdPattern``
selects under ``/dev/disk/by-id``, whose names carry the disk's model (udev's
``nvme-<model>_<serial>``). Where the provider has no default for its instance-store disks
(``localDiskIdPattern`` in docs/providers.md), or its default cannot apply (a GPU pool whose
model none of the provider's instance types has: its nodes are not the provider's instances),
nothing selects the disks; kernel names (``nvmeXnY``) would take remote disks too (EBS volumes
are NVMe disks on Nitro instances).

Fix: set ``diskIdPattern`` to the glob of the disks' names under ``/dev/disk/by-id`` (e.g.
``nvme-SAMSUNG_MZWLR3T8HBLS-00007_*``; ``ls -l /dev/disk/by-id`` on a node shows them).

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: generic
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    network: {cilium: {enabled: false}}
    nodePools:
      - name: gpu
        nodeSelector: {pool: gpu}
        localNvme: {storageClass: local-nvme, prepare: {enabled: true}, diskIdPattern: nvme-SAMSUNG_MZWLR3T8HBLS-00007_*}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: generic
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    network: {cilium: {enabled: false}}
    nodePools:
      - name: gpu
        nodeSelector: {pool: gpu}
        localNvme: {storageClass: local-nvme, prepare: {enabled: true}}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.conventions import provider_instance
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN403",
    "nvme-disk-pattern-missing",
    "error",
    "Local NVMe disk preparation without a diskIdPattern the provider can default",
    __doc__,
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, pool in enumerate(spec["nodePools"]):
        nvme = pool.get("localNvme")
        if not nvme or nvme.get("diskIdPattern") is not None or not nvme["prepare"]["enabled"]:
            continue
        why = "this provider has no default for its instance-store disks"
        if facts["localDiskIdPattern"] is not None and not provider_instance(pool, facts):
            why = (
                f"{spec['provider']}'s instance-store pattern ({facts['localDiskIdPattern']}) does not apply, since "
                f"none of its instance types has {pool['gpu'].get('model')} GPUs: the pool's nodes are not its instances"
            )
        yield doc.error(
            f"disk preparation needs localNvme.diskIdPattern: {why}",
            ("nodePools", i, "localNvme", "prepare", "enabled"),
            "set diskIdPattern to the glob of the disks' names under /dev/disk/by-id, which name the "
            "model (e.g. nvme-SAMSUNG_MZWLR3T8HBLS-00007_*; `ls -l /dev/disk/by-id` on a node shows them)",
        )


CHECK = InputCheck(meta=META, check=check)
