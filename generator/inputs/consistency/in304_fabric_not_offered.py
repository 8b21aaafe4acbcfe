"""A pool's ``fabric.type`` that its provider offers no way to render.

Rationale: a fabric the provider cannot offer renders a device plugin that never finds a NIC,
and training pods that request its resource stay Pending for ever. What each provider offers is
``fabrics.types`` in docs/providers.md: InfiniBand on AKS ND-series, EFA on EKS, InfiniBand and
RoCE on-premises. The fabric checks IN305 to IN309 judge only pools whose type is offered.

Fix: use a type the provider offers (``fabrics`` in docs/providers.md), or set
``fabric.type: none``.

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
        fabric: {type: roce, nics: 8}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN304", "fabric-not-offered", "error", "A pool's fabric type is one the provider does not offer", __doc__
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    offered = facts["fabrics"]["types"]
    for i, pool in enumerate(spec["nodePools"]):
        kind = pool["fabric"]["type"]
        if kind != "none" and kind not in offered:
            choices = ", ".join(offered) or "none"
            yield doc.error(
                f"provider {spec['provider']} offers no {kind} fabric that gpu-gitops renders (it offers: {choices})",
                ("nodePools", i, "fabric", "type"),
                "see `fabrics` in docs/providers.md for what each provider offers, or set fabric.type: none",
                at_value=True,
            )


CHECK = InputCheck(meta=META, check=check)
