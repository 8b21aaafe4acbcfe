"""Two pools' local NVMe disks share one StorageClass name.

Rationale: each pool with ``localNvme`` renders a StorageClass of its ``storageClass`` name
(``kubernetes.io/no-provisioner``) and a static provisioner whose ``storageClassMap`` files
that pool's disks under it (``libsonnet/components/local-storage.libsonnet``). StorageClass is
cluster-scoped: two pools naming one class render one object twice, and the API server keeps
the last applied; a claim for the class binds a volume on either pool's disks.

Fix: give each pool's NVMe disks their own ``storageClass`` name.

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: a
        nodeSelector: {agentpool: a}
        localNvme: {storageClass: nvme-a}
      - name: b
        nodeSelector: {agentpool: b}
        localNvme: {storageClass: nvme-b}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: a
        nodeSelector: {agentpool: a}
        localNvme: {storageClass: local-nvme}
      - name: b
        nodeSelector: {agentpool: b}
        localNvme: {storageClass: local-nvme}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.protocol import InputCheck
from generator.inputs.repeats import repeats
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN107", "storage-class-repeated", "error", "Two pools' local NVMe disks share one StorageClass name", __doc__
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    pools = spec["nodePools"]
    classes = ((i, pool["localNvme"]["storageClass"]) for i, pool in enumerate(pools) if pool.get("localNvme"))
    for i, first, cls in repeats(classes):
        yield doc.error(
            f"StorageClass {cls!r} is used twice (first by nodePools[{first}])",
            ("nodePools", i, "localNvme", "storageClass"),
            "give each pool's NVMe disks their own storageClass name",
            at_value=True,
        )


CHECK = InputCheck(meta=META, check=check)
