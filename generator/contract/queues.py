"""The queues of a rendered tree as ``lint --cluster`` sees them: each LocalQueue with the
flavors of its ClusterQueue, what each can ever hold and its Topology's levels.

Read from the rendered kueue.x-k8s.io objects (not the input), so lint judges what the cluster
runs, as it does for ResourceQuotas and admission policies.
"""

from __future__ import annotations

from fractions import Fraction

from generator.contract.model import Flavor, Queue
from generator.kube import quantity

QUEUE_KINDS = ("LocalQueue", "ClusterQueue", "ResourceFlavor", "Topology")


def _flavor(entry: dict, levels: tuple[str, ...]) -> Flavor:
    most = []
    for resource in entry.get("resources") or []:
        nominal = quantity.parse(str(resource.get("nominalQuota", 0))) or Fraction(0)
        borrow = quantity.parse(str(resource.get("borrowingLimit", 0))) or Fraction(0)
        most.append((str(resource.get("name", "")), nominal + borrow))
    return Flavor(str(entry.get("name", "")), tuple(sorted(most)), levels)


def queue_contract(objects: list[dict]) -> tuple[Queue, ...]:
    """Each LocalQueue of ``objects`` with its ClusterQueue's flavors, sorted."""
    by_kind: dict[str, dict[tuple[str, str], dict]] = {kind: {} for kind in QUEUE_KINDS}
    for obj in objects:
        meta = obj.get("metadata") or {}
        by_kind[obj["kind"]][(meta.get("namespace", ""), meta.get("name", ""))] = obj.get("spec") or {}
    levels = {
        name: tuple(str(level.get("nodeLabel", "")) for level in spec.get("levels") or [])
        for (_, name), spec in by_kind["Topology"].items()
    }
    flavor_levels = {
        name: levels.get(spec.get("topologyName", ""), ()) for (_, name), spec in by_kind["ResourceFlavor"].items()
    }
    out = []
    for (namespace, name), spec in sorted(by_kind["LocalQueue"].items()):
        cq_name = str(spec.get("clusterQueue", ""))
        cq = by_kind["ClusterQueue"].get(("", cq_name), {})
        flavors = tuple(
            _flavor(entry, flavor_levels.get(entry.get("name", ""), ()))
            for group in cq.get("resourceGroups") or []
            for entry in group.get("flavors") or []
        )
        out.append(Queue(namespace, name, cq_name, flavors))
    return tuple(out)
