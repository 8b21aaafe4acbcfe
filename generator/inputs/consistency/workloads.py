"""Workloads: unique namespaces, a known GPU vendor, and quotas the pools can honour."""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.advertised import SHARED_GPU, advertised_per_gpu, gpu_resource
from generator.inputs.conventions import gpu_vendors
from generator.inputs.repeats import repeats
from generator.yamlio.positions import Located


def gpu_capacity(spec: dict, resource: str) -> int:
    """Schedulable units of ``resource`` at the pools' largest size."""
    total = 0
    for pool in spec["nodePools"]:
        gpu = pool.get("gpu")
        # a dra pool's GPUs are devices in ResourceSlices, never extended resources
        if gpu and gpu.get("allocation") != "dra" and gpu_resource(gpu) == resource:
            total += gpu["perNode"] * gpu["nodes"] * advertised_per_gpu(gpu)
    return total


def _egress_problems(spec: dict, doc: Located) -> Iterator[InputError]:
    """Egress the namespace policies cannot give, or that a GPU inference namespace lacks.

    FQDN egress exists only as a CiliumNetworkPolicy ``toFQDNs`` rule. An inference namespace
    with GPUs and no egress but DNS cannot pull its model at start-up, which shows only at
    runtime; writing ``allowEgressTo: []`` says it is meant (models on a volume)."""
    cilium = spec["network"].get("cilium", {}).get("enabled", False)
    for i, workload in enumerate(spec["workloads"]):
        ns = workload["namespace"]
        if workload["allowEgressToApiServer"] and not cilium and not spec["network"]["apiServerCIDRs"]:
            yield doc.error(
                f"workloads[{i}] ({ns}) allows egress to the API server, but without Cilium a NetworkPolicy can "
                "only name its endpoints' addresses, and network.apiServerCIDRs is empty",
                ("workloads", i, "allowEgressToApiServer"),
                "set network.apiServerCIDRs to the addresses of `kubectl get endpointslices -n default -l "
                "kubernetes.io/service-name=kubernetes`, or enable network.cilium",
            )
        if workload["allowEgressToFQDNs"] and not cilium:
            yield doc.error(
                f"workloads[{i}] ({ns}) allows egress to DNS names, which only Cilium's toFQDNs policies can express",
                ("workloads", i, "allowEgressToFQDNs"),
                "enable network.cilium, or list the destinations' CIDRs in allowEgressTo instead",
            )
        written = doc.data.get("workloads", [])[i]
        quota = workload["quota"]
        has_gpus = (
            bool(quota.get("gpus")) or any(quota.get("mig", {}).values()) or any(quota.get("devices", {}).values())
        )
        if (
            workload["type"] == "inference"
            and has_gpus
            and not workload["allowEgressToFQDNs"]
            and "allowEgressTo" not in written
        ):
            yield doc.warning(
                f"GPU inference namespace {ns} declares no egress: its pods reach only DNS and each other, so "
                "model pulls from registries and object stores fail at runtime",
                ("workloads", i, "namespace"),
                'list the model sources in allowEgressToFQDNs (e.g. [huggingface.co, "*.huggingface.co"]) or '
                "allowEgressTo (CIDRs); write allowEgressTo: [] if the models come from a volume",
                at_value=True,
            )


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    yield from _egress_problems(spec, doc)
    vendors = gpu_vendors(spec)
    for i, first, ns in repeats((i, w["namespace"]) for i, w in enumerate(spec["workloads"])):
        yield doc.error(
            f"workload namespace {ns!r} is declared twice (first at workloads[{first}])",
            ("workloads", i, "namespace"),
            "merge the two entries: a namespace has one type, quota and policy set",
            at_value=True,
        )
    for i, workload in enumerate(spec["workloads"]):
        yield from _reserved_namespace(spec, doc, i, workload["namespace"])
        yield from _shared_gpu_quota(spec, doc, i, workload)
        ns = workload["namespace"]
        gpus = workload["quota"].get("gpus")
        if gpus is None:
            continue
        vendor = workload.get("gpuVendor")
        if vendor is None:
            yield doc.error(
                f"workloads[{i}] asks for a GPU quota but the cluster has "
                + ("no GPU node pools" if not vendors else f"GPUs of several vendors ({', '.join(vendors)})"),
                ("workloads", i, "quota", "gpus"),
                "add a GPU node pool" if not vendors else "set workloads[].gpuVendor to nvidia or amd",
            )
            continue
        capacity = gpu_capacity(spec, f"{vendor}.com/gpu")
        if gpus > capacity:
            shared = gpu_capacity(spec, SHARED_GPU) if vendor == "nvidia" else 0
            yield doc.error(
                f"workloads[{i}] ({ns}) quota asks for {gpus} {vendor} GPUs; the node pools have {capacity}",
                ("workloads", i, "quota", "gpus"),
                f"the time-sliced pools with renameByDefault advertise {shared} {SHARED_GPU}, which quota.gpus "
                "does not count: quota them with quota.sharedGpus"
                if shared
                else "lower quota.gpus, or raise nodePools[].gpu.nodes / perNode to the pools' real size",
                at_value=True,
            )


