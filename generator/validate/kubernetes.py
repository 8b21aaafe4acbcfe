"""Strict Kubernetes JSON Schemas for a cluster version, from the kubernetes-validate package.

The package ships ``v<X.Y>.0-local-strict/<kind>-<group>-<version>.json`` files whose
``$ref``s point at one ``_definitions.json`` per version: everything is on disk, nothing is
fetched.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Iterator, Mapping

from generator import addresses, regex
from generator.errors import InputError
from generator.paths import plain

TYPE_CHECKING = False  # typing's flag without importing typing (PEP 781; mypy reads it as True)
if TYPE_CHECKING:
    from importlib.machinery import ModuleSpec

_VERSION_DIR = ("v", ".0-local-strict")  # v<X.Y>.0-local-strict, a version's folder


@functools.cache
def schema_root() -> str:
    """The folder holding one strict schema tree per Kubernetes minor version.

    Found without importing ``kubernetes_validate`` (which imports PyYAML: a tenth of a
    second that a lint answered from its cache would otherwise spend)."""
    spec = _find_spec("kubernetes_validate")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("kubernetes_validate is not installed", name="kubernetes_validate")
    return plain(list(spec.submodule_search_locations)[0], "kubernetes-json-schema")


def _find_spec(name: str) -> ModuleSpec | None:
    """``importlib.util.find_spec`` of a top-level module, as it finds one: the loaded module's
    spec, else the first the import system's finders give. Why not it: importing
    ``importlib.util`` brings ``contextlib`` and ``importlib._abc`` (1.4 ms and 29 pages of a
    lint after an edit, ``python bench/bench_import_cost.py importlib.util --after re,json``)."""
    module = sys.modules.get(name)
    if module is not None:
        return module.__spec__
    for finder in sys.meta_path:
        spec = finder.find_spec(name, None)
        if spec is not None:
            return spec
    return None


@functools.cache
def bundled_versions() -> tuple[tuple[int, int], ...]:
    """Minor versions with bundled strict schemas, oldest first."""
    found = []
    prefix, suffix = _VERSION_DIR
    for name in os.listdir(schema_root()):
        version = (
            _numbers(name[len(prefix) : -len(suffix)], 2) if name.startswith(prefix) and name.endswith(suffix) else None
        )
        if version is not None:
            found.append(version)
    return tuple(sorted(found))


# The names of versions and schemas are read by hand, not by patterns: ``re`` compiles in Python,
# ~0.2 ms a pattern, and a lint after an edit reads a version and the names of its kinds once
# (``tests/validate/test_validate.py`` holds each reading equal to the pattern it replaces).


def _numbers(text: str, count: int) -> tuple[int, int] | None:
    """The first two of ``count`` runs of decimal digits joined by dots (``\\d+`` of ``re``:
    Unicode's decimal digits, which ``int`` reads), else None."""
    parts = text.split(".")
    if len(parts) != count or not all(part.isdecimal() for part in parts):
        return None
    return int(parts[0]), int(parts[1])


def parse_version(text: str) -> tuple[int, int]:
    """``1.32``, ``1.32.4`` or ``v1.32`` → ``(1, 32)``; anything else is an input error."""
    given = str(text).strip()  # v?(\d+)\.(\d+)(?:\.\d+)?
    given = given[1:] if given.startswith("v") else given
    version = _numbers(given, 2) or _numbers(given, 3)
    if version is None:
        raise InputError(
            f"invalid Kubernetes version {text!r}",
            hint="use MAJOR.MINOR or MAJOR.MINOR.PATCH, e.g. 1.32 or 1.32.4",
        )
    return version


def resolve_version(text: str) -> tuple[int, int]:
    """The newest bundled minor version not newer than ``text``."""
    wanted = parse_version(text)
    versions = bundled_versions()
    usable = [v for v in versions if v <= wanted]
    if not usable or wanted > versions[-1]:
        lo, hi = versions[0], versions[-1]
        raise InputError(
            f"no bundled Kubernetes schemas for {wanted[0]}.{wanted[1]}",
            hint=f"supported versions are {lo[0]}.{lo[1]} to {hi[0]}.{hi[1]}",
        )
    return usable[-1]


def newest_version() -> str:
    major, minor = bundled_versions()[-1]
    return f"{major}.{minor}"


def version_dir(version: tuple[int, int]) -> str:
    return os.path.join(schema_root(), f"v{version[0]}.{version[1]}.0-local-strict")


# Kubernetes names a kind (lowercased) and a version with DNS-1035 labels and a group with a DNS-1123
# subdomain (k8s.io/apiextensions-apiserver, pkg/apis/apiextensions/validation/validation.go,
# ValidateCustomResourceDefinitionNames and ...Spec; the built-in groups follow the same rule).
# A schema can only exist for such names: any other (too long for a file name, holding "/" or
# "..", or characters a URL would read differently) is never looked up.
def nameable(api_version: str, kind: str) -> bool:
    """Whether ``apiVersion``/``kind`` are names Kubernetes can serve, and so can name a schema file."""
    group, _, version = api_version.rpartition("/")
    label = addresses.dns1035_label
    return (
        label(kind.lower()) and label(version) and (not group or (len(group) <= 253 and addresses.dns_subdomain(group)))
    )


def builtin_schema(version: tuple[int, int], api_version: str, kind: str) -> str | None:
    """The bundled strict schema for ``apiVersion``/``kind``, or None: a custom resource, or
    names no schema can have (and that could not name a file: too long, or holding "/")."""
    if not nameable(api_version, kind):
        return None
    # rbac.authorization.k8s.io/v1 -> rbac-v1; v1 -> v1 (the package's naming); at most
    # 3 labels of 63 characters, well inside a file name
    group, _, api = api_version.rpartition("/")  # one slash at most: nameable
    suffix = f"{group.split('.', 1)[0]}-{api}" if group else api
    path = os.path.join(version_dir(version), f"{kind.lower()}-{suffix}.json")
    # the file name keeps only the group's first label, and the package writes a file for every
    # definition, kinds or not: scheduling.incubator.k8s.io/v1alpha1 PodGroup (Volcano's) would
    # find scheduling.k8s.io's PodGroup struct of 1.35; the schema's own group-version-kind decides
    return path if os.path.isfile(path) and (group, api, kind) in _kinds_of(path) else None


@functools.cache
def _kinds_of(path: str) -> frozenset[tuple[str, str, str]]:
    """The ``(group, version, kind)``s a bundled schema file is the schema of (none for a
    definition that is no kind)."""
    listed = _json(path).get("x-kubernetes-group-version-kind") or []
    return frozenset(
        (g.get("group", ""), g.get("version", ""), g.get("kind", "")) for g in listed if isinstance(g, dict)
    )


# Fields the published OpenAPI lists as ``required`` but the API server never requires: its
# validation accepts them empty, or its defaulting (``SetDefaults_*`` in each group's
# ``pkg/apis/<group>/<version>/defaults.go``, run before validation) fills them in. The schemas
# follow what the API server enforces, so these are dropped from ``required``. The defaulting
# functions of every group with a kind bundled here were read against the ``required`` lists
# of 1.25 to 1.37; those not named below default only fields the OpenAPI leaves optional
# (admissionregistration/v1 has no default for ``sideEffects`` or ``admissionReviewVersions``,
# networking/v1 none for ``pathType``, apiextensions/v1 none for ``scope``).
# definition -> (field, source)
NOT_ENFORCED_REQUIRED: dict[str, tuple[tuple[str, str], ...]] = {
    "io.k8s.api.rbac.v1.RoleRef": (
        (
            "apiGroup",
            "kubernetes pkg/apis/rbac/v1/defaults.go, SetDefaults_RoleBinding and SetDefaults_ClusterRoleBinding: "
            "an empty roleRef.apiGroup becomes rbac.authorization.k8s.io; the OpenAPI lists it required up to 1.35",
        ),
    ),
    "io.k8s.api.storage.v1.CSIDriver": (
        (
            "spec",
            "kubernetes pkg/apis/storage/v1/defaults.go, SetDefaults_CSIDriver: every field of an absent spec "
            "(attachRequired, podInfoOnMount, storageCapacity, requiresRepublish, fsGroupPolicy, "
            "volumeLifecycleModes) is defaulted, so a CSIDriver without spec is valid",
        ),
    ),
    "io.k8s.api.apps.v1.StatefulSetSpec": (
        (
            "serviceName",
            "kubernetes#130233 (v1.33): serviceName was marked required in the OpenAPI but apps validation "
            "(pkg/apis/apps/validation ValidateStatefulSetSpec) never rejected an empty one; optional from 1.33",
        ),
    ),
}


@functools.cache
def definitions(version: tuple[int, int]) -> dict:
    """The shared ``_definitions.json`` every kind schema of ``version`` refers to, less the
    ``required`` entries the API server does not enforce (``NOT_ENFORCED_REQUIRED``)."""
    from generator.validate import decoded  # with the cache's folder: the first check of a built-in kind

    data = decoded.load(os.path.join(version_dir(version), "_definitions.json"))
    found = data.get("$defs")
    if isinstance(found, dict):
        for name in NOT_ENFORCED_REQUIRED:
            if name in found:
                _enforced(name, found[name])
    return data


@functools.cache
def definition_map(version: tuple[int, int]) -> Definitions:
    """``definitions(version)["$defs"]``, each definition decoded when it is first looked up:
    what the compiled checks read (a lint after an edit reaches a few hundred of them)."""
    from generator.validate import decoded

    return Definitions(decoded.load_members(os.path.join(version_dir(version), "_definitions.json"), "$defs"))


class Definitions(Mapping[str, object]):
    """The definitions of one version by name, each read from the decoded copy on first lookup
    (``decoded.Members``) and kept, less the ``required`` entries the API server does not enforce."""

    def __init__(self, members: Mapping[str, object]):
        self._members = members
        self._decoded: dict[str, object] = {}

    def __getitem__(self, name: str) -> object:
        found = self._decoded.get(name)
        if found is None:
            found = self._decoded[name] = _enforced(name, self._members[name])
        return found

    def __contains__(self, name: object) -> bool:
        return name in self._members

    def __iter__(self) -> Iterator[str]:
        return iter(self._members)

    def __len__(self) -> int:
        return len(self._members)


def _enforced(name: str, definition: object) -> object:
    """The definition less its ``required`` entries the API server does not enforce (in place)."""
    fields = NOT_ENFORCED_REQUIRED.get(name)
    if fields and isinstance(definition, dict) and isinstance(definition.get("required"), list):
        dropped = {field for field, _source in fields}
        definition["required"] = [r for r in definition["required"] if r not in dropped]
    return definition


def kind_schema(path: str) -> dict:
    """A bundled kind's schema, less the ``required`` entries the API server does not enforce
    on the kind itself (``NOT_ENFORCED_REQUIRED``; nested definitions are ``definitions``')."""
    schema = _json(path)
    for g in schema.get("x-kubernetes-group-version-kind") or []:
        label = (g.get("group") or "core").split(".")[0]
        dropped = {
            f for f, _source in NOT_ENFORCED_REQUIRED.get(f"io.k8s.api.{label}.{g.get('version')}.{g.get('kind')}", ())
        }
        if dropped and isinstance(schema.get("required"), list):
            schema["required"] = [r for r in schema["required"] if r not in dropped]
    return schema


def _json(path: str) -> dict:
    """A bundled schema file's data, from its decoded copy in the user cache (``decoded``): a
    lint after an edit reads a few kinds' files and decodes no JSON (``json`` imports ``re``)."""
    from generator.validate import decoded

    found = decoded.load(path)
    return found if isinstance(found, dict) else {}


@functools.cache
def served_in(api_version: str, kind: str) -> tuple[tuple[int, int], ...]:
    """The bundled minor versions whose API has ``apiVersion``/``kind`` (empty: not a built-in
    kind of any bundled version, so a custom resource or a typo)."""
    return tuple(v for v in bundled_versions() if builtin_schema(v, api_version, kind) is not None)


_GA = regex.compile(r"^v\d+$")


@functools.cache
def served_apis(version: tuple[int, int]) -> tuple[str, ...]:
    """The generally available APIs a cluster of ``version`` serves by default, as Helm's
    ``.Capabilities.APIVersions`` lists them (``group/version`` and ``group/version/Kind``),
    from the kinds of the bundled definitions (their ``x-kubernetes-group-version-kind``).
    Alpha APIs are never on by default, and beta APIs added since 1.24 are off by default
    (KEP-3136), so only GA versions are counted."""
    import json  # render's capabilities: json's decoder, with re

    with open(os.path.join(version_dir(version), "_definitions.json"), encoding="utf-8") as handle:
        definitions = json.load(handle).get("$defs", {})
    found = set()
    for name, definition in definitions.items():
        if name.endswith("List") or ".apimachinery." in name:
            continue
        for gvk in definition.get("x-kubernetes-group-version-kind", []):
            if _GA.match(gvk.get("version", "")):
                prefix = f"{gvk['group']}/{gvk['version']}" if gvk.get("group") else gvk["version"]
                found |= {prefix, f"{prefix}/{gvk['kind']}"}
    return tuple(sorted(found))
