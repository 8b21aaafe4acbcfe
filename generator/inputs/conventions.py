"""Defaults that are not schema constants (versions, provider conventions), applied after schema defaults.

JSON Schema defaults are constants of the input contract; these are not: provider conventions
depend on the provider (``libsonnet/providers.json``), and versions change with every upstream
release without changing the contract (``libsonnet/versions.json``). Keeping them in one place
means the spec handed to Jsonnet is complete and the components never re-derive them.
"""

from __future__ import annotations

from pathlib import Path

from generator.inputs import queues
from generator.library import providers, versions

# Node-level sysctls every GPU pool gets unless the pool sets them: large socket buffers for
# 25-400 GbE data loading and collective traffic, file handles and PIDs for data-loader
# workers. CPU pools keep the node image's values unless they list their own.
GPU_POOL_SYSCTLS = {
    "net.core.rmem_max": 134217728,
    "net.core.wmem_max": 134217728,
    "fs.file-max": 2097152,
    "kernel.pid_max": 4194304,
}


def gpu_vendors(spec: dict) -> list[str]:
    return sorted({p["gpu"]["vendor"] for p in spec["nodePools"] if "gpu" in p})


def may_get_mig_slices(spec: dict, workload: dict) -> bool:
    """Whether the namespace's GPU pods may run on MIG slices: its quota names MIG profiles, one
    of its DRA claims asks for a MIG profile, or a pool advertises its slices as nvidia.com/gpu
    (strategy single) and the quota allows GPUs."""
    quota = workload["quota"]
    if any(quota.get("mig", {}).values()) or any("mig" in claim for claim in workload.get("claims", [])):
        return True
    single = any(p.get("gpu", {}).get("mig", {}).get("strategy") == "single" for p in spec["nodePools"])
    return single and quota.get("gpus") != 0


# The resource a pool's fabric is advertised under when the input names none. The RDMA shared
# device plugin prefixes each configList entry's resourceName with its resourcePrefix (default
# `rdma`: Mellanox/k8s-rdma-shared-dev-plugin README.md, "Configuration"); the EFA device plugin
# advertises only `vpc.amazonaws.com/efa` (aws-samples/aws-efa-eks, pkg/plugin/efa.go).
FABRIC_RESOURCES = {"infiniband": "rdma/ib", "roce": "rdma/roce", "efa": "vpc.amazonaws.com/efa"}


# The tag the Karpenter getting-started guide puts on the subnets and security groups its nodes
# use (aws/karpenter-provider-aws v1.14.1 website docs/getting-started, EC2NodeClass
# subnetSelectorTerms and securityGroupSelectorTerms `karpenter.sh/discovery: <cluster>`).
DISCOVERY_TAG = "karpenter.sh/discovery"


def _complete_provisioning(provisioning: dict, facts: dict, cluster: str) -> None:
    """A provisioned pool's provider defaults: the first image family the provider's Karpenter
    knows, and on EKS the discovery tag that selects subnets and security groups."""
    karpenter = facts["nodeProvisioning"]
    if karpenter is None:
        return  # refused by IN416
    provisioning["image"].setdefault("family", karpenter["imageFamilies"][0])
    if karpenter["nodeClass"]["kind"] == "EC2NodeClass":
        provisioning["nodeClass"].setdefault("subnetTags", {DISCOVERY_TAG: cluster})
        provisioning["nodeClass"].setdefault("securityGroupTags", {DISCOVERY_TAG: cluster})


def provider_instance(pool: dict, facts: dict) -> bool:
    """Whether the pool's nodes can be the provider's own instances, whose local disks the
    provider's ``localDiskIdPattern`` names: not a GPU pool whose model none of the provider's
    GPU instance types has (``nodeProvisioning.instanceTypes``; an MI300X pool on EKS runs on
    nodes EC2 does not offer, such as hybrid nodes, whose disks are someone else's model)."""
    types = (facts["nodeProvisioning"] or {}).get("instanceTypes", {})
    if "gpu" not in pool or not types:
        return True
    return pool["gpu"].get("model") in {t["gpuModel"] for t in types.values()}


