"""Queues the pools can serve and the ResourceQuota agrees with, and topology levels the nodes
carry (docs/queues.md).

Kueue accepts a ClusterQueue whose quota no node can supply, and then admits jobs that stay
Pending; two flavors that match the same nodes count one node's GPUs twice; a borrowing limit
above what the rest of the cohort can lend is never reached; and a ResourceQuota below what a
queue can admit refuses the pods of a job Kueue admitted (the Job controller retries, the job
holds its quota and never starts until waitForPodsReady evicts it). Each is refused here.
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs import queues
from generator.yamlio.positions import Located


def _amount_paths(amounts: dict) -> Iterator[tuple[tuple, str]]:
    """(path inside a quota-shaped mapping, the key as written) per amount."""
    for key, value in amounts.items():
        if isinstance(value, dict):
            for sub in value:
                yield (key, sub), f"{key}.{sub}"
        else:
            yield (key,), key


def _resource(key_path: tuple, amounts: dict, vendor: str | None) -> str | None:
    node: object = amounts
    for part in key_path:
        node = node[part]  # type: ignore[index]
    shaped: dict = {key_path[0]: {key_path[1]: node}} if len(key_path) == 2 else {key_path[0]: node}
    names = list(queues.resources(shaped, vendor))
    return names[0] if names else None


def _overlap(a: dict, b: dict) -> bool:
    """Whether one node could match both nodeSelectors (no key asks two values)."""
    return all(a[k] == b[k] for k in a.keys() & b.keys())


def _missing_flavors(spec: dict, doc: Located, i: int, workload: dict) -> Iterator[InputError]:
    vendor = workload.get("gpuVendor")
    asked = queues.accelerator_quota(workload)
    if not asked:
        yield doc.error(
            f"workloads[{i}] ({workload['namespace']}) has a queue but its quota names no GPUs, MIG slices or "
            "devices: the queue would admit nothing",
            ("workloads", i, "queue"),
            "give workloads[].quota the GPUs the namespace may use, or list the queue's flavors with their quota",
        )
        return
    for key_path, key in _amount_paths(asked):
        resource = _resource(key_path, asked, vendor)
        pools = queues.suppliers(spec, resource) if resource else []
        if len(pools) != 1:
            yield doc.error(
                f"workloads[{i}] ({workload['namespace']}) quota.{key} is supplied by "
                + (f"several pools ({', '.join(pools)})" if pools else "no GPU pool")
                + ": the queue cannot tell which flavor its nominal quota belongs to",
                ("workloads", i, "queue"),
                "list workloads[].queue.flavors: each pool with the quota the queue has on it"
                if pools
                else "add a pool that advertises it, or remove it from quota",
            )


def _flavor_errors(spec: dict, doc: Located, i: int, workload: dict) -> Iterator[InputError]:
    pools = {p["name"]: p for p in spec["nodePools"]}
    vendor = workload.get("gpuVendor")
    queue = workload["queue"]
    seen: dict[str, int] = {}
    for j, flavor in enumerate(queue["flavors"]):
        at = ("workloads", i, "queue", "flavors", j)
        name = flavor["pool"]
        pool = pools.get(name)
        if pool is None or "gpu" not in pool:
            yield doc.error(
                f"workloads[{i}].queue.flavors[{j}] names {'a CPU pool' if pool else 'no node pool'} {name!r}",
                (*at, "pool"),
                "name one of the GPU pools: " + ", ".join(p for p in pools if "gpu" in pools[p]),
                at_value=True,
            )
            continue
        if name in seen:
            yield doc.error(
                f"workloads[{i}].queue.flavors[{j}] names pool {name!r} again (first at flavors[{seen[name]}])",
                (*at, "pool"),
                "give each pool once, with the queue's whole quota on it",
                at_value=True,
            )
            continue
        seen[name] = j
        supplied = queues.supply(pool)
        nominal = flavor["quota"]
        for key_path, key in _amount_paths(nominal):
            resource = _resource(key_path, nominal, vendor)
            count = queues.resources({key_path[0]: nominal[key_path[0]]}, vendor).get(resource or "", 0)
            have = supplied.get(resource or "", 0)
            if count > have:
                yield doc.error(
                    f"workloads[{i}].queue.flavors[{j}] quota.{key} is {count}; pool {name} supplies {have}"
                    + (f" {resource}" if resource else ""),
                    (*at, "quota", *key_path),
                    "lower the nominal quota to what the pool has, or move it to a pool that supplies it",
                    at_value=True,
                )
        for limit in ("borrowingLimit", "lendingLimit"):
            if limit in flavor and "cohort" not in queue:
                yield doc.error(
                    f"workloads[{i}].queue.flavors[{j}] has a {limit} but the queue is in no cohort",
                    (*at, limit),
                    "set workloads[].queue.cohort, or remove the limit",
                )
        lend = queues.resources(flavor.get("lendingLimit") or {}, vendor)
        mine = queues.resources(nominal, vendor)
        for resource, count in lend.items():
            if count > mine.get(resource, 0):
                yield doc.error(
                    f"workloads[{i}].queue.flavors[{j}] lends {count} {resource}, more than its quota of "
                    f"{mine.get(resource, 0)} (Kueue refuses a lendingLimit above nominalQuota)",
                    (*at, "lendingLimit"),
                    "lower lendingLimit to at most quota",
                )


def _overlap_errors(spec: dict, doc: Located, queued: list[tuple[int, dict]]) -> Iterator[InputError]:
    """Two flavors, of one queue or of two, whose pools' nodeSelectors one node can match: Kueue
    counts that node's GPUs under both. Reported once per pair, at the first flavor of the later pool."""
    pools = {p["name"]: p for p in spec["nodePools"] if "gpu" in p}
    first: dict[str, tuple] = {}
    for i, workload in queued:
        for j, flavor in enumerate(workload["queue"].get("flavors") or []):
            if flavor["pool"] in pools:
                first.setdefault(flavor["pool"], ("workloads", i, "queue", "flavors", j, "pool"))
    names = list(first)
    for b, later in enumerate(names):
        for earlier in names[:b]:
            if _overlap(pools[earlier]["nodeSelector"], pools[later]["nodeSelector"]):
                yield doc.error(
                    f"the flavors of pools {earlier} and {later} overlap: a node can match both pools' "
                    "nodeSelectors, so Kueue would count its GPUs under two flavors",
                    first[later],
                    "give the pools nodeSelectors that tell their nodes apart (a label with one value per pool)",
                    at_value=True,
                )


