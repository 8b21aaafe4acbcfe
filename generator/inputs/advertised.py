"""What the nodes of a pool advertise to the kubelet, by resource name: the one Python account
of ``gpu.advertisedPerNode`` (``libsonnet/lib/gpu.libsonnet``), for the quota checks and lint's
cluster contract.

Only data and arithmetic: ``lint --cluster`` imports it without the input checks.
"""

from __future__ import annotations

from fractions import Fraction

# Quota key -> the page size as nodePools[].hugepages names it, and its bytes.
HUGEPAGE_SIZES = {"hugepages-2Mi": ("2Mi", 2**21), "hugepages-1Gi": ("1Gi", 2**30)}

# Time-sliced NVIDIA GPUs advertised under their own name (timeSlicing.renameByDefault).
SHARED_GPU = "nvidia.com/gpu.shared"

# The DeviceClasses the NVIDIA DRA driver's chart renders for GPUs (templates/deviceclass-gpu.yaml
# and deviceclass-mig.yaml, NVIDIA/k8s-dra-driver-gpu v25.12.0): whole GPUs and MIG devices.
GPU_CLASS = "gpu.nvidia.com"
MIG_CLASS = "mig.nvidia.com"


# Units of its resource the RDMA shared device plugin advertises per node: `rdmaHcaMax` of
# components/training-fabric.libsonnet (NVIDIA's guides' value), one per pod sharing the HCAs.
RDMA_SHARED_UNITS = 63


def fabric_offer(pool: dict) -> tuple[str, int] | None:
    """The fabric resource one node of ``pool`` advertises and its units (-1: a count the input
    does not give), or None without a fabric."""
    fabric = pool.get("fabric") or {}
    kind = fabric.get("type", "none")
    if kind == "none":
        return None
    if kind == "efa":
        return fabric["resourceName"], fabric.get("nics", -1)
    return fabric["resourceName"], RDMA_SHARED_UNITS


def is_dra(gpu: dict) -> bool:
    """Whether the pool's GPUs are claimed through DRA rather than advertised by a device plugin."""
    return gpu.get("allocation") == "dra"


def advertised_per_gpu(gpu: dict) -> int:
    """How many units of ``gpu_resource(gpu)`` one physical GPU is advertised as.

    Time-slicing multiplies; MIG ``single`` advertises each slice as a GPU; MIG ``mixed``
    advertises slices under their own names, so none count as whole GPUs.
    """
    strategy = gpu.get("mig", {}).get("strategy", "none")
    if strategy == "mixed":
        return 0
    if strategy == "single":
        return sum(gpu["mig"]["profiles"].values()) or 1
    return gpu.get("timeSlicing", {}).get("replicas", 1)


def gpu_resource(gpu: dict) -> str:
    """The resource a pool's GPUs (whole, MIG ``single`` or time-sliced) are advertised under.

    With ``renameByDefault`` the device plugin advertises time-sliced GPUs as
    ``nvidia.com/gpu.shared`` instead of ``nvidia.com/gpu`` (NVIDIA/k8s-device-plugin README.md,
    "Shared Access to GPUs with CUDA Time-Slicing", v0.20.0), as gpu.advertisedPerNode renders.
    """
    if gpu.get("timeSlicing", {}).get("renameByDefault"):
        return SHARED_GPU
    return f"{gpu['vendor']}.com/gpu"


def pool_offers(pool: dict) -> tuple[dict[str, int], str]:
    """What one node of ``pool`` advertises (resource → units, huge pages in bytes), and the
    vendor prefix under which it may advertise names that depend on the hardware."""
    offers: dict[str, int] = {}
    open_prefix = ""
    gpu = pool.get("gpu")
    if gpu:
        if is_dra(gpu):
            pass  # its GPUs are devices in ResourceSlices, claimed through DeviceClasses, never extended resources
        elif gpu["vendor"] == "amd" and gpu.get("resourceNaming", "single") != "single":
            open_prefix = "amd.com/"  # partition names depend on the mode the GPUs are set to
        elif gpu["vendor"] == "nvidia" and gpu["mig"]["strategy"] == "mixed":
            for profile, count in gpu["mig"]["profiles"].items():
                offers[f"nvidia.com/mig-{profile}"] = count * gpu["perNode"]
        else:
            offers[gpu_resource(gpu)] = gpu["perNode"] * advertised_per_gpu(gpu)
    fabric = fabric_offer(pool)
    if fabric is not None:
        offers[fabric[0]] = fabric[1]
    for quota_name, (size, page) in HUGEPAGE_SIZES.items():
        pages = (pool.get("hugepages") or {}).get(size, 0)
        if pages:
            offers[quota_name] = pages * page
    return offers, open_prefix


def gpu_capacity(spec: dict, resource: str) -> int:
    """Schedulable units of the extended resource ``resource`` over the pools at their largest size."""
    total = 0
    for pool in spec["nodePools"]:
        gpu = pool.get("gpu")
        # a dra pool's GPUs are devices in ResourceSlices, never extended resources
        if gpu and gpu.get("allocation") != "dra" and gpu_resource(gpu) == resource:
            total += gpu["perNode"] * gpu["nodes"] * advertised_per_gpu(gpu)
    return total


def hugepages_per_node(pool: dict) -> Fraction:
    """Bytes of huge pages one node of the pool reserves, every size together."""
    pages = pool.get("hugepages") or {}
    return Fraction(sum(pages.get(name, 0) * page for name, page in HUGEPAGE_SIZES.values()))


def nvidia_pools(spec: dict) -> list[tuple[int, dict]]:
    """``(index, pool)`` of the pools of NVIDIA GPUs."""
    return [(i, p) for i, p in enumerate(spec["nodePools"]) if p.get("gpu", {}).get("vendor") == "nvidia"]


def platform_nvidia_pools(spec: dict, facts: dict) -> list[tuple[int, dict]]:
    """The NVIDIA pools whose driver and device plugin the platform runs and advertises
    (``gpu.nvidia.mode: managed`` on a provider with a ``managedNvidiaStack``), else none."""
    if spec["gpu"]["nvidia"]["mode"] != "managed" or not facts["managedNvidiaStack"]:
        return []
    return nvidia_pools(spec)


def dra_pools(spec: dict) -> dict[str, dict]:
    """The ``allocation: dra`` NVIDIA pools by name."""
    return {
        p["name"]: p for p in spec["nodePools"] if "gpu" in p and p["gpu"]["vendor"] == "nvidia" and is_dra(p["gpu"])
    }


def dra_mig_layout(gpu: dict) -> dict[str, int]:
    """The MIG profiles per GPU a ``dra`` pool's nodes publish ({} with MIG off: whole GPUs)."""
    return gpu["mig"]["profiles"] if gpu["mig"]["strategy"] != "none" else {}


def device_capacity(spec: dict) -> dict[str, int]:
    """Devices each DeviceClass finds at the ``dra`` pools' largest size.

    The kubelet plugin publishes a GPU whole when MIG is off and only its MIG devices when MIG
    is on (cmd/gpu-kubelet-plugin/nvlib.go enumerateGpusAndMigDevices, v25.12.0, static MIG).
    """
    capacity = {GPU_CLASS: 0, MIG_CLASS: 0}
    for pool in dra_pools(spec).values():
        gpu = pool["gpu"]
        if dra_mig_layout(gpu):
            capacity[MIG_CLASS] += sum(gpu["mig"]["profiles"].values()) * gpu["perNode"] * gpu["nodes"]
        else:
            capacity[GPU_CLASS] += gpu["perNode"] * gpu["nodes"]
    return capacity
