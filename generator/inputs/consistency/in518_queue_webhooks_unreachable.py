"""A queued workload on a provider whose managed control plane reaches only the pod IPs its own
network routes, with Cilium on an IPAM other than ENI.

Rationale: Kueue's admission webhooks run in a pod, and they fail closed. A managed control
plane outside the cluster network (``controlPlaneNeedsVpcPodIps`` in docs/providers.md: EKS)
reaches only pod addresses of the VPC: with Cilium's cluster-pool or overlay IPAM the webhook
calls time out, and every job in a queued namespace is refused.

Fix: use Cilium's ENI IPAM (``network.cilium.values.ipam.mode: eni``), or queue no workload.

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: eks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    network:
      cilium:
        k8sServiceHost: api.example.com
        k8sServicePort: 443
        values: {ipam: {mode: eni}}
    nodePools:
      - name: h100
        nodeSelector: {karpenter.sh/nodepool: h100}
        gpu: {vendor: nvidia, model: H100-80GB, perNode: 8, nodes: 2}
    workloads:
      - {namespace: training, type: training, quota: {gpus: 16}, queue: {}}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: eks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    network:
      cilium:
        k8sServiceHost: api.example.com
        k8sServicePort: 443
        routing: {mode: tunnel, tunnelProtocol: geneve}
        ipam: {mode: cluster-pool, podCIDRs: [100.64.0.0/16], maskSize: 24}
    nodePools:
      - name: h100
        nodeSelector: {karpenter.sh/nodepool: h100}
        gpu: {vendor: nvidia, model: H100-80GB, perNode: 8, nodes: 2}
    workloads:
      - {namespace: training, type: training, quota: {gpus: 16}, queue: {}}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.consistency.in508_queue_quota_without_accelerators import queued
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN518",
    "queue-webhooks-unreachable",
    "error",
    "Queues on a managed control plane that cannot reach Kueue's webhooks",
    __doc__,
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    first = next(queued(spec), None)
    cilium = spec["network"]["cilium"]
    ipam = ((cilium.get("values") or {}).get("ipam") or {}).get("mode", cilium.get("ipam", {}).get("mode"))
    if first is not None and facts["controlPlaneNeedsVpcPodIps"] and cilium.get("enabled") and ipam != "eni":
        yield doc.error(
            "Kueue's webhooks run in a pod the managed control plane cannot reach with Cilium's "
            f"{ipam} IPAM: every job in a queued namespace would be refused (the webhooks fail closed)",
            ("workloads", first[0], "queue"),
            "use Cilium's ENI IPAM (network.cilium.values.ipam.mode: eni), or queue no workload",
        )


CHECK = InputCheck(meta=META, check=check)
