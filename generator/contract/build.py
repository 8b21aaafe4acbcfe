"""A cluster's contract for ``lint --cluster``: built from its completed input and its rendered tree.

From the input (``load_cluster``: validated, defaults and conventions filled in): the
Kubernetes version, the provider, each pool's taints and what one of its nodes advertises,
counted as the device plugins advertise it (``gpu.advertisedPerNode`` in
``libsonnet/lib/gpu.libsonnet``, mirrored by ``inputs.advertised``), and huge pages.
From the rendered tree (what Jsonnet made of the same input, kept fresh by ``gpu-gitops
check``), the objects whose names and rules the library decides: Namespaces, ResourceQuotas,
StorageClasses, PriorityClasses, RuntimeClasses, DeviceClasses, NetworkAttachmentDefinitions
and the admission policies with their bindings. Reading them, rather than computing them again, keeps one source for
each: the admission rules lint applies are the policy's own CEL. No Jsonnet runs.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ruamel.yaml.error import YAMLError

from generator.contract.model import Contract, Policy, Pool, Taint
from generator.contract.queues import QUEUE_KINDS, queue_contract
from generator.errors import InputError
from generator.inputs.advertised import GPU_CLASS, MIG_CLASS, is_dra, pool_offers
from generator.inputs.load import Cluster
from generator.yamlio import read

# The GPU Operator's ClusterPolicy creates RuntimeClass ``nvidia`` when it deploys the container
# toolkit (NVIDIA/gpu-operator controllers/object_controls.go, transformRuntimeClass; the
# default ``operator.runtimeClass: nvidia`` of deployments/gpu-operator/values.yaml, v25.3).
_OPERATOR_RUNTIME_CLASS = "nvidia"
# The DeviceClasses the NVIDIA DRA driver's chart installs (NVIDIA/k8s-dra-driver-gpu v25.12.0,
# deployments/helm/nvidia-dra-driver-gpu/templates/deviceclass-*.yaml): GPUs and MIG devices
# (advertised.GPU_CLASS, MIG_CLASS), and with ComputeDomains (resources.computeDomains.enabled)
# the daemon and channel classes.
# Where the tree has the charts inflated (``charts/``, render.charts), the DeviceClass objects
# there are read like the rest, and this copy is not used (it is for a project without a chart
# lock; the inflated driver also installs ``vfio.gpu.nvidia.com``).
_DRA_CHART = "nvidia-dra-driver-gpu"
_PREVIEWS = "charts"
_COMPUTE_DOMAIN_CLASSES = ("compute-domain-daemon.nvidia.com", "compute-domain-default-channel.nvidia.com")
_NAMED = {
    "StorageClass": "storage_classes",
    "PriorityClass": "priority_classes",
    "RuntimeClass": "runtime_classes",
    "DeviceClass": "device_classes",
    "Namespace": "namespaces",
}
# The kinds ``build`` reads. A rendered file is named after its object's kind
# (``render.layout.object_filename``: the kind in lower case, then ``_``), so only their files
# are parsed: a fifth of a tree.
_KINDS = (
    *_NAMED,
    "ResourceQuota",
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding",
    "HelmRelease",
    "Application",
    *QUEUE_KINDS,
    "ResourceClaimTemplate",
    "ComputeDomain",
    "NetworkAttachmentDefinition",
)
_FILE_PREFIXES = tuple(f"{kind.lower()}_" for kind in _KINDS)


def build(cluster: Cluster, rendered: Path) -> Contract:
    """The contract of ``cluster``, whose tree is at ``rendered`` (``rendered/<name>``)."""
    spec = cluster.spec
    if not rendered.is_dir():
        raise InputError(
            f"cluster {cluster.name} has no rendered tree to lint against",
            path=str(rendered),
            hint="run `gpu-gitops render` first (lint --cluster reads the rendered classes, quotas and policies)",
        )
    pools = []
    for pool in spec["nodePools"]:
        offers, open_prefix = pool_offers(pool)
        pools.append(
            Pool(
                pool["name"],
                tuple(Taint(t["key"], str(t.get("value", "")), t["effect"]) for t in pool.get("taints", [])),
                tuple(sorted(offers.items())),
                open_prefix,
                pool.get("gpu", {}).get("nodes", 0),
                is_dra(pool.get("gpu", {})),
                tuple(sorted((k, str(v)) for k, v in pool.get("nodeSelector", {}).items())),
            )
        )
    named: dict[str, set[str]] = {field: set() for field in _NAMED.values()}
    if spec["gpu"].get("nvidia", {}).get("mode") == "operator":
        named["runtime_classes"].add(_OPERATOR_RUNTIME_CLASS)
    quotas: dict[str, dict[str, str]] = {}
    queue_objects: list[dict] = []
    policies: dict[str, dict] = {}
    bindings: list[dict] = []
    templates: set[str] = set()
    attachments: set[str] = set()
    for obj in _objects(rendered):
        kind, meta = obj.get("kind"), obj.get("metadata") or {}
        if kind == "NetworkAttachmentDefinition":
            attachments.add(f"{meta.get('namespace', '')}/{meta.get('name', '')}")
        elif kind == "ResourceClaimTemplate":
            templates.add(f"{meta.get('namespace', '')}/{meta.get('name', '')}")
        elif kind == "ComputeDomain":  # the DRA driver generates the domain's channel template
            channel = ((obj.get("spec") or {}).get("channel") or {}).get("resourceClaimTemplate") or {}
            if channel.get("name"):
                templates.add(f"{meta.get('namespace', '')}/{channel['name']}")
        if kind in _NAMED:
            named[_NAMED[kind]].add(meta.get("name", ""))
        elif kind == "ResourceQuota":
            hard = (obj.get("spec") or {}).get("hard") or {}
            quotas.setdefault(meta.get("namespace", ""), {}).update({k: str(v) for k, v in hard.items()})
        elif kind == "ValidatingAdmissionPolicy":
            policies[meta.get("name", "")] = obj.get("spec") or {}
        elif kind == "ValidatingAdmissionPolicyBinding":
            bindings.append(obj.get("spec") or {})
        elif kind in QUEUE_KINDS:
            queue_objects.append(obj)
        elif kind in ("HelmRelease", "Application") and not (rendered / _PREVIEWS).is_dir():
            named["device_classes"] |= set(_chart_device_classes(obj.get("spec") or {}))
            named["namespaces"] |= set(_release_namespace(obj.get("spec") or {}))
    return Contract(
        cluster=cluster.name,
        kubernetes_version=spec["kubernetesVersion"],
        provider=spec.get("provider", ""),
        pools=tuple(pools),
        namespaces=tuple(sorted(named["namespaces"])),
        quotas=tuple((ns, tuple(sorted(hard.items()))) for ns, hard in sorted(quotas.items())),
        storage_classes=tuple(sorted(named["storage_classes"])),
        priority_classes=tuple(sorted(named["priority_classes"])),
        runtime_classes=tuple(sorted(named["runtime_classes"])),
        device_classes=tuple(sorted(named["device_classes"])),
        claim_templates=tuple(sorted(templates)),
        attachments=tuple(sorted(attachments)),
        policies=tuple(_policies(policies, bindings)),
        queues=queue_contract(queue_objects),
    )


def _release_namespace(spec: dict) -> tuple[str, ...]:
    """The namespace a chart release has its engine create (Flux ``install.createNamespace``,
    Argo CD ``CreateNamespace=true``), where other components render objects too (Kueue's
    ServiceMonitor in kueue-system)."""
    if (spec.get("install") or {}).get("createNamespace") and spec.get("targetNamespace"):
        return (str(spec["targetNamespace"]),)
    options = (spec.get("syncPolicy") or {}).get("syncOptions") or []
    target = (spec.get("destination") or {}).get("namespace")
    if "CreateNamespace=true" in options and target:
        return (str(target),)
    return ()


def _chart_device_classes(spec: dict) -> tuple[str, ...]:
    """The DeviceClasses a Flux HelmRelease or Argo CD Application of the DRA driver's chart installs."""
    flux = ((spec.get("chart") or {}).get("spec") or {}).get("chart")
    source = spec.get("source") or {}
    if _DRA_CHART not in (flux, source.get("chart")):
        return ()
    values = spec.get("values") or (source.get("helm") or {}).get("valuesObject") or {}
    domains = ((values.get("resources") or {}).get("computeDomains") or {}).get("enabled", True)
    return (GPU_CLASS, MIG_CLASS) + (_COMPUTE_DOMAIN_CLASSES if domains else ())