def _lendable(workload: dict, pool: str) -> dict[str, int]:
    vendor = workload.get("gpuVendor")
    out: dict[str, int] = {}
    for flavor in workload["queue"].get("flavors") or []:
        if flavor["pool"] != pool:
            continue
        out = queues.resources(flavor["quota"], vendor)
        out.update(queues.resources(flavor.get("lendingLimit") or {}, vendor))
    return out


def _cohort_errors(spec: dict, doc: Located, i: int, workload: dict) -> Iterator[InputError]:
    queue = workload["queue"]
    cohort = queue.get("cohort")
    if cohort is None:
        return
    others = [
        w
        for k, w in enumerate(spec["workloads"])
        if k != i and (w.get("queue") or {}).get("cohort") == cohort and w["queue"].get("flavors")
    ]
    vendor = workload.get("gpuVendor")
    for j, flavor in enumerate(queue["flavors"]):
        for resource, count in queues.resources(flavor.get("borrowingLimit") or {}, vendor).items():
            lendable = sum(_lendable(w, flavor["pool"]).get(resource, 0) for w in others)
            if count > lendable:
                yield doc.error(
                    f"workloads[{i}].queue.flavors[{j}] may borrow {count} {resource} on {flavor['pool']}; the "
                    f"other queues of cohort {cohort} lend {lendable} there",
                    ("workloads", i, "queue", "flavors", j, "borrowingLimit"),
                    f"lower borrowingLimit to {lendable}, or give another queue of the cohort quota on "
                    f"{flavor['pool']}",
                )


