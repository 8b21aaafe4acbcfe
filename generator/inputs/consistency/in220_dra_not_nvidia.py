"""``allocation: dra`` on a pool that is not NVIDIA's.

Rationale: the DRA allocation gpu-gitops renders is the NVIDIA DRA Driver for GPUs
(k8s-dra-driver-gpu), which publishes NVIDIA GPUs only; an AMD pool would have no driver
publishing its devices, and claims on it would never be allocated.

Fix: remove ``allocation``: AMD pools use the ROCm device plugin or the AMD GPU Operator.

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.34"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: mi300x
        nodeSelector: {agentpool: mi300x}
        gpu: {vendor: amd, model: MI300X, perNode: 8, nodes: 1}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.34"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: mi300x
        nodeSelector: {agentpool: mi300x}
        gpu: {vendor: amd, model: MI300X, perNode: 8, nodes: 1, allocation: dra}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.advertised import is_dra
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta("IN220", "dra-not-nvidia", "error", "allocation dra on an AMD pool", __doc__)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, pool in enumerate(spec["nodePools"]):
        gpu = pool.get("gpu")
        if gpu and is_dra(gpu) and gpu["vendor"] != "nvidia":
            yield doc.error(
                "allocation: dra is rendered for NVIDIA pools (the NVIDIA DRA Driver for GPUs)",
                ("nodePools", i, "gpu", "allocation"),
                "remove allocation: AMD pools use the ROCm device plugin or the AMD GPU Operator",
                at_value=True,
            )


CHECK = InputCheck(meta=META, check=check)