def _policies(policies: dict[str, dict], bindings: list[dict]) -> list[Policy]:
    """Each bound policy with the namespaces its bindings select by name (the library binds
    by ``kubernetes.io/metadata.name In [...]``; a binding without a namespace selector binds
    every namespace)."""
    found = []
    for binding in bindings:
        name = binding.get("policyName", "")
        if name not in policies:
            continue
        selector = (binding.get("matchResources") or {}).get("namespaceSelector") or {}
        namespaces: list[str] = []
        for expression in selector.get("matchExpressions") or []:
            if expression.get("key") == "kubernetes.io/metadata.name" and expression.get("operator") == "In":
                namespaces += expression.get("values") or []
        actions = tuple(binding.get("validationActions") or ("Deny",))
        found.append(Policy(name, policies[name], tuple(namespaces), actions))
    return found


def _objects(rendered: Path) -> Iterator[dict]:
    """The objects of the kinds the contract reads in a rendered tree (one per file, named as
    ``layout`` names them)."""
    for path in sorted(rendered.rglob("*.yaml")):
        if not path.name.startswith(_FILE_PREFIXES) or "bootstrap" in path.relative_to(rendered).parts:
            continue
        try:  # a document the backends hand over (an anchor, a tag) is read by the full loader
            obj = read.load_data(path.read_text(encoding="utf-8"), read.GO_YAML, read.MANIFESTS.depth)
        except (UnicodeDecodeError, read.TooDeep, YAMLError) as exc:
            raise InputError(
                f"cannot read a rendered file: {(str(exc).splitlines() or [type(exc).__name__])[0]}",
                path=str(path),
                hint="render it again with `gpu-gitops render`, and commit the result",
            ) from None
        if isinstance(obj, dict):
            yield obj