# Namespaces of the platform itself: Kubernetes' own (kube-system, kube-public, kube-node-lease)
# and OpenShift's (every openshift-* namespace belongs to a cluster operator). A workload
# namespace renders default-deny, a quota and Pod Security labels onto its namespace. The
# namespaces gpu-gitops's components render are refused after evaluation (generator/render/collisions.py).
_RESERVED_PREFIXES = ("kube-", "openshift-")
# Namespaces that are not a team's to isolate, each with the reason: ``default`` (where every
# object without a namespace lands, the ``kubernetes`` Service's EndpointSlices included), the
# GitOps engines' own whichever engine this cluster uses (Flux's ``flux-system``, Argo CD's
# ``argocd``: docs/gitops.md), and the documented prerequisites' (README "What the cluster must
# already run": cert-manager's chart installs into ``cert-manager``; Karpenter's getting-started
# guide installs into ``karpenter`` or ``kube-system``).
_RESERVED_NAMES = {
    "default": "is where every object without a namespace lands, the API server's own `kubernetes` Service "
    "included: default-deny there cuts off whatever else runs in it",
    "openshift": "holds OpenShift's shared templates and image streams",
    "flux-system": "is Flux's own: default-deny there cuts the GitOps engine off from the repository and the API",
    "argocd": "is Argo CD's own: default-deny there cuts the GitOps engine off from the repository and the API",
    "cert-manager": "is cert-manager's, a documented prerequisite (the AMD GPU Operator's webhooks take their "
    "certificates from it)",
    "karpenter": "is Karpenter's, a documented prerequisite of provisioned pools: default-deny there stops "
    "node provisioning",
}


def _reserved_namespace(spec: dict, doc: Located, i: int, ns: str) -> Iterator[InputError]:
    """A workload namespace must be the team's: not the platform's, its prerequisites' or Prometheus's."""
    at = ("workloads", i, "namespace")
    hint = (
        "give the workload a namespace of its own (not default, kube-*, openshift-*, an engine's or a prerequisite's)"
    )
    if ns.startswith(_RESERVED_PREFIXES):
        yield doc.error(
            f"workloads[{i}] namespace {ns!r} belongs to the platform: its default-deny policies, quota and "
            "Pod Security labels would land on the cluster's own components",
            at,
            hint,
            at_value=True,
        )
    elif ns in _RESERVED_NAMES:
        yield doc.error(
            f"workloads[{i}] namespace {ns!r} is not a team's to isolate: it {_RESERVED_NAMES[ns]}",
            at,
            hint,
            at_value=True,
        )
    elif ns == spec["monitoring"]["namespace"]:
        yield doc.error(
            f"workloads[{i}] namespace {ns!r} is monitoring.namespace: its default-deny policies would cut "
            "Prometheus off from every target",
            at,
            "give the workload a namespace of its own, or set monitoring.namespace to where Prometheus runs",
            at_value=True,
        )


def _shared_gpu_quota(spec: dict, doc: Located, i: int, workload: dict) -> Iterator[InputError]:
    """``quota.sharedGpus`` against what the renamed time-sliced pools advertise."""
    shared = workload["quota"].get("sharedGpus")
    if shared is None:
        return
    capacity = gpu_capacity(spec, SHARED_GPU)
    if shared > capacity:
        yield doc.error(
            f"workloads[{i}] ({workload['namespace']}) quota asks for {shared} {SHARED_GPU}; "
            f"the node pools advertise {capacity}",
            ("workloads", i, "quota", "sharedGpus"),
            "lower quota.sharedGpus, or raise the time-sliced pools' nodes / perNode / replicas"
            if capacity
            else f"only NVIDIA pools with timeSlicing.renameByDefault: true advertise {SHARED_GPU}; "
            "quota other GPUs with quota.gpus",
            at_value=True,
        )
