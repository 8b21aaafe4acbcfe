"""An NVIDIA pool named ``default`` or ``all-disabled`` under the GPU Operator.

Rationale: in operator mode each pool's device plugin config and MIG layout are keyed by the
pool's name in the operator's ConfigMaps, next to the entries the operator uses for nodes no
pool claims: the device plugin's ``default`` config and mig-parted's ``all-disabled`` layout
(``libsonnet/components/nvidia-gpu-operator.libsonnet``). A pool of one of these names would
replace them.

Fix: rename the pool (its configs and node labels use its name).

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: a100-train
        nodeSelector: {agentpool: a100}
        gpu:
          vendor: nvidia
          model: A100-80GB
          perNode: 8
          nodes: 2

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: default
        nodeSelector: {agentpool: a100}
        gpu:
          vendor: nvidia
          model: A100-80GB
          perNode: 8
          nodes: 2
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN214",
    "operator-pool-name-reserved",
    "error",
    "An NVIDIA pool named like the GPU Operator's config for unlabelled nodes",
    __doc__,
)

# Config names the GPU Operator values use for nodes no pool claims: the device plugin's
# `default` entry and mig-parted's `all-disabled` layout (nvidia-gpu-operator.libsonnet).
RESERVED_CONFIG_NAMES = ("default", "all-disabled")


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    if spec["gpu"]["nvidia"]["mode"] != "operator":
        return
    for i, pool in enumerate(spec["nodePools"]):
        if pool.get("gpu", {}).get("vendor") == "nvidia" and pool["name"] in RESERVED_CONFIG_NAMES:
            yield doc.error(
                f"NVIDIA pool name {pool['name']!r} is also the GPU Operator's config for unlabelled "
                "nodes: the pool's device plugin config or MIG layout would replace it",
                ("nodePools", i, "name"),
                "rename the pool (its configs and node labels use "
                f"its name; {' and '.join(RESERVED_CONFIG_NAMES)} are taken)",
                at_value=True,
            )


CHECK = InputCheck(meta=META, check=check)
