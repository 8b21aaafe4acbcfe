"""Dynamic Resource Allocation: claims that name a device their pool publishes; the DRA pools
and the devices they publish, which the DRA checks (IN218-IN226) share."""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.advertised import GPU_CLASS, MIG_CLASS, is_dra
from generator.inputs.repeats import repeats
from generator.yamlio.positions import Located


def dra_pools(spec: dict) -> dict[str, dict]:
    """The ``allocation: dra`` NVIDIA pools by name."""
    return {
        p["name"]: p for p in spec["nodePools"] if "gpu" in p and p["gpu"]["vendor"] == "nvidia" and is_dra(p["gpu"])
    }


def _uses_mig(gpu: dict) -> bool:
    return gpu["mig"]["strategy"] != "none"


def device_capacity(spec: dict) -> dict[str, int]:
    """Devices each DeviceClass finds at the ``dra`` pools' largest size.

    The kubelet plugin publishes a GPU whole when MIG is off and only its MIG devices when MIG
    is on (cmd/gpu-kubelet-plugin/nvlib.go enumerateGpusAndMigDevices, v25.12.0, static MIG).
    """
    capacity = {GPU_CLASS: 0, MIG_CLASS: 0}
    for pool in dra_pools(spec).values():
        gpu = pool["gpu"]
        if _uses_mig(gpu):
            capacity[MIG_CLASS] += sum(gpu["mig"]["profiles"].values()) * gpu["perNode"] * gpu["nodes"]
        else:
            capacity[GPU_CLASS] += gpu["perNode"] * gpu["nodes"]
    return capacity


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    pools = dra_pools(spec)
    for i, workload in enumerate(spec["workloads"]):
        yield from _check_claims(workload, ("workloads", i), pools, doc)


def _check_claims(workload: dict, at: tuple, pools: dict[str, dict], doc: Located) -> Iterator[InputError]:
    claims = workload["claims"]
    for j, first, name in repeats((j, c["name"]) for j, c in enumerate(claims)):
        yield doc.error(
            f"claim template {name!r} is declared twice in {workload['namespace']} (first at claims[{first}])",
            at + ("claims", j, "name"),
            "give each claim template its own name",
            at_value=True,
        )
    channels = {f"{d['name']}-channel" for d in workload["computeDomains"]}
    for j, claim in enumerate(claims):
        where = at + ("claims", j)
        if claim["name"] in channels:
            yield doc.error(
                f"claim template {claim['name']!r} has the name the ComputeDomain's channel template takes",
                where + ("name",),
                "rename the claim: a ComputeDomain <name> generates the ResourceClaimTemplate <name>-channel",
                at_value=True,
            )
        pool = pools.get(claim["pool"])
        if pool is None:
            yield doc.error(
                f"claim {claim['name']!r} names pool {claim['pool']!r}, which is not an NVIDIA pool with allocation: dra",
                where + ("pool",),
                f"dra pools: {', '.join(sorted(pools))}" if pools else "set allocation: dra on an NVIDIA pool",
                at_value=True,
            )
            continue
        yield from _check_claim_devices(claim, pool, where, doc)
        yield from _check_sharing(claim, where, doc)


def _check_claim_devices(claim: dict, pool: dict, where: tuple, doc: Located) -> Iterator[InputError]:
    gpu = pool["gpu"]
    profile = claim.get("mig")
    layout = gpu["mig"]["profiles"] if _uses_mig(gpu) else {}
    if profile is None and layout:
        yield doc.error(
            f"claim {claim['name']!r} asks for whole GPUs, but pool {pool['name']!r} runs MIG: the driver "
            "publishes only its MIG devices",
            where,
            f"add mig: one of {', '.join(sorted(layout))}",
        )
        return
    if profile is not None and profile not in layout:
        yield doc.error(
            f"claim {claim['name']!r} asks for MIG profile {profile}, which pool {pool['name']!r} does not have"
            + (" (MIG is off there)" if not layout else ""),
            where + ("mig",),
            f"use one of {', '.join(sorted(layout))}" if layout else "remove mig to claim whole GPUs",
            at_value=True,
        )
        return
    per_node = (layout[profile] if profile else 1) * gpu["perNode"]
    if claim["count"] > per_node:
        yield doc.error(
            f"claim {claim['name']!r} asks for {claim['count']} devices, but a node of pool {pool['name']!r} has "
            f"{per_node}: a claim's devices are allocated on the pod's node, so no pod could start",
            where + ("count",),
            f"lower count to {per_node} or fewer",
            at_value=True,
        )


def _check_sharing(claim: dict, where: tuple, doc: Located) -> Iterator[InputError]:
    sharing = claim.get("sharing")
    if sharing is None:
        return
    mps_keys = [k for k in ("activeThreadPercentage", "pinnedMemoryLimit") if k in sharing]
    if sharing["strategy"] == "TimeSlicing" and mps_keys:
        yield doc.error(
            f"{mps_keys[0]} is an MPS setting, but the claim's sharing strategy is TimeSlicing",
            where + ("sharing", mps_keys[0]),
            "remove it, or set strategy: MPS",
        )
    if "interval" in sharing and (sharing["strategy"] != "TimeSlicing" or "mig" in claim):
        yield doc.error(
            "interval is a time-slicing setting of whole GPUs (GpuConfig timeSlicingConfig); MIG devices and MPS "
            "take none (MigDeviceSharing has no timeSlicingConfig)",
            where + ("sharing", "interval"),
            "remove interval",
        )
