"""Validate Kubernetes objects against strict schemas, compiled once per kind.

Core kinds use the bundled strict schemas of the cluster's Kubernetes version; custom
resources use the schema locations the user configured. Results are plain data
(``SchemaProblem``) that render turns into errors and lint into located findings.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import referencing
import referencing.exceptions
import referencing.jsonschema
from referencing import Registry, Resource

from generator.errors import InputError
from generator.jsonpath import dotted
from generator.validate import fastcheck, kubernetes
from generator.validate.locations import SchemaLocation, find_schema_file, template_variables

# ``$ref``s in the bundled schemas are absolute paths on the schema's own host
_DEFINITIONS_URI = "file:///api/_definitions.json"
_CORE_REF_PREFIXES = ("/api/_definitions.json#/$defs/", "#/$defs/")
_FAST_DRAFTS = (jsonschema.Draft202012Validator, jsonschema.Draft201909Validator, jsonschema.Draft7Validator,
                jsonschema.Draft6Validator)


@dataclass(frozen=True)
class SchemaProblem:
    """One reason an object failed: ``kind`` is ``invalid`` or ``missing-schema``."""

    kind: str
    message: str
    path: tuple[str | int, ...] = ()


class SchemaValidator:
    """Validates objects for one Kubernetes version and one list of CRD schema locations."""

    def __init__(self, kubernetes_version: str, locations: list[SchemaLocation] | None = None,
                 cache: Path | None = None):
        self.version = kubernetes.resolve_version(kubernetes_version)
        self.version_text = f"{self.version[0]}.{self.version[1]}.0"
        self.locations = list(locations or [])
        self.cache = cache
        self._compiled: dict[tuple[str, str], Any] = {}
        self._fast: dict[tuple[str, str], Any] = {}
        self._core_compiler: fastcheck.Compiler | None = None
        self._core_registry: Registry | None = None

    def schema_source(self, api_version: str, kind: str) -> Path | None:
        """The schema file used for this kind, or None when there is none."""
        core = kubernetes.schema_file(self.version, api_version, kind)
        if core.is_file():
            return core
        variables = template_variables(api_version, kind, self.version_text)
        return find_schema_file(self.locations, variables, self.cache)

    def _validator_for(self, api_version: str, kind: str):
        key = (api_version, kind)
        if key not in self._compiled:
            self._compiled[key] = self._compile(api_version, kind)
        return self._compiled[key]

    def _compile(self, api_version: str, kind: str):
        source = self.schema_source(api_version, kind)
        if source is None:
            return None
        core = source.parent == kubernetes.version_dir(self.version)
        schema = _load_schema(source) if not core else json.loads(source.read_text())
        registry = self._core() if core else Registry()
        cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        self._fast[(api_version, kind)] = self._fast_check(schema, cls, core=registry is self._core_registry)
        return cls(schema, registry=registry, format_checker=None)

    def _fast_check(self, schema: dict, cls, core: bool):
        """The compiled yes/no check, or None when the schema or its draft is outside its subset."""
        # draft 4 counts 1.0 as not an integer; the compiled check follows draft 6 and later
        if cls not in _FAST_DRAFTS:
            return None
        if core and self._core_compiler is None:
            self._core_compiler = fastcheck.Compiler(kubernetes.definitions(self.version)["$defs"], _CORE_REF_PREFIXES)
        compiler = self._core_compiler if core else fastcheck.Compiler({}, ())
        try:
            return compiler.compile(schema)
        except fastcheck.Unsupported:
            return None

    def _core(self) -> Registry:
        if self._core_registry is None:
            defs = Resource.from_contents(
                kubernetes.definitions(self.version), default_specification=referencing.jsonschema.DRAFT202012
            )
            # crawled once: an uncrawled registry re-walks all definitions on every $ref lookup
            self._core_registry = Registry().with_resource(_DEFINITIONS_URI, defs).crawl()
        return self._core_registry

    def has_schema(self, api_version: str, kind: str) -> bool:
        return self._validator_for(api_version, kind) is not None

    def check(self, obj: dict) -> list[SchemaProblem]:
        """All schema problems of one object, in document order of their paths."""
        api_version, kind = obj.get("apiVersion"), obj.get("kind")
        if not isinstance(api_version, str) or not api_version:
            return [SchemaProblem("invalid", "missing 'apiVersion' key")]
        if not isinstance(kind, str) or not kind:
            return [SchemaProblem("invalid", "missing 'kind' key")]
        validator = self._validator_for(api_version, kind)
        if validator is None:
            return [SchemaProblem("missing-schema", f"could not find schema for {kind} ({api_version})")]
        fast = self._fast.get((api_version, kind))
        if fast is not None and fast(obj):
            return []  # jsonschema only runs to explain a failure
        problems = []
        try:
            errors = list(validator.iter_errors(obj))
        except referencing.exceptions.Unresolvable as exc:
            raise InputError(f"schema file has a $ref that cannot be resolved: {exc}",
                             path=str(self.schema_source(api_version, kind)),
                             hint="schemas at a schema location must be standalone (kubeconform's -standalone layout)") \
                from None
        for error in errors:
            for leaf in _leaves(error):
                path = tuple(leaf.absolute_path)
                extra = _unexpected(leaf)
                if extra:
                    # one problem per unknown key, located at the key itself, worded as the API
                    # server's strict decoding says it
                    problems.extend(SchemaProblem("invalid", f'unknown field "{dotted(path + (key,))}"', path + (key,))
                                    for key in extra)
                else:
                    problems.append(SchemaProblem("invalid", leaf.message, path))
        problems.sort(key=lambda p: [str(x) for x in p.path])
        return problems


def _load_schema(source: Path) -> dict:
    """A user-supplied schema file, parsed and checked against its metaschema.

    A file at a schema location is configuration, not a linted manifest: one that is not a
    JSON Schema stops the run with an ``InputError`` naming it, for render and lint alike.
    """
    hint = "fix or replace this file at your --schema-location (or schemaLocations), or delete a stale cached copy"
    try:
        schema = json.loads(source.read_bytes())
    except (ValueError, OSError) as exc:
        raise InputError(f"schema file is not readable JSON: {exc}", path=str(source), hint=hint) from None
    if not isinstance(schema, dict):
        raise InputError(f"schema file holds a JSON {type(schema).__name__}, not a schema object",
                         path=str(source), hint=hint)
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        # No `format` checks on the schema itself: CRD patterns are Go RE2 (cilium.io's
        # CiliumNetworkPolicy v2 has `^\PC*$`), which Python's re cannot compile, so
        # `format: regex` would refuse a valid upstream CRD. A pattern is compiled only when a
        # value is validated against it.
        cls.check_schema(schema, format_checker=None)
    except jsonschema.SchemaError as exc:
        where = "/" + "/".join(str(p) for p in exc.absolute_path)
        raise InputError(f"schema file is not a valid JSON Schema: {where}: {exc.message}", path=str(source),
                         hint=hint) from None
    return schema


def _unexpected(error: jsonschema.ValidationError) -> list[str]:
    """The keys an ``additionalProperties: false`` error is about, in document order."""
    if error.validator != "additionalProperties" or not isinstance(error.instance, dict):
        return []
    known = error.schema.get("properties", {})
    patterns = error.schema.get("patternProperties", {})
    return [k for k in error.instance if k not in known and not any(re.search(p, k) for p in patterns)]


def _leaves(error: jsonschema.ValidationError):
    """The most specific errors under an ``anyOf``/``oneOf`` failure, else the error itself."""
    if error.context:
        best = jsonschema.exceptions.best_match(error.context)
        return [best] if best is not None else [error]
    return [error]
