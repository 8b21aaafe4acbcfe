"""The cluster's Helm releases inflated for preview: ``charts/<release>/`` in its tree.

Where the project has a chart lock (``clusters/charts.lock``), every release the tree renders
(``charts.releases``: Flux HelmReleases and Argo CD Applications with a chart source) is
inflated from the locked package (``charts.inflate``) with the cluster's facts: its
Kubernetes version, the GA APIs that version serves (``validate.kubernetes.served_apis``) and
the APIs of every CRD the tree and its charts install. The objects go to ``charts/<release>/``,
a folder no kustomization lists, so no engine applies them: the HelmRelease or Application
still installs the chart, and the preview is what review, schemas and rules read.

A project without a lock inflates nothing (``gpu-gitops charts pull`` writes the lock).
"""

from __future__ import annotations

import functools
import hashlib
import marshal
from dataclasses import dataclass, field

from generator.charts import inflate, lock
from generator.charts import served as served_hint
from generator.charts.releases import Release, find
from generator.errors import InputError
from generator.inputs.load import Cluster
from generator.paths import Project
from generator.validate.kubernetes import resolve_version, served_apis

FOLDER = "charts"


@dataclass
class Previews:
    """The preview folders (``charts/<release>`` → objects) and the lock entries they used."""

    folders: dict[str, list[dict]] = field(default_factory=dict)
    entries: list[lock.Entry] = field(default_factory=list)
    releases: dict[str, Release] = field(default_factory=dict)  # by folder
    unlocked: bool = False  # the tree renders releases, but the project has no lock: none inflated
    notes: dict[str, tuple[str, ...]] = field(default_factory=dict)  # by folder: what the preview cannot show


@functools.lru_cache(maxsize=64)
def _package_crds(entry: lock.Entry) -> tuple[tuple[str, ...], frozenset[tuple[str, str]]]:
    """The APIs and cluster-scoped kinds of a locked package's ``crds/``, once per process."""
    apis, cluster = inflate.crd_apis(inflate.package_crds(inflate.package(entry)))
    return tuple(sorted(apis)), frozenset(cluster)


def _crds(objects: list[dict]) -> list[dict]:
    return [
        o
        for o in objects
        if o.get("kind") == "CustomResourceDefinition"
        and str(o.get("apiVersion", "")).startswith("apiextensions.k8s.io/")
    ]


# A chart's CRDs could depend on the API versions it is given; rounds of inflation until the
# versions given are those the installed CRDs serve; two rounds (one, with a hint) settle any
# chart whose CRDs do not themselves depend on the API versions.
ROUNDS = 4


def _inflate_all(
    used: list[tuple[Release, lock.Entry]], version: str, served: set[str], tree_crds: list[dict]
) -> list[list[dict]]:
    """Every release inflated with the cluster's facts: its served APIs, and the APIs of every
    CRD the tree and the releases install, from a chart's ``crds/`` or its ``templates/``.

    In the cluster the engine renders a release with the APIs the API server serves then: once
    the tree is applied, every CRD it installs (KEDA's and Kueue's charts create theirs from
    ``templates/``). The CRDs of ``crds/`` are known before inflating, those of ``templates/``
    only after; a cluster whose charts template CRDs is inflated again with their APIs, until
    the APIs given are exactly those installed (``ROUNDS``). The rounds start from the APIs the
    charts' templated CRDs served last time (``charts.served``), so on a cold inflation cache
    they are inflated once where those did not change."""
    tree_apis, tree_scoped = inflate.crd_apis(tree_crds)
    cold = served | tree_apis  # without hints: what the charts' crds/ install, known in advance
    hinted, hinted_scoped = set(cold), set(tree_scoped)  # with last time's CRDs where kept
    for release, entry in used:
        package_apis, package_scoped = _package_crds(entry) if release.include_crds else ((), frozenset())
        cold |= set(package_apis)
        kept = served_hint.kept(entry)
        hinted |= kept[0] if kept else set(package_apis)
        hinted_scoped |= kept[1] if kept else package_scoped
    facts = inflate.Facts(version, tuple(sorted(served_hint.start(used, hinted, cold))), frozenset(hinted_scoped))
    for _ in range(ROUNDS):
        inflated = [inflate.inflate(release, entry, facts) for release, entry in used]
        chart_apis, chart_scoped = inflate.crd_apis([crd for objects in inflated for crd in _crds(objects)])
        settled = inflate.Facts(
            version, tuple(sorted(served | tree_apis | chart_apis)), frozenset(tree_scoped | chart_scoped)
        )
        if settled == facts:
            served_hint.remember(used, inflated)
            return inflated
        facts = settled
    raise InputError(
        f"the CRDs the charts install change with the API versions they are given ({', '.join(r.name for r, _ in used)}), "
        f"and do not settle in {ROUNDS} inflations",
        hint="set the charts' values so the CRDs they install do not depend on .Capabilities.APIVersions",
    )


