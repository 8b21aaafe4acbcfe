"""Kueue's account of the input: the ClusterQueue resource of each accelerator quota key, what
each GPU pool supplies of them, a queue's flavors where the input leaves them to the pools, and
the most a queue can ever hold.

Only data and arithmetic: ``conventions`` fills the flavors, the consistency checks
(``consistency/queues``) and lint's contract read the same account, and
``libsonnet/components/queues.libsonnet`` names the resources the same way.

Kueue covers only these accelerator resources (its ``quotaCheckStrategy: IgnoreUndeclared``):
CPU, memory, huge pages and pods stay with the namespace's ResourceQuota alone, so no resource
has two limits that could disagree (docs/queues.md).
"""

from __future__ import annotations

from generator.inputs.advertised import GPU_CLASS, MIG_CLASS, SHARED_GPU, advertised_per_gpu, gpu_resource, is_dra

# The resource name a DeviceClass's devices are counted under in a ClusterQueue (Kueue's
# `resources.deviceClassMappings`, KueueDRAIntegration, beta and on in v0.19): `<class>/devices`.
DEVICE_SUFFIX = "/devices"

# Kueue's `default` LocalQueue: a job without `kueue.x-k8s.io/queue-name` in a managed namespace
# that has one is put in it (kubernetes-sigs/kueue v0.19.2 pkg/controller/constants
# DefaultLocalQueueName; jobframework ApplyDefaultLocalQueue; LocalQueueDefaulting is GA).
DEFAULT_QUEUE = "default"

# Where Kueue's queue label and topology requests live (kubernetes-sigs/kueue v0.19.2
# pkg/controller/constants QueueLabel; apis/kueue/v1beta2/topology_types.go).
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
TOPOLOGY_ANNOTATIONS = ("kueue.x-k8s.io/podset-required-topology", "kueue.x-k8s.io/podset-preferred-topology")

# The level every Topology ends with, and the NVLink domain NVIDIA's GPU feature discovery
# labels GB200 NVL72 nodes with (<ClusterUUID>.<CliqueID>; NVIDIA/k8s-device-plugin gpu-feature-
# discovery, set once the fabric manager reports the node's NVLink fabric complete).
HOSTNAME = "kubernetes.io/hostname"
CLIQUE = "nvidia.com/gpu.clique"


def device_resource(device_class: str) -> str:
    return device_class + DEVICE_SUFFIX


def resources(amounts: dict, vendor: str | None) -> dict[str, int]:
    """ClusterQueue resource → units of a quota-shaped mapping (gpus, sharedGpus, mig, devices)."""
    out: dict[str, int] = {}
    if "gpus" in amounts and vendor:
        out[f"{vendor}.com/gpu"] = amounts["gpus"]
    if "sharedGpus" in amounts:
        out[SHARED_GPU] = amounts["sharedGpus"]
    for profile, count in (amounts.get("mig") or {}).items():
        out[f"nvidia.com/mig-{profile}"] = count
    for device_class, count in (amounts.get("devices") or {}).items():
        out[device_resource(device_class)] = count
    return out


def supply(pool: dict) -> dict[str, int]:
    """ClusterQueue resource → units the whole pool (at its largest) offers; {} for a CPU pool."""
    gpu = pool.get("gpu")
    if not gpu:
        return {}
    gpus = gpu["perNode"] * gpu["nodes"]
    mig = gpu.get("mig", {})
    if is_dra(gpu):
        if mig.get("strategy", "none") != "none":
            return {device_resource(MIG_CLASS): sum(mig["profiles"].values()) * gpus}
        return {device_resource(GPU_CLASS): gpus}
    if mig.get("strategy") == "mixed":
        return {f"nvidia.com/mig-{p}": n * gpus for p, n in mig["profiles"].items()}
    if gpu["vendor"] == "amd" and gpu.get("resourceNaming", "single") != "single":
        return {}
    return {gpu_resource(gpu): gpus * advertised_per_gpu(gpu)}


def suppliers(spec: dict, resource: str) -> list[str]:
    """Names of the GPU pools that supply ``resource``, in input order."""
    return [p["name"] for p in spec["nodePools"] if supply(p).get(resource)]


def accelerator_quota(workload: dict) -> dict:
    """The accelerator keys of the workload's quota, the ones a queue's nominal quota takes."""
    quota = workload["quota"]
    return {k: quota[k] for k in ("gpus", "sharedGpus", "mig", "devices") if quota.get(k) not in (None, {})}


def default_flavors(spec: dict, workload: dict) -> list[dict] | None:
    """The flavors of a queue that names none: the quota on the one pool that supplies each of
    its accelerator resources; None when a resource has no supplier or several (the
    consistency checks say which)."""
    vendor = workload.get("gpuVendor")
    by_pool: dict[str, dict] = {}
    for key, value in accelerator_quota(workload).items():
        parts = value.items() if isinstance(value, dict) else [(None, value)]
        for sub, count in parts:
            amounts = {key: {sub: count}} if sub is not None else {key: count}
            names = list(resources(amounts, vendor))
            pools = suppliers(spec, names[0]) if names else []
            if len(pools) != 1:
                return None
            merged = by_pool.setdefault(pools[0], {})
            if sub is None:
                merged[key] = count
            else:
                merged.setdefault(key, {})[sub] = count
    order = [p["name"] for p in spec["nodePools"]]
    return [{"pool": name, "quota": by_pool[name]} for name in sorted(by_pool, key=order.index)]


def topology_levels(pool: dict, facts: dict) -> list[str]:
    """Node labels of the pool's Topology, outermost first; [] when the pool has none beyond
    the node itself (no Topology is rendered: a flavor without one is admitted by quota alone)."""
    levels = list(facts["topologyLevels"])
    if pool.get("gpu", {}).get("multiNodeNVLink"):
        levels.append(CLIQUE)
    return [*levels, HOSTNAME] if levels else []


def ceiling(queue: dict, vendor: str | None) -> dict[str, int]:
    """ClusterQueue resource → the most the queue can ever hold, summed over its flavors:
    nominal quota plus borrowing limit (0 where none is given)."""
    total: dict[str, int] = {}
    for flavor in queue.get("flavors") or []:
        borrow = resources(flavor.get("borrowingLimit") or {}, vendor)
        for resource, nominal in resources(flavor["quota"], vendor).items():
            total[resource] = total.get(resource, 0) + nominal + borrow.get(resource, 0)
    return total
