"""Dynamic Resource Allocation: claims that name a device their pool publishes, device quotas the
pools can honour, ComputeDomains on Multi-Node NVLink pools, the pod metrics of DRA pools. (The
pools' own checks are IN218-IN222.)"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.advertised import GPU_CLASS, MIG_CLASS, is_dra
from generator.inputs.repeats import repeats
from generator.kube import runtimeconfig
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
    minor = int(spec["kubernetesVersion"].split(".")[1])
    pools = dra_pools(spec)
    yield from _check_pod_metrics(spec, pools, minor, doc)
    for i, workload in enumerate(spec["workloads"]):
        yield from _check_claims(workload, ("workloads", i), pools, doc)
        yield from _check_compute_domains(workload, ("workloads", i), pools, doc)
        yield from _check_device_quota(spec, workload, ("workloads", i), doc)


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


def _check_compute_domains(workload: dict, at: tuple, pools: dict[str, dict], doc: Located) -> Iterator[InputError]:
    domains = workload["computeDomains"]
    for j, first, name in repeats((j, d["name"]) for j, d in enumerate(domains)):
        yield doc.error(
            f"ComputeDomain {name!r} is declared twice in {workload['namespace']} (first at computeDomains[{first}])",
            at + ("computeDomains", j, "name"),
            "give each ComputeDomain its own name",
            at_value=True,
        )
    nvlink = sorted(n for n, p in pools.items() if p["gpu"]["multiNodeNVLink"])
    for j, domain in enumerate(domains):
        if domain["pool"] not in nvlink:
            yield doc.error(
                f"ComputeDomain {domain['name']!r} names pool {domain['pool']!r}, which is not a dra pool with "
                "multiNodeNVLink: true",
                at + ("computeDomains", j, "pool"),
                f"Multi-Node NVLink pools: {', '.join(nvlink)}"
                if nvlink
                else "set multiNodeNVLink: true (and allocation: dra) on the NVLink pool",
                at_value=True,
            )


def _check_device_quota(spec: dict, workload: dict, at: tuple, doc: Located) -> Iterator[InputError]:
    quota = workload["quota"].get("devices", {})
    if not quota:
        return
    capacity = device_capacity(spec)
    for cls, count in quota.items():
        if count > capacity[cls]:
            yield doc.error(
                f"workloads[{at[1]}] ({workload['namespace']}) quota asks for {count} {cls} devices; "
                f"the dra pools publish {capacity[cls]}",
                at + ("quota", "devices", cls),
                "lower the quota, or raise the dra pools' nodes / perNode (gpu.nvidia.com counts the GPUs of "
                "pools without MIG, mig.nvidia.com the MIG devices of the others)",
                at_value=True,
            )


# The pinned dcgm-exporter reads ResourceSlices at resource.k8s.io/v1beta1 to label DRA GPUs'
# metrics with their pods (the key's description in schemas/cluster.schema.json); that version
# is off by default (runtimeconfig), so the API server must turn it on.
_EXPORTER_API = "resource.k8s.io/v1beta1"


def _check_pod_metrics(spec: dict, pools: dict, minor: int, doc: Located) -> Iterator[InputError]:
    """``draPodMetrics`` on a cluster whose API server, as its input says, does not serve the
    version the exporter reads: the exporter waits for it for ever and serves no metrics."""
    nvidia = spec["gpu"].get("nvidia", {})
    served = spec.get("apiServer", {}).get("runtimeConfig", [])
    if not nvidia.get("draPodMetrics") or not pools or _EXPORTER_API in served:
        return
    if not runtimeconfig.off_by_default(_EXPORTER_API, "ResourceSlice", (1, minor)):
        return
    yield doc.error(
        f"gpu.nvidia.draPodMetrics needs the API server to serve {_EXPORTER_API}, which Kubernetes "
        f"{spec['kubernetesVersion']} serves only with {runtimeconfig.flag(_EXPORTER_API)}, and apiServer.runtimeConfig "
        "does not list it: the exporter would wait for that API and serve no metrics at all",
        ("gpu", "nvidia", "draPodMetrics"),
        f"once the API server runs with the flag, add `apiServer: {{runtimeConfig: [{_EXPORTER_API}]}}`; "
        "else remove draPodMetrics",
    )