def complete(spec: dict, facts: dict, library: Path, written: dict) -> dict:
    """Fill the version defaults (``library``'s ``versions.json``) and the derived defaults
    (``facts``: the provider's row of its ``providers.json``; ``written``: the input as written,
    before schema defaults) in place and return ``spec``."""
    versions.fill(spec, library)
    _cilium_defaults(spec["network"]["cilium"], facts, written.get("network", {}).get("cilium"))
    spec["gitops"].setdefault("path", f"rendered/{spec['name']}")
    for pool in spec["nodePools"]:
        if "taints" not in pool:
            pool["taints"] = [providers.default_gpu_taint(facts, pool["gpu"]["vendor"])] if "gpu" in pool else []
        if "gpu" in pool:
            pool["sysctls"] = {**GPU_POOL_SYSCTLS, **pool["sysctls"]}
            pool.setdefault("topologyLevels", queues.topology_levels(pool, facts))
        if "provisioning" in pool:
            _complete_provisioning(pool["provisioning"], facts, spec["name"])
        fabric = pool["fabric"]
        if fabric["type"] in FABRIC_RESOURCES:
            fabric.setdefault("resourceName", FABRIC_RESOURCES[fabric["type"]])
        for i, rail in enumerate(fabric.get("networks", [])):
            rail.setdefault("name", str(i))  # a rail's default name is its position (schema)
        nvme = pool.get("localNvme")
        if nvme is not None:
            nvme.setdefault("hostDir", f"/mnt/disks/{nvme['storageClass']}")
            if facts["localDiskIdPattern"] is not None and provider_instance(pool, facts):
                nvme.setdefault("diskIdPattern", facts["localDiskIdPattern"])
    vendors = gpu_vendors(spec)
    for workload in spec["workloads"]:
        if "gpuVendor" not in workload and len(vendors) == 1:
            workload["gpuVendor"] = vendors[0]
        # DCGM reports no DCGM_FI_DEV_GPU_UTIL for MIG instances, only the profiling metrics
        # (NVIDIA/dcgm-exporter issues 216 and 430; DCGM user guide, "Profiling Metrics").
        metric = "DCGM_FI_PROF_GR_ENGINE_ACTIVE" if may_get_mig_slices(spec, workload) else "DCGM_FI_DEV_GPU_UTIL"
        for entry in workload["autoscaling"]:
            entry.setdefault("metric", metric)
        queue = workload.get("queue")
        if queue is not None and "flavors" not in queue:
            flavors = queues.default_flavors(spec, workload)
            if flavors:
                queue["flavors"] = flavors  # otherwise IN508 or IN509 says what is missing
    # ValidatingAdmissionPolicy admissionregistration.k8s.io/v1 is served from Kubernetes 1.30 (GA).
    spec["admission"].setdefault("enabled", int(spec["kubernetesVersion"].split(".")[1]) >= 30)
    spec["admission"].setdefault("enforceGpuTolerations", facts["enforceGpuTolerations"])
    spec["nodeFeatureDiscovery"].setdefault("deploy", facts["nfdDeploy"])
    spec["monitoring"].setdefault("namespace", facts["monitoringNamespace"])
    return spec


def _cilium_defaults(cilium: dict, facts: dict, written: dict | None) -> None:
    """Whether Cilium runs (``ciliumByDefault`` when the input has no ``network.cilium``; a
    written block means Cilium is wanted), and every setting the provider's integration allows
    one value for (``ciliumConstraints``) that the input leaves unset: the schema's generic
    default (tunnel routing, a cluster pool) would only be refused there."""
    cilium.setdefault("enabled", written is not None or facts["ciliumByDefault"])
    for rule in facts["ciliumConstraints"]:
        when = rule.get("when")
        if len(rule["allowed"]) != 1 or _given(written, rule["path"]):
            continue
        if when is not None and _value(cilium, when["path"]) != when["equals"]:
            continue
        *parents, key = rule["path"]
        node = cilium
        for parent in parents:
            node = node[parent]
        node[key] = rule["allowed"][0]


def _given(written: dict | None, path: list[str]) -> bool:
    node: object = written
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return False
        node = node[key]
    return True


def _value(node: dict, path: list[str]) -> object:
    for key in path:
        node = node[key]
    return node
