"""A release shipped as plain objects: ``gitops.charts.<release>: handover | hydrated``.

**hydrated**: the engine's object (Flux HelmRelease and its HelmRepository, Argo CD Application)
leaves the tree, and the release's inflated objects take its place in the component's folder
and layer (every chart component is in ``00-crds-operators``, the CRD layer), applied by the
layer's Kustomization or Application like any other object: what was reviewed is byte for byte
what is applied. A release whose engine created its namespace (Flux ``install.createNamespace``,
Argo CD ``CreateNamespace=true``) gets that Namespace, never pruned (deleting it deletes
everything in it).

**handover**: the step between the two, in either direction, so that neither engine deletes or
restarts what runs:

- the engine's object stays, inert: a Flux HelmRelease ``spec.suspend: true`` (helm-controller
  v1.6.3 ``internal/controller/helmrelease_controller.go``: a suspended HelmRelease is not
  reconciled, and ``reconcileDelete`` uninstalls "only ... if the resource is not suspended"),
  an Argo CD Application without ``syncPolicy.automated`` (it syncs nothing by itself; without
  the ``resources-finalizer.argocd.argoproj.io`` finalizer, which the library never sets, its
  deletion leaves its resources: Argo CD "App Deletion", non-cascade);
- the release's objects are in the layer, with the engine's keep-on-removal annotation
  (kustomize-controller skips ``kustomize.toolkit.fluxcd.io/prune: disabled`` in its garbage
  collection; Argo CD ``Prune=false``), so they stay when they later leave the layer, and with
  Helm's ownership metadata (label ``app.kubernetes.io/managed-by: Helm``, annotations
  ``meta.helm.sh/release-name`` and ``meta.helm.sh/release-namespace``), which Helm requires to
  adopt an existing object into a release (helm ``pkg/action/validate.go``, "invalid ownership
  metadata" otherwise) and puts on every object it installs: applying them changes nothing on
  objects Helm installed, and lets a later install (back to preview) take them over.

The objects are the preview's, so their pod templates are the ones running: the switch restarts
nothing. helm-controller's own labels (``helm.toolkit.fluxcd.io/name``, ``/namespace``, added by
its ``OriginLabels`` post-renderer to the top-level ``metadata.labels`` only) stay on the live
objects, owned by helm-controller's field manager, until someone removes them. The review
names a switch that skips the hand-over as a danger (``review.handover``); docs/charts.md has
the steps for both engines.
"""

from __future__ import annotations

import copy

from generator.charts.inflate import HOOK, REDACTED, REDACTED_B64
from generator.charts.releases import ARGO_APPLICATION, FLUX_RELEASE, FLUX_REPOSITORY, Release
from generator.inputs.load import Cluster
from generator.paths import Project
from generator.render.charts import Previews

PREVIEW, HANDOVER, HYDRATED = "preview", "handover", "hydrated"
MANAGED_BY = "app.kubernetes.io/managed-by"
RELEASE_NAME = "meta.helm.sh/release-name"
RELEASE_NAMESPACE = "meta.helm.sh/release-namespace"
KEEP = {
    "flux": {"kustomize.toolkit.fluxcd.io/prune": "disabled"},
    "argocd": {"argocd.argoproj.io/sync-options": "Prune=false,Delete=false"},
}


def modes(cluster: Cluster) -> dict[str, str]:
    """``gitops.charts``: release name → mode, as the input sets it (preview by default)."""
    return dict((cluster.spec.get("gitops") or {}).get("charts") or {})


def apply(project: Project, cluster: Cluster, components: dict[str, list[dict]], charts: Previews) -> set[str]:
    """Ship each release as its mode says, changing ``components`` and ``charts`` in place;
    the components whose release is hydrated (their folder holds the chart's objects)."""
    wanted = modes(cluster)
    if not wanted:
        return set()
    by_name = {release.name: (folder, release) for folder, release in charts.releases.items()}
    for name, mode in sorted(wanted.items()):
        if mode != PREVIEW and name not in by_name:
            raise cluster.source.error(
                f"gitops.charts names release {name!r}, which this cluster does not inflate"
                + (
                    ""
                    if project.chart_lock.is_file()
                    else f" (the project has no {project.display(project.chart_lock)})"
                ),
                ("gitops", "charts", name),
                hint="name a Helm release the cluster renders ("
                + (", ".join(sorted(by_name)) or "none")
                + "), and lock its chart with `gpu-gitops charts pull`",
            )
    hydrated = set()
    for name, mode in sorted(wanted.items()):
        if mode == PREVIEW:
            continue
        folder, release = by_name[name]
        objects = charts.folders.pop(folder)
        _no_secret_values(cluster, release, objects)
        _no_hooks(cluster, release, objects)
        own = components[release.component]
        engine = _engine_object(own, release)
        if mode == HANDOVER:
            own[own.index(engine)] = _inert(engine, release.engine)
            objects = [_handed_over(o, release) for o in objects]
        else:
            own.remove(engine)
            own[:] = [o for o in own if not _unused_repository(o, engine, components)]
            hydrated.add(release.component)
        objects = objects + _namespace(engine, release, components, objects)
        _no_clash(cluster, release, own, objects)
        own.extend(objects)
    return hydrated


def _engine_object(objects: list[dict], release: Release) -> dict:
    for obj in objects:
        meta = obj.get("metadata", {})
        if f"{obj.get('kind')} {meta.get('namespace', '')}/{meta.get('name')}" == release.source:
            return obj
    raise AssertionError(f"{release.source} is not in component {release.component}")


def _identity(obj: dict) -> tuple[str, str]:
    return (str(obj.get("apiVersion", "")).rpartition("/")[0], str(obj.get("kind")))


