"""``fabric.nics`` differs from what the provider pairs with the pool's GPUs.

Rationale: where the provider pairs one fabric NIC with each GPU (``fabrics.nicsPerGpu`` in
docs/providers.md: AKS ND-series, one 400 Gb/s NDR InfiniBand NIC per GPU), a node has
``perNode`` × that many NICs. A different ``nics`` is a typo in one of the two.

Fix: set ``fabric.nics`` to the count the message gives (or correct ``gpu.perNode``).

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: h100
        nodeSelector: {agentpool: h100}
        gpu: {vendor: nvidia, model: H100, perNode: 8, nodes: 2}
        fabric: {type: infiniband, nics: 8}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: h100
        nodeSelector: {agentpool: h100}
        gpu: {vendor: nvidia, model: H100, perNode: 8, nodes: 2}
        fabric: {type: infiniband, nics: 4}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.fabrics import offered_fabrics
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN309", "fabric-nics-per-gpu", "error", "fabric.nics is not the provider's NICs per GPU times the GPUs", __doc__
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    per_gpu = facts["fabrics"]["nicsPerGpu"]
    if not per_gpu:
        return
    for i, pool in offered_fabrics(spec, facts):
        fabric = pool["fabric"]
        if "gpu" in pool and "nics" in fabric and fabric["nics"] != per_gpu * pool["gpu"]["perNode"]:
            want = per_gpu * pool["gpu"]["perNode"]
            yield doc.error(
                f"fabric.nics is {fabric['nics']}, but {spec['provider']} pairs {per_gpu} fabric NIC with each GPU: "
                f"{pool['gpu']['perNode']} GPUs per node have {want}",
                ("nodePools", i, "fabric", "nics"),
                f"set fabric.nics: {want} (or correct gpu.perNode)",
                at_value=True,
            )


CHECK = InputCheck(meta=META, check=check)
