"""The pools' training fabrics as the fabric checks read them: the pools whose fabric type the
provider offers (``fabrics.types`` in ``providers.json``), and the instance types a pool names."""

from __future__ import annotations

INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"


def offered_fabrics(spec: dict, facts: dict) -> list[tuple[int, dict]]:
    """``(index, pool)`` of the pools with a fabric of a type the provider offers."""
    offered = facts["fabrics"]["types"]
    return [
        (i, p)
        for i, p in enumerate(spec["nodePools"])
        if p["fabric"]["type"] != "none" and p["fabric"]["type"] in offered
    ]


def instance_types(pool: dict) -> list[tuple[str, tuple]]:
    """The instance types the pool names, each with the path inside the pool that names it."""
    found: list[tuple[str, tuple]] = [
        (name, ("provisioning", "instanceTypes", j))
        for j, name in enumerate(pool.get("provisioning", {}).get("instanceTypes", []))
    ]
    if INSTANCE_TYPE_LABEL in pool["nodeSelector"]:
        found.append((pool["nodeSelector"][INSTANCE_TYPE_LABEL], ("nodeSelector", INSTANCE_TYPE_LABEL)))
    return found
