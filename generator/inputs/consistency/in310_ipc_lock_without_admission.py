"""A workload namespace with ``podSecurity: baseline-ipc-lock`` while admission is off.

Rationale: RDMA pods need ``IPC_LOCK``, which Pod Security's baseline level refuses; a
``baseline-ipc-lock`` namespace is labelled privileged for Pod Security and the
``fabric-pod-security`` ValidatingAdmissionPolicy enforces baseline-plus-IPC_LOCK in its place.
With ``admission.enabled: false`` that policy is not rendered, and the namespace would admit
privileged pods.

Fix: set ``admission.enabled: true`` (ValidatingAdmissionPolicy is served from Kubernetes
1.30), or use ``podSecurity: baseline``.

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
    workloads:
      - {namespace: training, type: training, podSecurity: baseline-ipc-lock}

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
    admission: {enabled: false}
    workloads:
      - {namespace: training, type: training, podSecurity: baseline-ipc-lock}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN310", "ipc-lock-without-admission", "error", "podSecurity baseline-ipc-lock with admission off", __doc__
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    if spec["admission"]["enabled"]:
        return
    for i, workload in enumerate(spec["workloads"]):
        if workload["podSecurity"] == "baseline-ipc-lock":
            yield doc.error(
                f"workloads[{i}] ({workload['namespace']}) has podSecurity baseline-ipc-lock, but admission is off: "
                "the namespace would be privileged for Pod Security with no policy enforcing baseline in its place",
                ("workloads", i, "podSecurity"),
                "set admission.enabled: true (ValidatingAdmissionPolicy is served from Kubernetes 1.30), or use "
                "podSecurity: baseline",
                at_value=True,
            )


CHECK = InputCheck(meta=META, check=check)
