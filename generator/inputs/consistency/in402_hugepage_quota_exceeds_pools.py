"""A workload's ``quota.hugepages-<size>`` larger than the huge pages of that size the pools reserve.

Rationale: a ResourceQuota on ``requests.hugepages-<size>`` above what the pools reserve is
never reached: pods stay Pending on node allocatable while the quota still admits them, and a
quota on a size no pool reserves admits nothing that could ever schedule. Capacity is pages ×
page size × nodes, summed over the pools that reserve the size; a pool's node count is
``gpu.nodes`` (at its largest). A CPU pool has no node count, so a size a CPU pool reserves
cannot be bounded and is not checked.

Fix: lower the quota, or reserve more: ``nodePools[].hugepages.<size>`` (pages per node) ×
``gpu.nodes``; without any pool of the size, reserve them in the pool the namespace runs on or
remove the quota.

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
        hugepages: {2Mi: 16384}
        gpu: {vendor: nvidia, model: H100, perNode: 8, nodes: 2}
    workloads:
      - {namespace: training, type: training, quota: {gpus: 16, hugepages-2Mi: 64Gi}}

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
        hugepages: {2Mi: 16384}
        gpu: {vendor: nvidia, model: H100, perNode: 8, nodes: 2}
    workloads:
      - {namespace: training, type: training, quota: {gpus: 16, hugepages-2Mi: 128Gi}}
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction

from generator.errors import InputError
from generator.inputs.advertised import HUGEPAGE_SIZES
from generator.inputs.protocol import InputCheck
from generator.kube.quantity import parse, show_binary
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN402",
    "hugepage-quota-exceeds-pools",
    "error",
    "A workload's huge-page quota is more than the GPU pools reserve",
    __doc__,
)


def capacity(spec: dict, size: str) -> Fraction | None:
    """Bytes of ``size`` pages the pools reserve in total, or None when a pool has no node count."""
    name, page = HUGEPAGE_SIZES[size]
    total = Fraction(0)
    for pool in spec["nodePools"]:
        pages = (pool.get("hugepages") or {}).get(name, 0)
        if not pages:
            continue
        if "gpu" not in pool:
            return None
        total += pages * page * pool["gpu"]["nodes"]
    return total


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, workload in enumerate(spec["workloads"]):
        for size, (name, _page) in HUGEPAGE_SIZES.items():
            asked = parse(workload["quota"].get(size))
            if not asked:
                continue
            have = capacity(spec, size)
            if have is None or asked <= have:
                continue
            ns, written = workload["namespace"], workload["quota"][size]
            if have:
                message = f"the node pools reserve {show_binary(have)}"
                hint = f"lower quota.{size}, or reserve more: nodePools[].hugepages.{name} (pages per node) x gpu.nodes"
            else:
                message = f"no node pool reserves {name} huge pages"
                hint = (
                    f"reserve them in the pool the namespace runs on (nodePools[].hugepages.{name}), "
                    f"or remove quota.{size}"
                )
            yield doc.error(
                f"workloads[{i}] ({ns}) quota asks for {written} of {size}; {message}",
                ("workloads", i, "quota", size),
                hint,
                at_value=True,
            )


CHECK = InputCheck(meta=META, check=check)