def _quota_errors(doc: Located, i: int, workload: dict) -> Iterator[InputError]:
    """The namespace's ResourceQuota must admit whatever the queue admits."""
    vendor = workload.get("gpuVendor")
    hard = queues.resources(queues.accelerator_quota(workload), vendor)
    for resource, most in queues.ceiling(workload["queue"], vendor).items():
        if resource in hard and most > hard[resource]:
            yield doc.error(
                f"workloads[{i}] ({workload['namespace']}) queue can admit {most} {resource} (nominal quota plus "
                f"borrowing limit); the namespace's ResourceQuota allows {hard[resource]}: pods of admitted jobs "
                "would be refused",
                ("workloads", i, "queue", "flavors"),
                "raise workloads[].quota to the queue's nominal quota plus borrowing limit, or lower those",
            )


def _control_plane_errors(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    """Kueue's webhooks run in a pod; where the control plane cannot reach pod IPs they time out."""
    cilium = spec["network"]["cilium"]
    ipam = ((cilium.get("values") or {}).get("ipam") or {}).get("mode", cilium.get("ipam", {}).get("mode"))
    if facts["controlPlaneNeedsVpcPodIps"] and cilium.get("enabled") and ipam != "eni":
        first = next(i for i, w in enumerate(spec["workloads"]) if "queue" in w)
        yield doc.error(
            "Kueue's webhooks run in a pod the managed control plane cannot reach with Cilium's "
            f"{ipam} IPAM: every job in a queued namespace would be refused (the webhooks fail closed)",
            ("workloads", first, "queue"),
            "use Cilium's ENI IPAM (network.cilium.values.ipam.mode: eni), or queue no workload",
        )


def _topology_errors(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    """Levels no node of the pool carries. A provider that labels its network topology owns
    its nodes' labels, so only its levels are known there; NVIDIA's clique label exists only
    on multi-node NVLink systems; the CRD wants the hostname level last."""
    known = facts["topologyLevels"]
    for i, pool in enumerate(spec["nodePools"]):
        levels = pool.get("topologyLevels") or []
        nvlink = pool.get("gpu", {}).get("multiNodeNVLink", False)
        for j, level in enumerate(levels):
            at = ("nodePools", i, "topologyLevels", j)
            if level == queues.HOSTNAME and j != len(levels) - 1:
                yield doc.error(
                    f"nodePools[{i}].topologyLevels: {level} must be the last level (the Topology CRD refuses it "
                    "elsewhere)",
                    at,
                    f"move {level} to the end",
                    at_value=True,
                )
            elif level == queues.CLIQUE and not nvlink:
                yield doc.error(
                    f"nodePools[{i}].topologyLevels: {level} is only set on multi-node NVLink nodes, and pool "
                    f"{pool['name']} has no gpu.multiNodeNVLink",
                    at,
                    "remove the level, or set gpu.multiNodeNVLink on a pool of NVL72-class nodes",
                    at_value=True,
                )
            elif known and level not in (*known, queues.CLIQUE, queues.HOSTNAME):
                yield doc.error(
                    f"nodePools[{i}].topologyLevels: {level} is unknown to provider {spec['provider']}, whose "
                    "nodes carry " + ", ".join(known),
                    at,
                    f"use the provider's levels ({', '.join(known)}), {queues.HOSTNAME}, or write [] for no topology",
                    at_value=True,
                )


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    yield from _topology_errors(spec, doc, facts)
    queued = [(i, w) for i, w in enumerate(spec["workloads"]) if "queue" in w]
    if not queued:
        return
    yield from _control_plane_errors(spec, doc, facts)
    yield from _overlap_errors(spec, doc, queued)
    for i, workload in queued:
        if not workload["queue"].get("flavors"):
            yield from _missing_flavors(spec, doc, i, workload)
            continue
        yield from _flavor_errors(spec, doc, i, workload)
        yield from _cohort_errors(spec, doc, i, workload)
        yield from _quota_errors(doc, i, workload)
