"""A claim's ``sharing`` setting that its sharing strategy, or its devices, do not take.

Rationale: the NVIDIA DRA driver's sharing config (k8s-dra-driver-gpu ``GpuConfig``,
``MigDeviceConfig``) takes ``activeThreadPercentage`` and ``pinnedMemoryLimit`` for MPS only,
and ``interval`` only for time-slicing of whole GPUs (``timeSlicingConfig``; MIG devices have no
``timeSlicingConfig``, MPS takes none). The driver refuses the claim's config, and its pods
stay Pending.

Fix: remove the setting, or set the strategy that takes it.

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.34"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: b200
        nodeSelector: {agentpool: b200}
        gpu: {vendor: nvidia, model: B200, perNode: 8, nodes: 2, allocation: dra}
    workloads:
      - namespace: training
        type: training
        claims: [{name: shared, pool: b200, sharing: {strategy: MPS, activeThreadPercentage: 50}}]

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.34"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: b200
        nodeSelector: {agentpool: b200}
        gpu: {vendor: nvidia, model: B200, perNode: 8, nodes: 2, allocation: dra}
    workloads:
      - namespace: training
        type: training
        claims: [{name: shared, pool: b200, sharing: {strategy: TimeSlicing, activeThreadPercentage: 50}}]
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.advertised import dra_pools
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN231",
    "claim-sharing-setting-of-other-strategy",
    "error",
    "A claim's sharing setting that its strategy or devices do not take",
    __doc__,
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    pools = dra_pools(spec)
    for i, workload in enumerate(spec["workloads"]):
        for j, claim in enumerate(workload["claims"]):
            sharing = claim.get("sharing")
            if claim["pool"] not in pools or sharing is None:
                continue
            where = ("workloads", i, "claims", j, "sharing")
            mps_keys = [k for k in ("activeThreadPercentage", "pinnedMemoryLimit") if k in sharing]
            if sharing["strategy"] == "TimeSlicing" and mps_keys:
                yield doc.error(
                    f"{mps_keys[0]} is an MPS setting, but the claim's sharing strategy is TimeSlicing",
                    where + (mps_keys[0],),
                    "remove it, or set strategy: MPS",
                )
            if "interval" in sharing and (sharing["strategy"] != "TimeSlicing" or "mig" in claim):
                yield doc.error(
                    "interval is a time-slicing setting of whole GPUs (GpuConfig timeSlicingConfig); MIG devices "
                    "and MPS take none (MigDeviceSharing has no timeSlicingConfig)",
                    where + ("interval",),
                    "remove interval",
                )


CHECK = InputCheck(meta=META, check=check)
