"""Two MIG pools with different ``mig.strategy`` where the GPU Operator runs the device plugin.

Rationale: the GPU Operator's ClusterPolicy has one ``mig.strategy`` for the whole cluster
(gpu-operator, ``spec.mig.strategy``); its device plugin and GPU feature discovery advertise
every MIG node that way. A pool asking for the other strategy would be advertised under the
first pool's.

Fix: use the same strategy in every MIG pool, or ``gpu.nvidia.mode: device-plugin`` (one device
plugin per pool).

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: a100
        nodeSelector: {agentpool: a100}
        gpu:
          vendor: nvidia
          model: A100-80GB
          perNode: 8
          nodes: 2
          mig: {strategy: mixed, profiles: {3g.40gb: 2}}
      - name: a100-small
        nodeSelector: {agentpool: a100small}
        gpu:
          vendor: nvidia
          model: A100-80GB
          perNode: 8
          nodes: 1
          mig: {strategy: mixed, profiles: {1g.10gb: 7}}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: a100
        nodeSelector: {agentpool: a100}
        gpu:
          vendor: nvidia
          model: A100-80GB
          perNode: 8
          nodes: 2
          mig: {strategy: mixed, profiles: {3g.40gb: 2}}
      - name: a100-small
        nodeSelector: {agentpool: a100small}
        gpu:
          vendor: nvidia
          model: A100-80GB
          perNode: 8
          nodes: 1
          mig: {strategy: single, profiles: {1g.10gb: 7}}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN213",
    "operator-mig-strategies-differ",
    "error",
    "MIG pools with different strategies under the GPU Operator",
    __doc__,
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    if spec["gpu"]["nvidia"]["mode"] != "operator":
        return
    first = None
    for i, pool in enumerate(spec["nodePools"]):
        gpu = pool.get("gpu")
        if not gpu or gpu["vendor"] != "nvidia" or gpu["mig"]["strategy"] == "none":
            continue
        if first is None:
            first = (pool["name"], gpu["mig"]["strategy"])
        elif gpu["mig"]["strategy"] != first[1]:
            yield doc.error(
                f"pool {pool['name']!r} uses mig.strategy {gpu['mig']['strategy']} but pool "
                f"{first[0]!r} uses {first[1]}: the GPU Operator has one strategy per cluster",
                ("nodePools", i, "gpu", "mig", "strategy"),
                "use the same strategy in every MIG pool, or gpu.nvidia.mode: device-plugin "
                "(one device plugin per pool)",
                at_value=True,
            )


CHECK = InputCheck(meta=META, check=check)
