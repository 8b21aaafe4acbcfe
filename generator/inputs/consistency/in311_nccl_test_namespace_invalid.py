"""``fabric.ncclTestNamespace`` names no workload namespace with ``podSecurity: baseline-ipc-lock``.

Rationale: the NCCL test's pods (``libsonnet/components/nccl-test.libsonnet``) add ``IPC_LOCK``
to register RDMA memory; only a ``baseline-ipc-lock`` workload namespace admits them (IN310).
In any other namespace the test's pods are refused.

Fix: name a ``workloads[].namespace`` and set its ``podSecurity: baseline-ipc-lock``.

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
        fabric: {type: infiniband, nics: 8}
    workloads:
      - {namespace: training, type: training}
    fabric: {ncclTestNamespace: training}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN311",
    "nccl-test-namespace-invalid",
    "error",
    "fabric.ncclTestNamespace is no baseline-ipc-lock workload namespace",
    __doc__,
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    namespace = spec["fabric"].get("ncclTestNamespace")
    if namespace is None:
        return
    workload = next((w for w in spec["workloads"] if w["namespace"] == namespace), None)
    if workload is None or workload["podSecurity"] != "baseline-ipc-lock":
        yield doc.error(
            f"fabric.ncclTestNamespace {namespace!r} is not a workload namespace with podSecurity baseline-ipc-lock: "
            "the test's pods add IPC_LOCK, which only such a namespace admits",
            ("fabric", "ncclTestNamespace"),
            "name a workloads[].namespace and set its podSecurity: baseline-ipc-lock",
            at_value=True,
        )


CHECK = InputCheck(meta=META, check=check)