def _inert(engine: dict, kind: str) -> dict:
    """The engine's object that installs, upgrades and uninstalls nothing."""
    inert = copy.deepcopy(engine)
    if kind == "flux":
        inert["spec"]["suspend"] = True
    else:
        inert["spec"].get("syncPolicy", {}).pop("automated", None)
    return inert


def _handed_over(obj: dict, release: Release) -> dict:
    """A chart object kept on removal and carrying Helm's ownership metadata."""
    handed = copy.deepcopy(obj)
    meta = handed["metadata"]
    meta["labels"] = {**(meta.get("labels") or {}), MANAGED_BY: "Helm"}
    meta["annotations"] = {
        **(meta.get("annotations") or {}),
        RELEASE_NAME: release.name,
        RELEASE_NAMESPACE: release.namespace,
        **KEEP[release.engine],
    }
    return handed


def _unused_repository(obj: dict, engine: dict, components: dict[str, list[dict]]) -> bool:
    """The Flux HelmRepository the removed HelmRelease read its chart from, when no other
    HelmRelease reads from it."""
    if _identity(obj) != FLUX_REPOSITORY or _identity(engine) != FLUX_RELEASE:
        return False
    ref = engine["spec"]["chart"]["spec"]["sourceRef"]
    meta = obj["metadata"]
    if (meta.get("name"), meta.get("namespace")) != (
        ref.get("name"),
        ref.get("namespace", engine["metadata"]["namespace"]),
    ):
        return False
    return not any(
        _identity(o) == FLUX_RELEASE
        and o is not engine
        and o["spec"]["chart"]["spec"]["sourceRef"].get("name") == meta.get("name")
        for objs in components.values()
        for o in objs
    )


def _creates_namespace(engine: dict) -> bool:
    spec = engine.get("spec", {})
    if _identity(engine) == ARGO_APPLICATION:
        return "CreateNamespace=true" in (spec.get("syncPolicy") or {}).get("syncOptions", [])
    return bool((spec.get("install") or {}).get("createNamespace"))


def _namespace(engine: dict, release: Release, components: dict[str, list[dict]], objects: list[dict]) -> list[dict]:
    """The release's Namespace, where its engine created it and nothing else renders it: kept
    on removal whatever the mode, as a pruned Namespace takes everything in it along."""
    if not _creates_namespace(engine):
        return []
    rendered = [o for objs in components.values() for o in objs] + objects
    if any(_identity(o) == ("", "Namespace") and o["metadata"].get("name") == release.namespace for o in rendered):
        return []
    return [
        {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {"name": release.namespace, "annotations": dict(KEEP[release.engine])},
        }
    ]


def _no_secret_values(cluster: Cluster, release: Release, objects: list[dict]) -> None:
    """A Secret whose values the preview redacts cannot be applied: refuse to hydrate it."""
    for obj in objects:
        if _identity(obj) != ("", "Secret"):
            continue
        values = list((obj.get("data") or {}).values()) + list((obj.get("stringData") or {}).values())
        if any(v in (REDACTED, REDACTED_B64) for v in values):
            raise cluster.source.error(
                f"release {release.name} cannot be applied as plain objects: its chart renders Secret "
                f"{obj['metadata'].get('namespace', '')}/{obj['metadata']['name']} with values (generated keys or "
                "credentials), which are never written to the tree",
                ("gitops", "charts", release.name),
                hint="set the release's values so the chart renders no Secret values (certificates from "
                "cert-manager or a CronJob: docs/charts.md), or keep it in preview",
            )


def _no_hooks(cluster: Cluster, release: Release, objects: list[dict]) -> None:
    """A Helm hook cannot be applied as a plain object: refuse to hydrate a chart that renders one.

    The engines run a hook only around an install, upgrade, rollback or uninstall of the release
    (helm ``pkg/action``; Argo CD maps some to its own sync hooks), and Helm never applies it with
    the release's other objects. Applied by a layer, a hook runs at once (a ``pre-delete`` Job, as
    the GPU Operator's and NFD's charts have, deletes what the release installed), and a hook Job
    changed by a chart bump cannot be applied over the one that ran (its pod template is immutable)."""
    hooks = [
        f"{o['kind']} {o['metadata'].get('namespace', '')}/{o['metadata'].get('name')} ({annotations[HOOK]})"
        for o in objects
        if HOOK in (annotations := o["metadata"].get("annotations") or {})
    ]
    if hooks:
        raise cluster.source.error(
            f"release {release.name} cannot be applied as plain objects: its chart renders Helm hooks, "
            f"which only an install, upgrade or uninstall of the release runs: {', '.join(hooks[:3])}"
            + (f" and {len(hooks) - 3} more" if len(hooks) > 3 else ""),
            ("gitops", "charts", release.name),
            hint="set the release's values so the chart renders no hooks, or keep it in preview (docs/charts.md)",
        )


def _no_clash(cluster: Cluster, release: Release, own: list[dict], objects: list[dict]) -> None:
    """A chart object that the component renders itself too would be applied twice."""

    def key(o: dict) -> tuple:
        return (*_identity(o), o["metadata"].get("namespace", ""), o["metadata"].get("name"))

    mine = {key(o) for o in own}
    both = sorted(f"{k[1]} {k[2] + '/' if k[2] else ''}{k[3]}" for k in (key(o) for o in objects) if k in mine)
    if both:
        raise cluster.source.error(
            f"release {release.name}'s chart renders {', '.join(both[:3])}, which component {release.component} "
            "renders too",
            ("gitops", "charts", release.name),
            hint="keep the release in preview, or leave the object to the chart in the component",
        )
