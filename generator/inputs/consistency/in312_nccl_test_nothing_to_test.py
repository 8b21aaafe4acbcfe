"""``fabric.ncclTestNamespace`` is set, but no pool is one the NCCL test runs on.

Rationale: the NCCL test (``libsonnet/components/nccl-test.libsonnet``) runs on NVIDIA whole
GPUs (from the device plugin or claimed through DRA; no MIG, no time-slicing) on a fabric;
with no such pool nothing renders, and the setting promises a test that does not exist.

Fix: remove ``fabric.ncclTestNamespace``.

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
    workloads:
      - {namespace: training, type: training, podSecurity: baseline-ipc-lock}
    fabric: {ncclTestNamespace: training}

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
    workloads:
      - {namespace: training, type: training, podSecurity: baseline-ipc-lock}
    fabric: {ncclTestNamespace: training}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN312",
    "nccl-test-nothing-to-test",
    "warning",
    "fabric.ncclTestNamespace without a pool the NCCL test runs on",
    __doc__,
)


def _testable(pool: dict) -> bool:
    """Whether the NCCL test runs on ``pool`` (components/nccl-test.libsonnet): NVIDIA whole GPUs
    (from the device plugin or claimed through DRA), on a fabric."""
    gpu = pool.get("gpu") or {}
    return (
        pool["fabric"]["type"] != "none"
        and gpu.get("vendor") == "nvidia"
        and gpu.get("mig", {}).get("strategy", "none") == "none"
        and "timeSlicing" not in gpu
    )


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    namespace = spec["fabric"].get("ncclTestNamespace")
    if namespace is None:
        return
    workload = next((w for w in spec["workloads"] if w["namespace"] == namespace), None)
    if workload is None or workload["podSecurity"] != "baseline-ipc-lock":
        return  # IN311's
    if not any(_testable(pool) for pool in spec["nodePools"]):
        yield doc.warning(
            "fabric.ncclTestNamespace is set, but no pool has NVIDIA whole GPUs (no MIG or time-slicing) on a "
            "fabric: there is nothing to test",
            ("fabric", "ncclTestNamespace"),
            "remove fabric.ncclTestNamespace",
            at_value=True,
        )


CHECK = InputCheck(meta=META, check=check)
