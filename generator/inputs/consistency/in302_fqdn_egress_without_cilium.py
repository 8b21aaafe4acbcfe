"""A workload allows egress to DNS names on a cluster without Cilium.

Rationale: a Kubernetes NetworkPolicy has no DNS names, only pods, namespaces and CIDRs;
``allowEgressToFQDNs`` renders a CiliumNetworkPolicy ``toFQDNs`` rule with the DNS proxy rule
it needs (Cilium docs, "DNS based" policies), which only Cilium enforces.

Fix: enable ``network.cilium``, or list the destinations' CIDRs in ``allowEgressTo`` instead.

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: system
        nodeSelector: {agentpool: system}
    workloads:
      - {namespace: training, type: training, allowEgressTo: [10.20.0.0/16]}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: system
        nodeSelector: {agentpool: system}
    workloads:
      - {namespace: training, type: training, allowEgressToFQDNs: [huggingface.co]}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta("IN302", "fqdn-egress-without-cilium", "error", "Egress to DNS names needs Cilium", __doc__)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    if spec["network"].get("cilium", {}).get("enabled", False):
        return
    for i, workload in enumerate(spec["workloads"]):
        if workload["allowEgressToFQDNs"]:
            yield doc.error(
                f"workloads[{i}] ({workload['namespace']}) allows egress to DNS names, which only Cilium's "
                "toFQDNs policies can express",
                ("workloads", i, "allowEgressToFQDNs"),
                "enable network.cilium, or list the destinations' CIDRs in allowEgressTo instead",
            )


CHECK = InputCheck(meta=META, check=check)
