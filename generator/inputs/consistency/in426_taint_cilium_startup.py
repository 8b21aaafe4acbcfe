"""A provisioned pool on a Cilium cluster whose ``taints`` has ``node.cilium.io/agent-not-ready``.

Rationale: Cilium's agent removes its ``agent-not-ready`` taint when it is ready (cilium
chart 1.19.6 values ``agentNotReadyTaintKey``), so the NodePool renders it as a startup taint
(Karpenter v1.14.1 docs, concepts/nodepools.md, "Cilium Startup Taint"); as a pool taint
Karpenter would put it back, and no pod without the toleration would ever schedule there.

Fix: remove it: the NodePool renders it as a startup taint.

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: eks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    network:
      cilium: {k8sServiceHost: api.example.com, k8sServicePort: 443, routing: {mode: tunnel, tunnelProtocol: geneve}, ipam: {mode: cluster-pool, podCIDRs: [100.64.0.0/16], maskSize: 24}}
    nodePools:
      - name: h100
        nodeSelector: {karpenter.sh/nodepool: h100}
        gpu: {vendor: nvidia, model: H100-80GB, perNode: 8, nodes: 2}
        taints:
          - {key: nvidia.com/gpu, value: present, effect: NoSchedule}
        provisioning:
          instanceTypes: [p5.48xlarge]
          image: {family: al2023, version: v20260724}
          nodeClass: {role: KarpenterNodeRole-x}
    gpu:
      nvidia: {mode: device-plugin}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: eks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    network:
      cilium: {k8sServiceHost: api.example.com, k8sServicePort: 443, routing: {mode: tunnel, tunnelProtocol: geneve}, ipam: {mode: cluster-pool, podCIDRs: [100.64.0.0/16], maskSize: 24}}
    nodePools:
      - name: h100
        nodeSelector: {karpenter.sh/nodepool: h100}
        gpu: {vendor: nvidia, model: H100-80GB, perNode: 8, nodes: 2}
        taints:
          - {key: nvidia.com/gpu, value: present, effect: NoSchedule}
          - {key: node.cilium.io/agent-not-ready, value: "true", effect: NoExecute}
        provisioning:
          instanceTypes: [p5.48xlarge]
          image: {family: al2023, version: v20260724}
          nodeClass: {role: KarpenterNodeRole-x}
    gpu:
      nvidia: {mode: device-plugin}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.consistency.in416_provisioning_without_karpenter import provisioned
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN426", "taint-cilium-startup", "error", "A provisioned pool taints its nodes with Cilium's startup taint", __doc__
)


# Cilium's agent-not-ready taint, rendered as a startup taint on Cilium clusters (cilium chart
# 1.19.6 values.yaml `agentNotReadyTaintKey`; Karpenter v1.14.1 docs concepts/nodepools.md,
# "Cilium Startup Taint").
CILIUM_STARTUP_TAINT = "node.cilium.io/agent-not-ready"


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    if not spec["network"]["cilium"]["enabled"]:
        return
    for i, pool, _, _ in provisioned(spec, facts):
        for j, taint in enumerate(pool["taints"]):
            if taint["key"] == CILIUM_STARTUP_TAINT:
                yield doc.error(
                    f"{CILIUM_STARTUP_TAINT} is the startup taint Cilium removes when its agent is ready: as a pool "
                    "taint Karpenter would put it back",
                    ("nodePools", i, "taints", j, "key"),
                    "remove it: the NodePool renders it as a startup taint",
                    at_value=True,
                )


CHECK = InputCheck(meta=META, check=check)
