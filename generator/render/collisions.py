"""What two components would both own: a workload namespace that a component renders into, and
any object rendered twice (same group, kind, namespace and name).

A workload namespace gets a Namespace object with its own Pod Security labels, default-deny
NetworkPolicies and a quota; in a namespace a component also renders (gpu-operator, keda, the
engine's flux-system or argocd), the engine applies two Namespace objects with different labels
from two layers and flaps between them (Argo CD shows the namespace shared by two Applications),
and the component's pods lose their network and may be refused. Two objects with one identity
are one object to the API server: whichever layer applies last wins, and pruning one deletes
the other's.
"""

from __future__ import annotations

from generator.errors import InputError, InputErrors
from generator.inputs.load import Cluster
from generator.paths import Project

# The library's components that render into the workload namespaces by design (a cluster's own
# components, from its overrides.libsonnet, may too: docs/overrides.md).
WORKLOAD_COMPONENTS = frozenset(
    {"workload-isolation", "autoscaling", "gpu-claims", "queues", "nccl-test", "fabric-networks"}
)


def _group(obj: dict) -> str:
    api = str(obj.get("apiVersion", ""))
    return api.split("/")[0] if "/" in api else ""


def _namespaces_used(obj: dict) -> set[str]:
    """The namespaces an object lives in or installs into (a Helm release's target namespace)."""
    used = set()
    meta = obj.get("metadata", {})
    if obj.get("kind") == "Namespace":
        used.add(meta.get("name"))
    if meta.get("namespace"):
        used.add(meta["namespace"])
    spec = obj.get("spec") or {}
    if obj.get("kind") == "HelmRelease" and spec.get("targetNamespace"):
        used.add(spec["targetNamespace"])
    if obj.get("kind") == "Application" and (spec.get("destination") or {}).get("namespace"):
        used.add(spec["destination"]["namespace"])
    return used


def check(project: Project, cluster: Cluster, placed: list[tuple[str, list[dict]]], own: list[str]) -> None:
    """Raise the located errors for ``placed`` = [(component, objects)], in apply order; ``own``
    names the cluster's own components."""
    errors = _namespace_errors(cluster, [(c, objects) for c, objects in placed if c not in own])
    if errors:
        raise InputErrors(errors)
    seen: dict[tuple, str] = {}
    for component, objects in placed:
        for obj in objects:
            meta = obj.get("metadata", {})
            key = (_group(obj), obj.get("kind"), meta.get("namespace") or "", meta.get("name"))
            first = seen.setdefault(key, component)
            if first != component:
                group, kind, namespace, name = key
                what = f"{kind} {namespace + '/' if namespace else ''}{name}" + (f" ({group})" if group else "")
                raise InputError(
                    f"{what} is rendered by both {first!r} and {component!r}: the API server keeps one object, "
                    "which the two would overwrite and prune in turn",
                    path=project.display(cluster.overrides or cluster.folder / "cluster.yaml"),
                    hint="rename or remove one of them (an overrides.libsonnet may hide one with `::`)",
                )


def _namespace_errors(cluster: Cluster, placed: list[tuple[str, list[dict]]]) -> list[InputError]:
    owners: dict[str, str] = {}
    for component, objects in placed:
        if component in WORKLOAD_COMPONENTS:
            continue
        for obj in objects:
            for ns in sorted(_namespaces_used(obj)):
                owners.setdefault(ns, component)
    errors = []
    for i, workload in enumerate(cluster.spec["workloads"]):
        ns = workload["namespace"]
        if ns in owners:
            errors.append(
                cluster.source.error(
                    f"workloads[{i}] namespace {ns!r} is also used by the {owners[ns]!r} component: two Namespace "
                    "objects with different Pod Security labels, and default-deny policies on its pods",
                    ("workloads", i, "namespace"),
                    "give the workload a namespace of its own",
                    at_value=True,
                )
            )
    return errors
