"""A release's objects, as the engine would apply them: ``helm template`` of the locked package
with what the engine passes, turned into sorted plain objects, cached by everything that
decides them.

The cache key is the chart's digest, the release name and namespace, the values, the cluster's
version, the API versions, the CRD policy and the Helm version: a fleet whose clusters share a
release inflates it once, and a no-op render reads JSON instead of running Helm. The cache is
``<cache>/inflated/<key>.json``, written in one rename.

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
differ, so its values can ask for certificates from cert-manager or a CronJob instead.
"""

from __future__ import annotations

import base64
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

from generator.charts import helm, lock, store
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
_SEPARATOR = re.compile(r"^---[ \t]*$", re.M)


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
            version,
        ],
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(material.encode()).hexdigest()


# Inflations already read in this process, by key: a fleet's clusters that share a release share
# its objects (never changed once inflated), so each is read, emitted and validated once.
_SEEN: dict[str, list[dict]] = {}


def inflate(release: Release, entry: lock.Entry, facts: Facts) -> list[dict]:
    """The release's objects, sorted; from the cache when this exact inflation was done before.
    The objects are shared with every caller that asks for the same inflation: never change them."""
    found = helm.find()
    key = _key(entry, release, facts, found.version)
    if key in _SEEN:
        return _SEEN[key]
    data = package(entry)
    cached = cache_root() / "inflated" / f"{key}.json"
    try:
        _SEEN[key] = json.loads(cached.read_bytes())
        return _SEEN[key]
    except (OSError, ValueError):
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
    with tempfile.TemporaryDirectory(prefix="gpu-gitops-chart-") as folder:
        chart = os.path.join(folder, f"{entry.chart}-{entry.version}.tgz")
        with open(chart, "wb") as handle:
            handle.write(data)
        first = helm.template(found, chart, invocation, what)
        second = helm.template(found, chart, invocation, what)
    objects = _objects(first, release, facts, what)
    again = _objects(second, release, facts, what) if second != first else objects
    if again != objects:
        differ = sorted(_shown(o) for o, p in zip(objects, again, strict=False) if o != p)
        raise InputError(
            f"{what} renders differently each time it is inflated ({', '.join(differ[:3]) or 'its objects'}): "
            "it generates certificates or random values outside a Secret, so its preview would change on "
            "every render",
            hint="set the chart's values so it does not generate them (certificates from cert-manager or "
            "a CronJob, fixed names), as docs/charts.md describes",
        )
    _store(cached, objects)
    _SEEN[key] = objects
    return objects


def _store(cached: Path, objects: list[dict]) -> None:
    """Keep an inflation; a cache that cannot be written only costs time."""
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        partial = cached.with_name(f"{cached.name}.{os.getpid()}.part")
        partial.write_text(json.dumps(objects, sort_keys=True, separators=(",", ":")), encoding="utf-8")
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
