"""A pool reserves as much huge-page memory per node as its nodes have, or more.

Rationale: huge pages are taken from RAM and never swapped or reclaimed (kernel
Documentation/admin-guide/mm/hugetlbpage.rst), so a reservation of all of a node's memory (or
more) can never be allocated: a runtime write stops short (the tuning script rolls it back and
fails) and a boot reservation leaves the kernel, the kubelet and the pods no memory. Checked
where the input gives the nodes' memory (``nodePools[].memory``).

Fix: lower ``nodePools[].hugepages`` well below the node's memory, or correct
``nodePools[].memory`` (the instance type's memory).

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
        memory: 1800Gi
        hugepages: {2Mi: 16384}
        gpu: {vendor: nvidia, model: H100, perNode: 8, nodes: 2}

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
        memory: 16Gi
        hugepages: {2Mi: 16384}
        gpu: {vendor: nvidia, model: H100, perNode: 8, nodes: 2}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.advertised import hugepages_per_node
from generator.inputs.protocol import InputCheck
from generator.kube.quantity import parse, show_binary
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN401",
    "hugepages-exceed-node-memory",
    "error",
    "A pool's huge pages per node are not less than its nodes' memory",
    __doc__,
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, pool in enumerate(spec["nodePools"]):
        memory = parse(pool.get("memory"))
        reserved = hugepages_per_node(pool)
        if memory is None or not reserved or reserved < memory:
            continue
        yield doc.error(
            f"node pool {pool['name']} reserves {show_binary(reserved)} of huge pages per node, and its nodes have "
            f"{pool['memory']} of memory: the pages cannot all be allocated, and nothing would be left for the "
            "kernel, the kubelet and the pods",
            ("nodePools", i, "hugepages"),
            f"lower nodePools[{i}].hugepages well below the node's memory, or correct nodePools[{i}].memory "
            "(the instance type's memory)",
        )


CHECK = InputCheck(meta=META, check=check)
