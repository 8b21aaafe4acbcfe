"""A release's objects, as the engine would apply them: ``helm template`` of the locked package
with what the engine passes, turned into sorted plain objects, cached by everything that
decides them.

The cache key is the chart's digest, the release name and namespace, the values, the cluster's
version, the API versions and cluster-scoped custom kinds, the CRD policy and the Helm version: a fleet whose clusters share a
release inflates it once, and a no-op render reads JSON instead of running Helm. The cache is
``<cache>/inflated/<key>.json``, written in one rename; beside it ``<key>.<emitter>.yaml.json``
holds the objects' YAML (``texts``), so a render whose inflations are cached emits none.

Namespaced objects without ``metadata.namespace`` get the release's namespace, as Helm's kube
client (helm-controller) and Argo CD's apply do; which kinds are cluster-scoped comes from the
built-in table below and the CRDs the tree and the charts install.

A Secret's values are never written: a chart's Secrets hold generated keys and certificates
(Cilium's Hubble and CA certificates, made with ``genCA`` where the chart's ``lookup`` of the
existing Secret finds nothing, as under ``helm template``) or credentials, which must not be
committed, and which differ on every inflation. Their keys stay, each value replaced by
``REDACTED`` (base64 of a notice under ``data``, the notice under ``stringData``), so a review
still shows a Secret added, removed or given a new key.

Any other part of a chart that renders differently each time (certificates made by ``genCA``/``genSelfSignedCert``,
``randAlphaNum``, ``uuidv4``, ``now``) cannot be previewed: every render would change the tree.
Each inflation that is not cached runs twice and refuses such a chart, naming the objects that
differ and the templates that make new values (``offline``), so its values can ask for
certificates from cert-manager or a CronJob instead.

Where the preview is deterministic but not what the cluster gets, the inflation keeps a warning
(``notes``, cached with it): an API the chart tests that the render does not pass (the second
run passes them, so it costs a third only when the objects depend on them), a ``lookup`` its
values reach in a template that renders more than Secrets, a version compared at a patch level.
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import hashlib
import io
import json
import os
import re
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator import regex
from generator.charts import helm, lock, offline, store
from generator.charts.releases import Release
from generator.errors import InputError
from generator.paths import cache_root

# `kubectl api-resources --namespaced=false` of Kubernetes 1.34 (kube-apiserver's built-in
# groups), by (group, kind); every other built-in kind is namespaced.
CLUSTER_SCOPED = frozenset(
    {
        ("", "Namespace"),
        ("", "Node"),
        ("", "PersistentVolume"),
        ("", "ComponentStatus"),
        ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"),
        ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"),
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"),
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"),
        ("admissionregistration.k8s.io", "MutatingAdmissionPolicy"),
        ("admissionregistration.k8s.io", "MutatingAdmissionPolicyBinding"),
        ("apiextensions.k8s.io", "CustomResourceDefinition"),
        ("apiregistration.k8s.io", "APIService"),
        ("certificates.k8s.io", "CertificateSigningRequest"),
        ("certificates.k8s.io", "ClusterTrustBundle"),
        ("flowcontrol.apiserver.k8s.io", "FlowSchema"),
        ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"),
        ("networking.k8s.io", "IngressClass"),
        ("networking.k8s.io", "IPAddress"),
        ("networking.k8s.io", "ServiceCIDR"),
        ("node.k8s.io", "RuntimeClass"),
        ("rbac.authorization.k8s.io", "ClusterRole"),
        ("rbac.authorization.k8s.io", "ClusterRoleBinding"),
        ("resource.k8s.io", "DeviceClass"),
        ("resource.k8s.io", "ResourceSlice"),
        ("resource.k8s.io", "DeviceTaintRule"),
        ("scheduling.k8s.io", "PriorityClass"),
        ("storage.k8s.io", "CSIDriver"),
        ("storage.k8s.io", "CSINode"),
        ("storage.k8s.io", "StorageClass"),
        ("storage.k8s.io", "VolumeAttachment"),
        ("storage.k8s.io", "VolumeAttributesClass"),
    }
)
HOOK = "helm.sh/hook"
REDACTED = "value not shown: a Secret's values are never committed (gpu-gitops)"
REDACTED_B64 = base64.b64encode(REDACTED.encode()).decode()
_SEPARATOR = regex.compile(r"^---[ \t]*$", re.M)


@dataclass(frozen=True)
class Facts:
    """What the engine knows of the cluster when it inflates: its version (``1.32``), the API
    versions it serves (``group/version`` and ``group/version/Kind``, the CRDs included), and
    which custom kinds are cluster-scoped."""

    kube_version: str
    api_versions: tuple[str, ...]
    cluster_scoped: frozenset[tuple[str, str]]


def lock_entry(release: Release, entries: dict | None, lock_shown: str) -> lock.Entry:
    """The lock's entry for the release's chart; one error naming the chart and ``charts pull``
    when it has none."""
    entry = (entries or {}).get((release.repository, release.chart, release.version))
    if entry is None:
        raise InputError(
            f"chart {release.chart} {release.version} ({release.repository}) of {release.source} "
            f"is not in {lock_shown}",
            path=lock_shown,
            hint="run `gpu-gitops charts pull` to fetch it and record its digest",
        )
    return entry


def package(entry: lock.Entry) -> bytes:
    """The locked package from the cache; one error naming the chart and ``charts pull`` when it
    is not there."""
    data = store.read(entry.hex)
    if data is None:
        raise InputError(
            f"chart {entry.chart} {entry.version} ({entry.repository}) is not in the chart cache ({store.folder()})",
            hint="run `gpu-gitops charts pull` (or `gpu-gitops charts pull --from DIR` with a folder of "
            "chart packages) to fetch it; render, check, diff and lint never download",
        )
    return data


def package_crds(data: bytes) -> list[dict]:
    """The CRDs in a package's ``crds/`` folders (its own and its subcharts'), which Helm
    installs before the templates: their APIs are served when the templates are applied."""
    found = []
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        for member in sorted(archive.getmembers(), key=lambda m: m.name):
            parts = member.name.split("/")
            # <chart>/crds/x.yaml or <chart>/charts/<sub>/crds/x.yaml (a templates/crds/ is templated)
            top = len(parts) == 3 or (len(parts) >= 5 and parts[-4] == "charts")
            if not member.isfile() or not top or parts[-2] != "crds" or not member.name.endswith((".yaml", ".yml")):
                continue
            handle = archive.extractfile(member)
            text = handle.read().decode("utf-8") if handle else ""
            for chunk in _SEPARATOR.split(text):
                obj = _load(chunk) if chunk.strip() else None
                if isinstance(obj, dict) and obj.get("kind") == "CustomResourceDefinition":
                    found.append(obj)
    return found


def crd_apis(crds: list[dict]) -> tuple[set[str], set[tuple[str, str]]]:
    """The API versions (``group/version``, ``group/version/Kind``) the CRDs serve, and the
    (group, kind) of those that are cluster-scoped."""
    apis, cluster = set(), set()
    for crd in crds:
        spec = crd.get("spec", {})
        group, kind = spec.get("group", ""), spec.get("names", {}).get("kind", "")
        for version in spec.get("versions", []):
            if version.get("served", True):
                apis |= {f"{group}/{version['name']}", f"{group}/{version['name']}/{kind}"}
        if spec.get("scope") == "Cluster":
            cluster.add((group, kind))
    return apis, cluster


def _key(entry: lock.Entry, release: Release, facts: Facts, version: str) -> str:
    material = json.dumps(
        [
            entry.digest,
            release.name,
            release.namespace,
            release.include_crds,
            release.values,
            facts.kube_version,
            facts.api_versions,
            sorted(facts.cluster_scoped),
            version,
        ],
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(material.encode()).hexdigest()


# Inflations already read in this process, by key: a fleet's clusters that share a release share
# its objects (never changed once inflated), so each is read, emitted and validated once. Kept
# for the whole process, so the id of a list here is never reused (``_KEYS``).
_SEEN: dict[str, list[dict]] = {}
_KEYS: dict[int, str] = {}  # id of a list in _SEEN → its key
_TEXTS: dict[str, list[str]] = {}  # key → the YAML of each object
_NOTES: dict[str, tuple[str, ...]] = {}  # key → the inflation's warnings (``notes``)


def _seen(key: str, objects: list[dict]) -> list[dict]:
    _SEEN[key] = objects
    _KEYS[id(objects)] = key
    return objects


def inflate(release: Release, entry: lock.Entry, facts: Facts) -> list[dict]:
    """The release's objects, sorted; from the cache when this exact inflation was done before.
    The objects are shared with every caller that asks for the same inflation: never change them.
    What the preview cannot show of the cluster is in ``notes``."""
    found = helm.find()
    key = _key(entry, release, facts, found.version)
    if key in _SEEN:
        return _SEEN[key]
    data = package(entry)
    cached = cache_root() / "inflated" / f"{key}.json"
    try:
        kept = json.loads(cached.read_bytes())
        _NOTES[key] = tuple(kept["notes"])
        return _seen(key, kept["objects"])
    except (OSError, ValueError, TypeError, KeyError):
        pass
    invocation = helm.Invocation(
        release=release.name,
        namespace=release.namespace,
        kube_version=f"{facts.kube_version}.0",
        api_versions=facts.api_versions,
        include_crds=release.include_crds,
        values_json=json.dumps(release.values, sort_keys=True),
    )
    what = f"{release.source} (chart {entry.chart} {entry.version})"
    sites = offline.scan(data)
    # the APIs the chart tests that the render does not pass: the second run, which proves the
    # chart renders the same each time, passes them too, so one more run is needed only when the
    # chart's objects depend on them
    untested = sorted({s.api for s in sites if s.call == offline.HAS and s.api} - set(facts.api_versions))
    probe = dataclasses.replace(invocation, api_versions=tuple(sorted({*facts.api_versions, *untested})))
    notes: list[str] = []
    with tempfile.TemporaryDirectory(prefix="gpu-gitops-chart-") as folder:
        chart = os.path.join(folder, f"{entry.chart}-{entry.version}.tgz")
        with open(chart, "wb") as handle:
            handle.write(data)
        first = _template(found, chart, invocation, what, sites)
        objects = _objects(first, release, facts, what)
        failed = ""  # what Helm said when the chart fails with the APIs it tests
        try:
            second = helm.template(found, chart, probe if untested else invocation, what)
            again = _objects(second, release, facts, what) if second != first else objects
        except InputError as exc:  # only the APIs differ from the first run: the chart fails with them
            if not untested:
                raise
            again, failed, second = [], exc.message, ""
        if (again != objects or failed) and untested:
            third = helm.template(found, chart, invocation, what)
            if third == first or _objects(third, release, facts, what) == objects:
                changed = _differing(objects, again)
                notes.append(_served_note(what, sites, untested, changed, _sources(f"{first}\n---\n{second}"), failed))
                again = objects
            else:
                again = _objects(third, release, facts, what)
        if again != objects:
            differ = sorted(_shown(o) for o in _differing(objects, again))
            makers = [s for s in sites if s.call in offline.GENERATORS or s.call == offline.LOOKUP]
            raise InputError(
                f"{what} renders differently each time it is inflated ({', '.join(differ[:3]) or 'its objects'}): "
                "it generates certificates or random values outside a Secret, so its preview would change on "
                "every render" + (f"; its templates call {offline.shown(makers)}" if makers else ""),
                hint="set the chart's values so it does not generate them (certificates from cert-manager or "
                "a CronJob, fixed names), as docs/charts.md describes",
            )
        if any(s.call == offline.LOOKUP for s in sites):
            notes += _lookup_notes(found, data, folder, invocation, first, what)
    notes += _version_notes(what, sites, facts)
    _store(cached, {"objects": objects, "notes": notes})
    _NOTES[key] = tuple(notes)
    return _seen(key, objects)


def notes(objects: list[dict]) -> tuple[str, ...]:
    """What ``inflate`` found the preview of these objects cannot show of the cluster (a
    ``lookup`` reached, an API the chart tests that the render does not pass): warnings."""
    key = _KEYS.get(id(objects))
    return _NOTES.get(key, ()) if key is not None and _SEEN.get(key) is objects else ()


def _template(
    found: helm.Helm, chart: str, invocation: helm.Invocation, what: str, sites: tuple[offline.Site, ...]
) -> str:
    """``helm template``; where it fails and the chart calls ``lookup``, the error names the
    calls: offline ``lookup`` finds nothing (Cilium's ``k8sServiceHost: auto`` then fails)."""
    try:
        return helm.template(found, chart, invocation, what)
    except InputError as exc:
        lookups = [s for s in sites if s.call == offline.LOOKUP]
        if not lookups:
            raise
        raise InputError(
            exc.message,
            hint=f"offline, `lookup` finds nothing: the chart calls it ({offline.shown(lookups)}); set the "
            "values so the chart does not read the cluster (Cilium: an explicit k8sServiceHost, not `auto`)",
            detail=exc.detail,
        ) from None


def _differing(objects: list[dict], again: list[dict]) -> list[dict]:
    """The objects of one inflation that the other does not hold as they are."""
    return [o for o in objects if o not in again] + [o for o in again if o not in objects]


def _served_note(
    what: str,
    sites: tuple[offline.Site, ...],
    untested: list[str],
    differ: list[dict],
    sources: dict[tuple[str, str], str],
    failed: str,
) -> str:
    """The warning for a chart whose objects depend on APIs the render does not pass: the tests
    in the templates of the objects that differ (all of them where those hold none: a helper's)."""
    tests = [s for s in sites if s.call == offline.HAS and s.api in untested]
    files = {sources.get((str(o.get("kind")), str(o.get("metadata", {}).get("name")))) for o in differ}
    tests = [s for s in tests if s.file in files] or tests
    if failed:
        effect = f"fails ({failed})"
    else:
        shown = sorted({_shown(o) for o in differ})
        effect = f"renders {', '.join(shown[:4])}{' and more' if len(shown) > 4 else ''} differently"
    return (
        f"{what} tests for APIs this cluster does not serve as rendered ({offline.shown(tests)}): the preview "
        f"is what it renders without them; where the cluster serves them (a CRD installed outside the tree), "
        f"the chart {effect}"
    )


def _sources(manifests: str) -> dict[tuple[str, str], str]:
    """(kind, name) → the template that rendered it (Helm's ``# Source:`` line)."""
    found = {}
    for chunk in _SEPARATOR.split(manifests):
        source = _SOURCE.search(chunk)
        obj = _load(chunk) if source else None
        if isinstance(obj, dict):
            found[(str(obj.get("kind")), str((obj.get("metadata") or {}).get("name")))] = source.group(1)  # type: ignore[union-attr]
    return found


def _version_notes(what: str, sites: tuple[offline.Site, ...], facts: Facts) -> list[str]:
    """A chart that compares ``.Capabilities.KubeVersion`` at a patch level, or tests APIs by a
    value not in its templates: the render passes ``<minor>.0`` and the tree's APIs."""
    found = []
    patch = [s for s in sites if s.call == offline.KUBE_VERSION]
    if patch:
        found.append(
            f"{what} compares the Kubernetes version at a patch level ({offline.shown(patch)}): the preview "
            f"renders it for {facts.kube_version}.0, the cluster for the patch release it runs"
        )
    unknown = [s for s in sites if s.call == offline.HAS and not s.api]
    if unknown:
        found.append(
            f"{what} tests .Capabilities.APIVersions with a value its templates do not spell out "
            f"({offline.shown(unknown)}): the preview answers with the APIs the render passes and Helm's own list"
        )
    return found


_SOURCE = regex.compile(r"^# Source: (\S+)", re.M)
# a template position in Helm's error, as Helm 3 ("template: c/templates/x.yaml:6:15: executing")
# and Helm 4 ("c/templates/x.yaml:6:15\n  executing") write it: the first is the top-level template
_POSITION = regex.compile(r"([^\s:]+/templates/[^\s:]+):(\d+):\d+")
_ARITY = "wrong number of args for fail"


def _lookup_notes(
    found: helm.Helm, data: bytes, folder: str, invocation: helm.Invocation, first: str, what: str
) -> list[str]:
    """The templates whose objects depend on a ``lookup`` these values reach, beyond Secrets.

    Offline ``lookup`` finds nothing, so the preview is what a first install renders; in the
    cluster Helm renders each upgrade with what it finds. Secrets need no word (their values are
    never written); for the rest, the chart is rendered again with each ``lookup`` made to stop
    Helm (``offline.disarmed``) and the templates that only render Secrets left out: Helm names
    the top-level template that reached one, which is left out in turn, until none does."""
    kinds: dict[str, set[str]] = {}
    for chunk in _SEPARATOR.split(first):
        source = _SOURCE.search(chunk)
        obj = _load(chunk) if source and chunk.strip() else None
        if source and isinstance(obj, dict):
            kinds.setdefault(source.group(1), set()).add(f"{_group(obj)}/{obj.get('kind')}")
    root = os.path.join(folder, "disarmed")
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        archive.extractall(root, filter="data")
    templates = sorted(
        os.path.relpath(os.path.join(d, f), root).replace(os.sep, "/")
        for d, _, files in os.walk(root)
        for f in files
        if "/templates/" in os.path.join(d, f)
    )
    for name in templates:
        path = os.path.join(root, name)
        if kinds.get(name) == {"/Secret"}:
            os.remove(path)  # renders only Secrets: redacted, as a first install's
            continue
        try:
            text = Path(path).read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        Path(path).write_text(offline.disarmed(text), encoding="utf-8")
    chart = os.path.join(root, templates[0].split("/")[0]) if templates else root
    found_notes = []
    for _ in templates:
        try:
            helm.template(found, chart, invocation, what)
            break
        except InputError as exc:
            at = _POSITION.findall(exc.detail)
            if not at or _ARITY not in exc.detail:
                found_notes.append(
                    f"{what} calls lookup; which of its objects depend on what it finds could not be told"
                )
                break
            top = at[0][0]
            objects = ", ".join(sorted(kinds.get(top, set()))) or "nothing offline"
            found_notes.append(
                f"{what}: {top} reaches lookup ({at[-1][0]}:{at[-1][1]}), which finds nothing offline: the preview "
                f"shows what a first install renders ({objects}); in the cluster Helm renders each upgrade with the "
                "live object it finds"
            )
            os.remove(os.path.join(root, top))
    return found_notes


@functools.cache
def _emitter() -> str:
    """The identity of the YAML emitter: its module's bytes and ruamel.yaml's version (the
    bytes of what it does not model are ruamel's)."""
    import ruamel.yaml

    from generator.yamlio import emit

    return hashlib.sha256(Path(emit.__file__).read_bytes() + ruamel.yaml.__version__.encode()).hexdigest()[:32]


def texts(objects: list[dict]) -> list[str]:
    """The canonical YAML of each of ``inflate``'s objects (``yamlio.emit.to_yaml``): emitted
    once, and cached beside the inflation under the emitter's identity, so a render whose
    inflations are cached emits none of them (a CRD can be megabytes of YAML). Objects that are
    not an inflation's, as given, are emitted."""
    from generator.yamlio.emit import to_yaml, to_yaml_once

    key = _KEYS.get(id(objects))
    if key is None or _SEEN.get(key) is not objects:
        return [to_yaml(o) for o in objects]
    if key in _TEXTS:
        return _TEXTS[key]
    cached = cache_root() / "inflated" / f"{key}.{_emitter()}.yaml.json"
    try:
        found = json.loads(cached.read_bytes())
        if isinstance(found, list) and len(found) == len(objects) and all(isinstance(t, str) for t in found):
            _TEXTS[key] = found
            return found
    except (OSError, ValueError):
        pass
    _TEXTS[key] = [to_yaml_once(o) for o in objects]
    _store(cached, _TEXTS[key])
    return _TEXTS[key]


def _store(cached: Path, data: list | dict) -> None:
    """Keep an inflation or its texts; a cache that cannot be written only costs time."""
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        partial = cached.with_name(f"{cached.name}.{os.getpid()}.part")
        partial.write_text(json.dumps(data, sort_keys=True, separators=(",", ":")), encoding="utf-8")
        partial.replace(cached)
    except OSError:
        pass


def _shown(obj: dict) -> str:
    meta = obj.get("metadata", {})
    where = f"{meta['namespace']}/" if meta.get("namespace") else ""
    return f"{obj.get('kind')} {where}{meta.get('name')}"


def _group(obj: dict) -> str:
    return str(obj.get("apiVersion", "")).rpartition("/")[0]


def _load(text: str) -> Any:
    """One YAML document as the API server reads it (YAML 1.1, ``yamlio.read``); ruamel for what
    that reader leaves to it (anchors, complex keys)."""
    from generator.yamlio.read import load_data

    return load_data(text)


def _redact(secret: dict) -> None:
    for field, notice in (("data", REDACTED_B64), ("stringData", REDACTED)):
        if isinstance(secret.get(field), dict):
            secret[field] = {key: notice for key in secret[field]}


def _objects(manifests: str, release: Release, facts: Facts, what: str) -> list[dict]:
    """Helm's output as plain objects (YAML 1.1 as the API server reads it), namespaced ones in
    the release's namespace, sorted by group, kind, namespace and name."""
    objects = []
    for chunk in _SEPARATOR.split(manifests):
        obj = _load(chunk) if chunk.strip() else None
        if obj is None:
            continue
        if not isinstance(obj, dict) or not obj.get("kind") or not obj.get("apiVersion"):
            raise InputError(f"{what}: helm template gave a document that is not a Kubernetes object: {chunk[:120]!r}")
        meta = obj.setdefault("metadata", {})
        if _group(obj) == "" and obj["kind"] == "Secret":
            _redact(obj)
        scoped = (_group(obj), obj["kind"]) in CLUSTER_SCOPED or (_group(obj), obj["kind"]) in facts.cluster_scoped
        if not scoped and not meta.get("namespace"):
            meta["namespace"] = release.namespace
        objects.append(obj)
    return sorted(
        objects,
        key=lambda o: (_group(o), o["kind"], o["metadata"].get("namespace", ""), str(o["metadata"].get("name"))),
    )