def read_lock(project: Project) -> dict | None:
    try:
        return lock.read(project.chart_lock)
    except lock.LockError as exc:
        raise InputError(
            str(exc),
            path=project.display(project.chart_lock),
            hint="restore it from git, or write it again with `gpu-gitops charts pull`",
        ) from None


def previews(project: Project, cluster: Cluster, components: dict[str, list[dict]]) -> Previews:
    """Every release of the cluster inflated; nothing where the project has no chart lock."""
    entries = read_lock(project)
    found = find(components)
    result = Previews()
    if entries is None or not found:
        result.unlocked = bool(found)
        return result
    shown = project.display(project.chart_lock)
    used = [(release, inflate.lock_entry(release, entries, shown)) for release in found]
    tree_crds = _crds([o for objs in components.values() for o in objs])
    version = str(cluster.spec["kubernetesVersion"])
    served = set(served_apis(resolve_version(version)))
    inflated = _inflate_all(used, version, served, tree_crds)
    for (release, entry), objects in zip(used, inflated, strict=True):
        folder = f"{FOLDER}/{release.name}"
        if folder in result.folders:
            raise InputError(
                f"two Helm releases are named {release.name!r} ({result.releases[folder].source}, {release.source})",
                path=project.display(cluster.folder / "cluster.yaml"),
                hint="give each release its own name",
            )
        result.folders[folder] = objects
        result.notes[folder] = inflate.notes(objects)
        result.releases[folder] = release
        result.entries.append(entry)
    return result


# Document schemas of the CRDs a fleet installs, by the digest of the CRD's marshalled bytes (as
# ``yamlio.emit.to_yaml_once``): a CRD the library renders in every cluster's tree, or a chart's
# in every inflation, is converted once per process, and every cluster that installs it is given
# the same documents, so those clusters share one validator with them (``cluster._OVERLAYS``).
# Bounded: emptied when full.
_SCHEMAS: dict[bytes, dict[tuple[str, str], dict]] = {}
_SCHEMAS_MAX = 256


def crd_schemas(charts: Previews, tree: list[dict] | None = None) -> dict[tuple[str, str], dict]:
    """(apiVersion, kind) → document schema of every served version of every CRD the cluster
    installs, as ``schemas import`` converts a CRD: the CRDs of ``tree`` (the objects it renders
    itself, an ``overrides.libsonnet`` component's included) and those of its charts (from
    ``crds/`` or ``templates/``; theirs win where both install a kind). All are applied by the
    same sync, so the custom resources the tree renders are checked against exactly the
    version installed, as ``lint`` of the tree checks them."""
    out: dict[tuple[str, str], dict] = {}
    for objects in [tree or [], *charts.folders.values()]:
        for crd in objects:
            if crd.get("kind") == "CustomResourceDefinition" and str(crd.get("apiVersion")).startswith(
                "apiextensions.k8s.io/"
            ):
                out.update(_converted(crd))
    return out


def _converted(crd: dict) -> dict[tuple[str, str], dict]:
    """The CRD's document schemas by (apiVersion, kind), once per content (``_SCHEMAS``)."""
    from generator.lint.crdimport import document_schema, versions

    try:
        key: bytes | None = hashlib.blake2b(marshal.dumps(crd), digest_size=16).digest()
    except ValueError:  # a type marshal does not write, or nesting too deep for it
        key = None
    known = _SCHEMAS.get(key) if key is not None else None
    if known is None:
        spec = crd.get("spec") or {}
        group, kind = spec.get("group"), (spec.get("names") or {}).get("kind")
        known = {
            (f"{group}/{version}", str(kind)): document_schema(crd, version, schema)
            for version, schema in versions(crd)
        }
        if key is not None:
            if len(_SCHEMAS) >= _SCHEMAS_MAX:
                _SCHEMAS.clear()
            _SCHEMAS[key] = known
    return known
