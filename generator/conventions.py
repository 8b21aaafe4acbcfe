"""Defaults that depend on other fields (provider conventions), applied after schema defaults.

JSON Schema defaults are constants; these are not. Keeping them in one place means the spec
handed to Jsonnet is complete and the components never re-derive them.
"""

from __future__ import annotations

# Taint a provider's GPU node pools carry by convention (GKE adds value "present" itself).
_GPU_TAINT_VALUE = {"gke": "present", "aks": None, "eks": None, "openshift": None, "generic": None}

# OpenShift ships NFD as an OLM operator (the chart's hostPath worker is not admitted by the
# restricted-v2 SCC), so there the NodeFeatureRules are rendered for the NFD that is already running.
_NFD_DEPLOY = {"openshift": "external"}

# Instance-store NVMe disks by their /dev/disk/by-id name: udev links `nvme-<model>_<serial>`
# (systemd 60-persistent-storage.rules; amazon-ec2-utils 70-ec2-nvme-devices.rules adds
# `...-ns-N`, spaces replaced by `_`). AWS: the model of instance store volumes is "Amazon EC2
# NVMe Instance Storage" (EC2 User Guide, "SSD instance store volumes"), of EBS volumes "Amazon
# Elastic Block Store" (amazon-ec2-utils ebsnvme-id, AMZN_NVME_EBS_MN). Azure: local NVMe disks
# are "Microsoft NVMe Direct Disk" (v2 on v6 sizes; learn.microsoft.com/azure/virtual-machines/
# enable-nvme-temp-faqs), remote disks are not.
INSTANCE_STORE_DISK_IDS = {
    "eks": "nvme-Amazon_EC2_NVMe_Instance_Storage_*",
    "aks": "nvme-Microsoft_NVMe_Direct_Disk_*",
}


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


def default_gpu_taint(provider: str, vendor: str) -> dict:
    taint = {"key": f"{vendor}.com/gpu", "effect": "NoSchedule"}
    value = _GPU_TAINT_VALUE[provider]
    if value:
        taint["value"] = value
    return taint


def complete(spec: dict) -> dict:
    """Fill the derived defaults in place and return ``spec``."""
    spec["gitops"].setdefault("path", f"rendered/{spec['name']}")
    for pool in spec["nodePools"]:
        if "taints" not in pool:
            pool["taints"] = [default_gpu_taint(spec["provider"], pool["gpu"]["vendor"])] if "gpu" in pool else []
        if "gpu" in pool:
            pool["sysctls"] = {**GPU_POOL_SYSCTLS, **pool["sysctls"]}
        nvme = pool.get("localNvme")
        if nvme is not None:
            nvme.setdefault("hostDir", f"/mnt/disks/{nvme['storageClass']}")
            if spec["provider"] in INSTANCE_STORE_DISK_IDS:
                nvme.setdefault("diskIdPattern", INSTANCE_STORE_DISK_IDS[spec["provider"]])
    vendors = gpu_vendors(spec)
    for workload in spec["workloads"]:
        if "gpuVendor" not in workload and len(vendors) == 1:
            workload["gpuVendor"] = vendors[0]
    # ValidatingAdmissionPolicy admissionregistration.k8s.io/v1 is served from Kubernetes 1.30 (GA).
    spec["admission"].setdefault("enabled", int(spec["kubernetesVersion"].split(".")[1]) >= 30)
    spec["admission"].setdefault("enforceGpuTolerations", spec["provider"] != "gke")
    spec["nodeFeatureDiscovery"].setdefault("deploy", _NFD_DEPLOY.get(spec["provider"], "helm"))
    return spec
