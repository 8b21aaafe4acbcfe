"""Validate Kubernetes objects against strict schemas, compiled once per kind.

Core kinds use the bundled strict schemas of the cluster's Kubernetes version; custom
resources use the schema locations the user configured. Results are plain data
(``SchemaProblem``) that render turns into errors and lint into located findings.

``jsonschema`` and ``referencing`` (a tenth of a second to import) load only when an object
fails the compiled check or a schema is outside its subset: a run over valid objects, or one
answered from the lint cache, never imports them.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable

from generator import jsontext
from generator.errors import InputError
from generator.jsonpath import dotted
from generator.paths import inside
from generator.record import Frozen, Record
from generator.validate import fastcheck, kubernetes, schemaset
from generator.validate.locations import SchemaLocation, find_schema_file, template_variables

TYPE_CHECKING = False  # typing's flag without importing typing (PEP 781; mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any

    import jsonschema
    import jsonschema.protocols
    from referencing import Registry


# ``$ref``s in the bundled schemas are absolute paths on the schema's own host
_DEFINITIONS_URI = "file:///api/_definitions.json"
_CORE_REF_PREFIXES = ("/api/_definitions.json#/$defs/", "#/$defs/")
# jsonschema's ``validator_for`` without importing jsonschema: the drafts' meta-schema URIs (as
# its URIDict normalises them) and whether the compiled check follows the draft: draft 4 counts
# 1.0 as not an integer, the check follows draft 6 and later. No $schema, or one jsonschema does
# not know, means its default here, 2020-12.
_DRAFT_IS_FAST = {
    "http://json-schema.org/draft-03/schema": False,
    "http://json-schema.org/draft-04/schema": False,
    "http://json-schema.org/draft-06/schema": True,
    "http://json-schema.org/draft-07/schema": True,
    "https://json-schema.org/draft/2019-09/schema": True,
    "https://json-schema.org/draft/2020-12/schema": True,
}


def fast_draft(schema: dict) -> bool:
    """Whether jsonschema would validate ``schema`` with a draft the compiled check follows."""
    uri = schema.get("$schema")
    if uri is None:
        return True
    if not isinstance(uri, str):
        return False
    return _DRAFT_IS_FAST.get(_normalised(uri), True)


def _normalised(uri: str) -> str:
    """``urlsplit(uri).geturl()`` (the key jsonschema's URIDict looks a draft up by): a plain
    ``http(s)`` URI is itself, less an empty fragment (the bundled schemas' ``.../schema#``);
    only another is split, by ``urllib.parse`` (~2.5 ms of a lint after an edit to import)."""
    key = uri[:-1] if uri.endswith("#") else uri
    scheme, _, rest = key.partition("://")
    if scheme in ("http", "https") and rest[:1].isalnum() and "//" not in rest and _PLAIN.issuperset(rest):
        return key
    from urllib.parse import urlsplit

    return urlsplit(uri).geturl()


# a host and path urlsplit gives back as they are: letters, digits and what they are joined by
_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/:")


def _draft(schema: dict) -> type[jsonschema.protocols.Validator]:
    """jsonschema's validator class for ``schema`` (2020-12 unless its $schema names another)."""
    import jsonschema

    return jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)


def _empty_registry() -> Registry:
    from referencing import Registry

    return Registry()


class _Kind(Record):
    """One kind's schema: its compiled yes/no check (None outside the check's subset), and
    jsonschema's validator, built on first use: only an object failing the check needs it,
    and building it for a core kind crawls the version's whole definitions document.
    ``custom``: a custom resource's (the API server's CRD handling applies, ``check``)."""

    __slots__ = _fields = ("schema", "registry", "fast", "custom", "_full")

    schema: dict
    registry: Callable[[], Registry]
    fast: Callable[[object], bool] | None
    custom: bool
    _full: Any

    def __init__(
        self,
        schema: dict,
        registry: Callable[[], Registry],
        fast: Callable[[object], bool] | None,
        custom: bool = False,
        _full: Any = None,
    ):
        self.schema = schema
        self.registry = registry
        self.fast = fast
        self.custom = custom
        self._full = _full

    def passes(self, obj: object) -> bool:
        """The compiled check's answer; a definition outside its subset, met only now, leaves
        the kind to jsonschema from here on."""
        assert self.fast is not None  # asked only of a kind with a compiled check
        try:
            return self.fast(obj)
        except fastcheck.Unsupported:
            self.fast = None
            return False

    def full(self) -> jsonschema.protocols.Validator:
        if self._full is None:
            self._full = _draft(self.schema)(self.schema, registry=self.registry(), format_checker=None)
        return self._full


class SchemaProblem(Frozen):
    """One reason an object failed: ``kind`` is ``invalid`` or ``missing-schema``."""

    __slots__ = _fields = ("kind", "message", "path")

    kind: str
    message: str
    path: tuple[str | int, ...]

    def __init__(self, kind: str, message: str, path: tuple[str | int, ...] = ()):
        put = object.__setattr__
        put(self, "kind", kind)
        put(self, "message", message)
        put(self, "path", path)


class SchemaValidator:
    """Validates objects for one Kubernetes version and one list of CRD schema locations.

    After the given locations comes the schema set ``gpu-gitops schemas sync`` installed, if
    any (``schema_set``). ``warnings`` collects, once each, what could not be checked as the
    API server would (an untranslatable pattern, a CEL rule that cannot be evaluated).
    """

    def __init__(
        self,
        kubernetes_version: str,
        locations: list[SchemaLocation] | None = None,
        cache: str | os.PathLike[str] | None = None,
    ):
        self.version = kubernetes.resolve_version(kubernetes_version)
        self.version_text = f"{self.version[0]}.{self.version[1]}.0"
        self.locations = list(locations or [])
        self.schema_set = schemaset.installed()
        if self.schema_set is not None:
            self.locations.append(SchemaLocation(self.schema_set.location))
        self.cache = cache
        self.warnings: dict[str, None] = {}
        # compiled kinds, shared with every overlay made from this validator (``with_schemas``),
        # but for the kinds an overlay is given: those are in the overlay's own ``_given_compiled``
        self._compiled: dict[tuple[str, str], _Kind | None] = {}
        self._given_compiled: dict[tuple[str, str], _Kind | None] = {}
        self._core_state: dict[str, Any] = {}  # the core kinds' compiler and registry, shared too
        # per custom resource kind looked up: the schema paths consulted (``consulted``)
        self._lookups: dict[tuple[str, str], list[tuple[str, bool]]] = {}
        self._looked_up: set[tuple[str, str]] = set()  # kinds ``look_up`` was asked for
        # (apiVersion, kind) → document schema given in memory (``with_schemas``), before any location
        self._given: dict[tuple[str, str], dict] = {}

    def with_schemas(self, schemas: dict[tuple[str, str], dict]) -> SchemaValidator:
        """This validator, but with ``schemas`` ((apiVersion, kind) → document schema, as
        ``schemas import`` writes them) checked first: the CRDs a chart installs, at exactly the
        version it installs, over any schema location or synced set. Everything else, compiled
        kinds and warnings included, is shared with this one."""
        import copy  # with weakref: only for trees that install CRDs

        overlay = copy.copy(self)
        overlay._given = {**self._given, **schemas}
        overlay._given_compiled = {k: v for k, v in self._given_compiled.items() if k not in schemas}
        return overlay

    @property
    def given(self) -> list[tuple[str, str, dict]]:
        """The schemas given in memory (``with_schemas``), as (apiVersion, kind, schema), sorted."""
        return [(*key, schema) for key, schema in sorted(self._given.items())]

    def schema_source(self, api_version: str, kind: str) -> str | None:
        """The schema file used for this kind, or None when there is none (or the names cannot have one)."""
        if not kubernetes.nameable(api_version, kind):
            return None
        core = kubernetes.builtin_schema(self.version, api_version, kind)
        if core is not None:
            return core
        variables = template_variables(api_version, kind, self.version_text)
        trail: list[tuple[str, bool]] = []
        found = find_schema_file(self.locations, variables, self.cache, trail)
        self._lookups[(api_version, kind)] = trail
        return found

    def crd_origin(self, api_version: str, kind: str) -> str:
        """Where the synced schema this kind is checked against came from (``ROCm/gpu-operator
        v1.4.0``), or '' for a built-in kind, a schema of the user's locations, or none."""
        if self.schema_set is None:
            return ""
        source = self.schema_source(api_version, kind)
        if source is None or not inside(source, self.schema_set.folder):
            return ""
        return self.schema_set.origins.get(f"{api_version} {kind}", f"schema set {self.schema_set.version}")

    def consulted(self, kinds: set[tuple[str, str]]) -> list[tuple[str, bool]] | None:
        """The schema paths the validation of these kinds looked at, and whether a file was
        there, for ``fingerprint.record_validated``; None when one was a download that found
        nothing (which only the network could confirm again)."""
        paths = [entry for key in sorted(kinds) for entry in self._lookups.get(key, ())]
        return None if ("", False) in paths else paths

    def _validator_for(self, api_version: str, kind: str) -> _Kind | None:
        key = (api_version, kind)
        compiled = self._given_compiled if key in self._given else self._compiled
        if key not in compiled:
            compiled[key] = self._compile(api_version, kind)
        return compiled[key]

    def _compile(self, api_version: str, kind: str) -> _Kind | None:
        given = self._given.get((api_version, kind))
        if given is not None:
            schema, fast = _given_schema(
                given,
                lambda pattern: self.warn(
                    f"{kind} ({api_version}): schema pattern {pattern!r} has no Python equivalent; that pattern is not checked"
                ),
            )
            return _Kind(schema, _empty_registry, fast, custom=True)
        source = self.schema_source(api_version, kind)
        if source is None:
            return None
        core = os.path.dirname(source) == kubernetes.version_dir(self.version)
        if core:
            schema = kubernetes.kind_schema(source)
        else:
            # the synced set's files were checked against their metaschema when they were installed
            synced = self.schema_set is not None and inside(source, self.schema_set.folder)
            schema, fast = _custom_schema(
                source,
                lambda pattern: self.warn(
                    f"{kind} ({api_version}): schema pattern {pattern!r} has no Python equivalent; "
                    "that pattern is not checked"
                ),
                check=not synced,
            )
            return _Kind(schema, _empty_registry, fast, custom=True)
        return _Kind(schema, self._core, self._core_check(schema))

    def _core_check(self, schema: dict) -> fastcheck.Check | None:
        """A core kind's compiled yes/no check (``$ref``s into the version's definitions), or None."""
        if "compiler" not in self._core_state:
            self._core_state["compiler"] = fastcheck.Compiler(
                kubernetes.definition_map(self.version), _CORE_REF_PREFIXES
            )
        return _compiled(schema, self._core_state["compiler"])

    def _core(self) -> Registry:
        if "registry" not in self._core_state:
            import referencing.jsonschema
            from referencing import Registry, Resource

            defs = Resource.from_contents(
                kubernetes.definitions(self.version), default_specification=referencing.jsonschema.DRAFT202012
            )
            # crawled once: an uncrawled registry re-walks all definitions on every $ref lookup
            self._core_state["registry"] = Registry().with_resource(_DEFINITIONS_URI, defs).crawl()
        return self._core_state["registry"]

    def warn(self, message: str) -> None:
        self.warnings.setdefault(message, None)

    def look_up(self, api_version: object, kind: object) -> None:
        """Record the schema lookup a check of this kind makes (``consulted``), without compiling
        its schema: for a verdict known without a check (render's kept verdicts)."""
        if not (isinstance(api_version, str) and api_version and isinstance(kind, str) and kind):
            return  # a check reports the missing key without a lookup
        key = (api_version, kind)
        if key in self._given or key in self._lookups or key in self._looked_up:
            return  # a given schema is looked up nowhere; a custom kind's lookup is recorded once
        self._looked_up.add(key)
        self.schema_source(api_version, kind)

    def has_schema(self, api_version: str, kind: str) -> bool:
        return self._validator_for(api_version, kind) is not None

    def check(self, obj: dict) -> list[SchemaProblem]:
        """All schema problems of one object, in document order of their paths."""
        api_version, kind = obj.get("apiVersion"), obj.get("kind")
        if not isinstance(api_version, str) or not api_version:
            return [SchemaProblem("invalid", "missing 'apiVersion' key")]
        if not isinstance(kind, str) or not kind:
            return [SchemaProblem("invalid", "missing 'kind' key")]
        compiled = self._validator_for(api_version, kind)
        if compiled is None:
            return [SchemaProblem("missing-schema", f"could not find schema for {kind} ({api_version})")]
        crd = compiled.schema if compiled.custom else None
        if crd is not None:
            from typing import cast

            from generator.validate import structural, webhooks  # custom resources only

            # the mutating webhooks run first, then the API server prunes nulls and defaults
            obj = cast(dict, structural.apply(crd, webhooks.apply(obj)))
        if compiled.fast is not None and compiled.passes(obj):
            return self._rules(crd, obj, kind)  # jsonschema only runs to explain a failure
        import referencing.exceptions

        problems: list[SchemaProblem] = []
        try:
            errors = list(compiled.full().iter_errors(obj))
        except referencing.exceptions.Unresolvable as exc:
            raise InputError(
                f"schema file has a $ref that cannot be resolved: {exc}",
                path=str(self.schema_source(api_version, kind)),
                hint="schemas at a schema location must be standalone (kubeconform's -standalone layout)",
            ) from None
        for error in errors:
            for leaf in _leaves(error):
                path = tuple(leaf.absolute_path)
                extra = _unexpected(leaf)
                if extra:
                    # one problem per unknown key, located at the key itself, worded as the API
                    # server's strict decoding says it
                    problems.extend(
                        SchemaProblem("invalid", f'unknown field "{dotted(path + (key,))}"', path + (key,))
                        for key in extra
                    )
                else:
                    problems.append(SchemaProblem("invalid", _json_words(leaf), path))
        if not problems:
            problems = self._rules(crd, obj, kind)
        problems.sort(key=lambda p: [str(x) for x in p.path])
        return problems

    def _rules(self, crd: dict | None, obj: dict, kind: str) -> list[SchemaProblem]:
        """Failed ``x-kubernetes-validations`` rules of a schema-valid custom resource."""
        if crd is None:
            return []
        from generator.validate import celrules  # the CEL library is large; only CRD rules need it

        def skipped(rule: str, why: str) -> None:
            self.warn(f"{kind}: CEL rule {rule!r} not evaluated ({why}); it is not checked")

        problems = [SchemaProblem("invalid", message, path) for path, message in celrules.check(crd, obj, skipped)]
        return sorted(problems, key=lambda p: [str(x) for x in p.path])


def _compiled(schema: dict, compiler: fastcheck.Compiler) -> fastcheck.Check | None:
    """The compiled yes/no check, or None when the schema or its draft is outside its subset."""
    if not fast_draft(schema):
        return None
    try:
        return compiler.compile(schema)
    except fastcheck.Unsupported:
        return None


# Custom resource schemas by the SHA-256 of their file's bytes (and whether the metaschema
# check was asked for): parsed, translated and compiled once per process, then shared by the
# validator of every Kubernetes version and every cluster. The patterns dropped as
# untranslatable are kept to be reported again by each validator that uses the file.
_CUSTOM: dict[tuple[str, bool], tuple[dict, tuple[str, ...], fastcheck.Check | None]] = {}

# what a schema's loader does with a pattern it cannot translate to Python (warns, by default nothing)
Untranslatable = Callable[[str], None]


def _custom_schema(
    source: str | os.PathLike[str], untranslatable: Untranslatable, check: bool
) -> tuple[dict, fastcheck.Check | None]:
    """A schema file at a schema location (``load_schema``) and its compiled check, once per content."""
    from generator.sha import sha256

    raw = _read_schema_file(source)
    key = (sha256(raw).hexdigest(), check)
    if key not in _CUSTOM:
        dropped: list[str] = []
        schema = _parse_schema(raw, source, dropped.append, check)
        _CUSTOM[key] = (schema, tuple(dropped), _compiled(schema, fastcheck.Compiler({}, ())))
    schema, dropped_patterns, fast = _CUSTOM[key]
    for pattern in dropped_patterns:
        untranslatable(pattern)
    return schema, fast


# Schemas given in memory, by identity (the document kept, so an id is never reused): translated
# and compiled once per process, shared by every validator given the same document.
_GIVEN: dict[int, tuple[dict, dict, tuple[str, ...], fastcheck.Check | None]] = {}


def _given_schema(document: dict, untranslatable: Untranslatable) -> tuple[dict, fastcheck.Check | None]:
    """A schema given in memory (``with_schemas``), its patterns made Python's, and its compiled check."""
    known = _GIVEN.get(id(document))
    if known is None or known[0] is not document:
        import json  # a schema given in memory: a copy through JSON, as a file's would be read

        dropped: list[str] = []
        schema = json.loads(json.dumps(document))
        _python_patterns(schema, dropped.append)
        known = _GIVEN[id(document)] = (document, schema, tuple(dropped), _compiled(schema, fastcheck.Compiler({}, ())))
    for pattern in known[2]:
        untranslatable(pattern)
    return known[1], known[3]


_SCHEMA_FILE_HINT = (
    "fix or replace this file at your --schema-location (or schemaLocations), or delete a stale cached copy"
)


def _read_schema_file(source: str | os.PathLike[str]) -> bytes:
    try:
        with open(source, "rb") as handle:
            return handle.read()
    except OSError as exc:
        raise InputError(
            f"schema file is not readable JSON: {exc}", path=os.fspath(source), hint=_SCHEMA_FILE_HINT
        ) from None


def load_schema(
    source: str | os.PathLike[str], untranslatable: Untranslatable = lambda pattern: None, check: bool = True
) -> dict:
    """A user-supplied schema file, parsed, its RE2 patterns made Python's, checked against its metaschema.

    A file at a schema location is configuration, not a linted manifest: one that is not a
    JSON Schema stops the run with an ``InputError`` naming it, for render and lint alike.
    A pattern with no Python equivalent is dropped and reported through ``untranslatable``.
    ``check=False`` skips the metaschema check (seconds on the largest CRDs) for files that
    passed it when ``schemas sync`` installed them; other files pass it once per content
    (``_passed_marker``).
    """
    return _parse_schema(_read_schema_file(source), source, untranslatable, check)


def _parse_schema(raw: bytes, given: str | os.PathLike[str], untranslatable: Untranslatable, check: bool) -> dict:
    """``load_schema`` of bytes read from ``given``."""
    import json  # a schema file of a location: json's decoder, with re, only then

    source, hint = os.fspath(given), _SCHEMA_FILE_HINT
    try:
        schema = json.loads(raw)
    except ValueError as exc:
        raise InputError(f"schema file is not readable JSON: {exc}", path=str(source), hint=hint) from None
    if not isinstance(schema, dict):
        raise InputError(
            f"schema file holds a JSON {type(schema).__name__}, not a schema object", path=str(source), hint=hint
        )
    _python_patterns(schema, untranslatable)
    if not check:
        return schema
    passed = _passed_marker(raw)
    if os.path.exists(passed):
        return schema
    import jsonschema

    from generator.validate import metaschema

    try:
        # No `format` checks on the schema itself: CRD patterns are Go RE2 (cilium.io's
        # CiliumNetworkPolicy v2 has `^\PC*$`), which Python's re cannot compile, so
        # `format: regex` would refuse a valid upstream CRD. A pattern is compiled only when a
        # value is validated against it.
        metaschema.check(_draft(schema), schema)
    except jsonschema.SchemaError as exc:
        where = "/" + "/".join(str(p) for p in exc.absolute_path)
        raise InputError(
            f"schema file is not a valid JSON Schema: {where}: {exc.message}", path=str(source), hint=hint
        ) from None
    _record(passed)
    return schema


def _passed_marker(raw: bytes) -> str:
    """Where a schema file's passed metaschema check is remembered: an empty file in the user
    cache named by the digest of the file's bytes and the tool's and jsonschema's versions.

    The check costs seconds on the largest CRD schemas (ApplicationSet, RayJob) and every run
    of render and lint with schema locations would pay it again; the bytes decide the answer
    (the draft is named in them, and a draft's metaschema is fixed by its specification), so a
    file that passed once passes again. Only passes are remembered: a refusal is checked, and
    worded, every time."""
    from generator.paths import cache_folder
    from generator.sha import sha256

    return os.path.join(cache_folder(), "schema-checks", f"{sha256(raw).hexdigest()}-{_checker_versions()}")


@functools.cache
def _checker_versions() -> str:
    """The tool's and jsonschema's versions: either may change what the check accepts.
    Read from the installed metadata, so a remembered pass costs no jsonschema import."""
    from generator import __version__

    return f"{__version__}-{installed_version('jsonschema')}"


def installed_version(distribution: str) -> str:
    """The installed version of ``distribution`` (a name without ``-``), as
    ``importlib.metadata.version`` answers it: from the name of the first
    ``<name>-<version>.dist-info`` folder on ``sys.path``, searched in its order as that does
    (PEP 427 names the folder so). Without importing ``importlib.metadata``, whose email parser
    costs ~30 ms, a tenth of a one-cluster render's own work; that is asked only where no
    such folder is (an egg, a zip)."""
    prefix, suffix = f"{distribution}-", ".dist-info"
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        found = sorted(n for n in names if n.startswith(prefix) and n.endswith(suffix))
        if found:
            return found[0][len(prefix) : -len(suffix)]
    from importlib.metadata import version

    return version(distribution)


def _record(marker: str) -> None:
    """Remember a passed check; a cache that cannot be written only means checking again."""
    try:
        os.makedirs(os.path.dirname(marker), exist_ok=True)
        with open(marker, "ab"):
            pass
    except OSError:
        pass


_SUBSCHEMA_MAPS = ("properties", "$defs", "definitions", "dependentSchemas")
_SUBSCHEMAS = (
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "additionalItems",
    "unevaluatedItems",
    "unevaluatedProperties",
)


def _python_patterns(node: object, untranslatable: Untranslatable) -> None:
    """Rewrite every ``pattern`` and ``patternProperties`` key from RE2 to Python syntax, in place."""
    from generator.validate.re2 import to_python  # CRD schemas only: the bundled ones hold none to rewrite

    _rewrite_patterns(node, untranslatable, to_python)


def _rewrite_patterns(node: object, untranslatable: Untranslatable, to_python: Callable[[str], str | None]) -> None:
    if isinstance(node, list):
        for item in node:
            _rewrite_patterns(item, untranslatable, to_python)
        return
    if not isinstance(node, dict):
        return
    pattern = node.get("pattern")
    if isinstance(pattern, str):
        translated = to_python(pattern)
        if translated is None:
            del node["pattern"]
            untranslatable(pattern)
        else:
            node["pattern"] = translated
    patterns = node.get("patternProperties")
    if isinstance(patterns, dict):
        rewritten = {}
        for key, sub in patterns.items():
            translated = to_python(key)
            if translated is None:
                untranslatable(key)
                continue
            rewritten[translated] = sub
        node["patternProperties"] = rewritten
    for key in _SUBSCHEMA_MAPS + ("patternProperties",):
        if isinstance(node.get(key), dict):
            for sub in node[key].values():
                _rewrite_patterns(sub, untranslatable, to_python)
    for key in _SUBSCHEMAS:
        if key in node:
            _rewrite_patterns(node[key], untranslatable, to_python)
    for key in ("allOf", "anyOf", "oneOf", "prefixItems"):
        if isinstance(node.get(key), list):
            _rewrite_patterns(node[key], untranslatable, to_python)


def _json_words(error: jsonschema.ValidationError) -> str:
    """jsonschema's message with the offending value spelt as JSON (``null``, ``true``), not Python."""
    value = error.instance
    if value is None or isinstance(value, bool):
        shown = repr(value)
        if error.message.startswith(shown):
            return jsontext.dumps(value) + error.message[len(shown) :]
    return error.message


def _unexpected(error: jsonschema.ValidationError) -> list[str]:
    """The keys an ``additionalProperties: false`` error is about, in document order."""
    if error.validator != "additionalProperties" or not isinstance(error.instance, dict):
        return []
    from typing import cast  # an object failed: jsonschema has imported typing

    schema = cast(dict, error.schema)  # additionalProperties sits in a mapping
    known = schema.get("properties", {})
    patterns = schema.get("patternProperties", {})
    import re  # jsonschema has imported it

    return [k for k in error.instance if k not in known and not any(re.search(p, k) for p in patterns)]


def _listed(value: object) -> list:
    """A ``type`` keyword's value as a list."""
    return list(value) if isinstance(value, list) else [value]


def _leaves(error: jsonschema.ValidationError) -> list[jsonschema.ValidationError]:
    """The most specific errors under an ``anyOf``/``oneOf`` failure, else the error itself.
    Alternatives that differ only in type (``x-kubernetes-int-or-string``) are one error that
    names every type allowed, not the first one tried."""
    if error.context and all(e.validator == "type" and not e.relative_path for e in error.context):
        types = [t for e in error.context for t in _listed(e.validator_value)]
        error.message = f"{error.instance!r} is not of type {' or '.join(repr(t) for t in types)}"
        return [error]
    if error.context:
        import jsonschema

        best = jsonschema.exceptions.best_match(error.context)
        return [best] if best is not None else [error]
    return [error]
