"""``multiNodeNVLink`` on a pool that does not use DRA.

Rationale: Multi-Node NVLink domains (GB200 NVL72) are shared through ComputeDomains, a feature
of the NVIDIA DRA driver (k8s-dra-driver-gpu, "ComputeDomains"); the device plugin has no way
to hand out an IMEX channel, so the setting would render nothing that uses it.

Fix: set ``allocation: dra`` on the pool, or remove ``multiNodeNVLink``.

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.34"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: gb200
        nodeSelector: {agentpool: gb200}
        gpu: {vendor: nvidia, model: GB200, perNode: 4, nodes: 18, allocation: dra, multiNodeNVLink: true}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.34"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: gb200
        nodeSelector: {agentpool: gb200}
        gpu: {vendor: nvidia, model: GB200, perNode: 4, nodes: 18, multiNodeNVLink: true}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.advertised import is_dra
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta("IN219", "nvlink-without-dra", "error", "multiNodeNVLink on a pool without allocation dra", __doc__)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, pool in enumerate(spec["nodePools"]):
        gpu = pool.get("gpu")
        if gpu and gpu.get("multiNodeNVLink") and not is_dra(gpu):
            yield doc.error(
                "multiNodeNVLink needs allocation: dra: ComputeDomains are a feature of the NVIDIA DRA driver",
                ("nodePools", i, "gpu", "multiNodeNVLink"),
                "set allocation: dra on the pool, or remove multiNodeNVLink",
            )


CHECK = InputCheck(meta=META, check=check)
