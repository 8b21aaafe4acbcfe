"""Two node pools with the same name.

Rationale: a pool's name names every object rendered for it: its Karpenter NodePool and
NodeClass, its device plugin and tuning configuration, its Kueue ResourceFlavor. Two pools of
one name render two objects of one identity, and the API server keeps one of them (the last
applied); the other pool's nodes are configured by the wrong pool's settings.

Fix: give each pool its own name.

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
      - name: gpu
        nodeSelector: {agentpool: gpu}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: gpu
        nodeSelector: {agentpool: system}
      - name: gpu
        nodeSelector: {agentpool: gpu}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.protocol import InputCheck
from generator.inputs.repeats import repeats
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta("IN106", "pool-name-repeated", "error", "Two node pools have the same name", __doc__)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, first, name in repeats((i, pool["name"]) for i, pool in enumerate(spec["nodePools"])):
        yield doc.error(
            f"node pool name {name!r} is used twice (first at nodePools[{first}])",
            ("nodePools", i, "name"),
            "pool names must be unique: they name the objects rendered for each pool",
            at_value=True,
        )


CHECK = InputCheck(meta=META, check=check)
