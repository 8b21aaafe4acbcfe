"""A pool's ``topologyLevels`` with ``nvidia.com/gpu.clique`` on a pool without
``gpu.multiNodeNVLink``.

Rationale: NVIDIA's GPU Feature Discovery sets the ``nvidia.com/gpu.clique`` label only on
nodes of a multi-node NVLink domain (NVL72-class systems): on other nodes no node carries the
level, and Kueue cannot place a job that asks for it.

Fix: remove the level, or set ``gpu.multiNodeNVLink`` on a pool of NVL72-class nodes.

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
        gpu: {vendor: nvidia, model: H100-80GB, perNode: 8, nodes: 2}
        topologyLevels: [kubernetes.io/hostname]

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
        gpu: {vendor: nvidia, model: H100-80GB, perNode: 8, nodes: 2}
        topologyLevels: [nvidia.com/gpu.clique, kubernetes.io/hostname]
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs import queues
from generator.inputs.consistency.in519_topology_hostname_not_last import levels
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN520",
    "topology-clique-without-nvlink",
    "error",
    "The NVLink clique topology level on a pool without multi-node NVLink",
    __doc__,
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, pool, j, level in levels(spec):
        if level == queues.CLIQUE and not pool.get("gpu", {}).get("multiNodeNVLink", False):
            yield doc.error(
                f"nodePools[{i}].topologyLevels: {level} is only set on multi-node NVLink nodes, and pool "
                f"{pool['name']} has no gpu.multiNodeNVLink",
                ("nodePools", i, "topologyLevels", j),
                "remove the level, or set gpu.multiNodeNVLink on a pool of NVL72-class nodes",
                at_value=True,
            )


CHECK = InputCheck(meta=META, check=check)
