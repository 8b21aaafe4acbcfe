"""``prepare.force`` asks to erase disks that hold data, but disk preparation is off.

Rationale: ``force`` only changes what the preparation step does (it formats disks that
already carry a file system or partitions); without ``prepare.enabled`` no preparation runs,
so the flag does nothing, and whoever set it expects disks to be prepared that will not be.

Fix: set ``prepare.enabled: true`` to have the disks prepared (``force`` lets it erase disks
that hold data), or remove ``force``.

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
        localNvme: {storageClass: local-nvme, prepare: {enabled: true, force: true}}

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
        localNvme: {storageClass: local-nvme, prepare: {force: true}}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN406", "nvme-force-without-prepare", "error", "localNvme.prepare.force without prepare.enabled", __doc__
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, pool in enumerate(spec["nodePools"]):
        nvme = pool.get("localNvme")
        if nvme and nvme["prepare"]["force"] and not nvme["prepare"]["enabled"]:
            yield doc.error(
                "prepare.force is set but disk preparation is not enabled",
                ("nodePools", i, "localNvme", "prepare", "force"),
                "set prepare.enabled: true to have the disks prepared (force lets it erase disks that hold data), "
                "or remove force",
            )


CHECK = InputCheck(meta=META, check=check)
