"""Huge-page quotas the node pools can honour, as GPU quotas are checked in ``workloads``.

A ResourceQuota on ``requests.hugepages-<size>`` above what the pools reserve is never
reached: pods stay Pending on node allocatable while the quota still admits them, and a quota
on a size no pool reserves admits nothing that could ever schedule. Capacity is pages x page
size x nodes, summed over the pools that reserve the size; the node count of a pool is
``gpu.nodes`` (at its largest). A CPU pool has no node count, so a size a CPU pool reserves
cannot be bounded and is not checked.

Per node, the huge pages a pool reserves must fit in the node's memory when the input gives it
(``nodePools[].memory``): huge pages are taken from RAM and never swapped or reclaimed, so a
reservation of all of it (or more) can never be allocated: a runtime write stops short (the
tuning script rolls it back and fails) and a boot reservation leaves the kernel no memory
(kernel Documentation/admin-guide/mm/hugetlbpage.rst).
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction

from generator.errors import InputError
from generator.inputs.advertised import HUGEPAGE_SIZES as SIZES
from generator.kube.quantity import parse
from generator.yamlio.positions import Located


def capacity(spec: dict, size: str) -> Fraction | None:
    """Bytes of ``size`` pages the pools reserve in total, or None when a pool has no node count."""
    name, page = SIZES[size]
    total = Fraction(0)
    for pool in spec["nodePools"]:
        pages = (pool.get("hugepages") or {}).get(name, 0)
        if not pages:
            continue
        if "gpu" not in pool:
            return None
        total += pages * page * pool["gpu"]["nodes"]
    return total


def _show(value: Fraction) -> str:
    """Bytes in the largest binary unit that keeps them whole (64Gi, 3072Mi)."""
    for unit, factor in (("Ti", 2**40), ("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10)):
        if value and value % factor == 0:
            return f"{value // factor}{unit}"
    return str(value)


def per_node(pool: dict) -> Fraction:
    """Bytes of huge pages one node of the pool reserves, every size together."""
    pages = pool.get("hugepages") or {}
    return Fraction(sum(pages.get(name, 0) * page for name, page in SIZES.values()))


def _memory_errors(spec: dict, doc: Located) -> Iterator[InputError]:
    for i, pool in enumerate(spec["nodePools"]):
        memory = parse(pool.get("memory"))
        reserved = per_node(pool)
        if memory is None or not reserved or reserved < memory:
            continue
        yield doc.error(
            f"node pool {pool['name']} reserves {_show(reserved)} of huge pages per node, and its nodes have "
            f"{pool['memory']} of memory: the pages cannot all be allocated, and nothing would be left for the "
            "kernel, the kubelet and the pods",
            ("nodePools", i, "hugepages"),
            f"lower nodePools[{i}].hugepages well below the node's memory, or correct nodePools[{i}].memory "
            "(the instance type's memory)",
        )


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    yield from _memory_errors(spec, doc)
    for i, workload in enumerate(spec["workloads"]):
        for size, (name, _page) in SIZES.items():
            asked = parse(workload["quota"].get(size))
            if not asked:
                continue
            have = capacity(spec, size)
            if have is None or asked <= have:
                continue
            ns, written = workload["namespace"], workload["quota"][size]
            if have:
                message = f"the node pools reserve {_show(have)}"
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
