"""``timeSlicing`` on a pool with ``allocation: dra``.

Rationale: ``timeSlicing`` configures the device plugin's node-wide sharing; a DRA pool has no
device plugin, and the NVIDIA DRA driver shares a GPU per claim (a ResourceClaim's
``sharing: {strategy: TimeSlicing}`` config, k8s-dra-driver-gpu's ``GpuConfig``).

Fix: remove ``timeSlicing`` and offer a claim with ``sharing: {strategy: TimeSlicing}`` in
``workloads[].claims``.

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.34"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: h100
        nodeSelector: {agentpool: h100}
        gpu: {vendor: nvidia, model: H100, perNode: 8, nodes: 2, allocation: dra}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.34"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: h100
        nodeSelector: {agentpool: h100}
        gpu: {vendor: nvidia, model: H100, perNode: 8, nodes: 2, allocation: dra, timeSlicing: {replicas: 2}}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.advertised import is_dra
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta("IN222", "dra-time-slicing", "error", "timeSlicing on a DRA pool", __doc__)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, pool in enumerate(spec["nodePools"]):
        gpu = pool.get("gpu")
        if gpu and is_dra(gpu) and gpu["vendor"] == "nvidia" and "timeSlicing" in gpu:
            yield doc.error(
                "timeSlicing is the device plugin's node-wide sharing; a dra pool shares per claim",
                ("nodePools", i, "gpu", "timeSlicing"),
                "remove timeSlicing and offer a claim with sharing: {strategy: TimeSlicing} in workloads[].claims",
            )


CHECK = InputCheck(meta=META, check=check)
