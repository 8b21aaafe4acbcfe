"""A local NVMe setting that does nothing in the pool's volume mode.

Rationale: in ``Block`` mode pods get the raw device and nothing is formatted, so ``fsType``
would silently do nothing; in ``Filesystem`` mode the static provisioner cleans a released
volume by deleting its files, and ``blockCleaner`` runs only for Block volumes
(sig-storage-local-static-provisioner, docs/provisioner.md). Either setting says the user
expects what will not happen.

Fix: remove ``fsType`` (or use ``mode: Filesystem`` to have the disks formatted and mounted);
remove ``blockCleaner`` (or use ``mode: Block``).

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: gpu
        nodeSelector: {agentpool: gpu}
        localNvme: {storageClass: local-nvme, mode: Block, blockCleaner: blkdiscard}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: gpu
        nodeSelector: {agentpool: gpu}
        localNvme: {storageClass: local-nvme, mode: Block, fsType: xfs}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN405", "nvme-setting-of-other-mode", "error", "A localNvme setting that the volume mode ignores", __doc__
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, pool in enumerate(spec["nodePools"]):
        nvme = pool.get("localNvme")
        if not nvme:
            continue
        raw = doc.data["nodePools"][i]["localNvme"]
        base = ("nodePools", i, "localNvme")
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


CHECK = InputCheck(meta=META, check=check)
