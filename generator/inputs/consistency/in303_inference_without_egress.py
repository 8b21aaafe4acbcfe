"""A GPU inference namespace that declares no egress at all.

Rationale: a workload namespace is default-deny: its pods reach DNS and each other, and only
the destinations ``allowEgressTo`` and ``allowEgressToFQDNs`` list. An inference server pulls
its model at start-up from a registry or an object store; with no egress the pull fails at
runtime, not at render. Writing ``allowEgressTo: []`` says it is meant (models on a volume).

Fix: list the model sources in ``allowEgressToFQDNs`` (e.g. ``[huggingface.co,
"*.huggingface.co"]``) or ``allowEgressTo`` (CIDRs); write ``allowEgressTo: []`` if the models
come from a volume.

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
      - {namespace: serving, type: inference, quota: {gpus: 8}, allowEgressTo: []}

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
      - {namespace: serving, type: inference, quota: {gpus: 8}}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta("IN303", "inference-without-egress", "warning", "A GPU inference namespace declares no egress", __doc__)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, workload in enumerate(spec["workloads"]):
        written = doc.data.get("workloads", [])[i]
        quota = workload["quota"]
        has_gpus = (
            bool(quota.get("gpus")) or any(quota.get("mig", {}).values()) or any(quota.get("devices", {}).values())
        )
        if (
            workload["type"] == "inference"
            and has_gpus
            and not workload["allowEgressToFQDNs"]
            and "allowEgressTo" not in written
        ):
            yield doc.warning(
                f"GPU inference namespace {workload['namespace']} declares no egress: its pods reach only DNS and "
                "each other, so model pulls from registries and object stores fail at runtime",
                ("workloads", i, "namespace"),
                'list the model sources in allowEgressToFQDNs (e.g. [huggingface.co, "*.huggingface.co"]) or '
                "allowEgressTo (CIDRs); write allowEgressTo: [] if the models come from a volume",
                at_value=True,
            )


CHECK = InputCheck(meta=META, check=check)
