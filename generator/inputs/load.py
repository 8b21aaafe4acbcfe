"""Read, validate and complete cluster inputs (``clusters/<name>/cluster.yaml``).

The result is a ``Cluster`` whose ``spec`` is plain JSON data, valid against
``schemas/cluster.schema.json``, with every default filled in: Jsonnet never has to guess.
All problems are reported as ``InputError``s at the line of the input that caused them.
"""

from __future__ import annotations

import copy
import difflib
import functools
import hashlib
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from generator import regex
from generator.errors import InputError, InputErrors, InputWarning
from generator.inputs.schemaref import resolve_ref
from generator.jsonpath import dotted
from generator.paths import CLUSTER_FILE, Project
from generator.yamlio import lines as yamllines

if TYPE_CHECKING:
    import jsonschema

    from generator.inputs.bases import Layer
    from generator.inputs.merge import Merged
    from generator.yamlio.positions import Located

# jsonschema, the YAML reader and the consistency rules load when a cluster is read, not when
# the module is imported: `gpu-gitops list` and `init` need only the names and paths below.

OVERRIDES_FILE = "overrides.libsonnet"
_NAME = regex.compile(r"^[a-z0-9]([-a-z0-9]{0,38}[a-z0-9])?$")
_MINOR = regex.compile(r"^[0-9]+\.[0-9]+$")


@dataclass
class Cluster:
    """One validated cluster input, ready to render."""

    name: str
    folder: Path
    spec: dict
    source: Located
    facts: dict  # the provider's row of the library's providers.json
    warnings: list[InputWarning] = field(default_factory=list)  # cross-field checks that do not stop a render
    bases: list[tuple[str, str]] = field(default_factory=list)  # each base applied (as shown) and its sha256

    @property
    def overrides(self) -> Path | None:
        path = self.folder / OVERRIDES_FILE
        return path if path.is_file() else None


def check_cluster_name(name: str) -> str:
    """Refuse anything but a plain DNS label: no paths, no dots, no escapes."""
    if not _NAME.match(name):
        raise InputError(
            f"invalid cluster name {name!r}",
            hint="a cluster name is a lower-case DNS label (a-z, 0-9, '-', at most 40 characters), "
            "naming a folder under clusters/",
        )
    return name


@functools.cache
def load_schema(path: Path) -> dict:
    """The schema in ``path``, parsed once per content in a process (every cluster of a fleet
    reads it twice): shared, so its readers never change it."""
    data = path.read_bytes()
    key = hashlib.blake2b(data, digest_size=16).digest()
    if key not in _SCHEMAS:
        if len(_SCHEMAS) >= _MEMO_MAX:
            _SCHEMAS.clear()
        _SCHEMAS[key] = json.loads(data.decode("utf-8"))
    return _SCHEMAS[key]


_SCHEMAS: dict[bytes, dict] = {}
_MEMO_MAX = 16  # schemas a process reads: the cluster input's and the config file's, of a project or two


def discover(project: Project) -> list[str]:
    """Names of all clusters under ``clusters/``, sorted."""
    return project.cluster_names()


def _missing_input_hint(folder: Path, name: str) -> str:
    """What to do about a cluster folder without its input: its rendered tree is kept meanwhile."""
    others = sorted(p.name for p in folder.iterdir() if p.name.lower().startswith("cluster.") and p.is_file())
    if others:
        return f"rename {others[0]} to {CLUSTER_FILE}; rendered/{name}/ is kept until then"
    return (
        f"restore {CLUSTER_FILE}, or delete the folder clusters/{name}/ and run `gpu-gitops render --prune` "
        f"to remove rendered/{name}/ on purpose"
    )


def load_cluster(project: Project, name: str, checked: bool = False) -> Cluster:
    """Load ``clusters/<name>/cluster.yaml`` and the bases it names; raise ``InputError(s)`` on
    any problem, located in the file (base or cluster) that set the value.

    ``checked``: the caller knows these exact bytes passed every check (its rendered tree's sum
    file records them and the tool that checked them): the input is completed without the
    schema and the cross-field checks, which ``lint --cluster`` would otherwise pay for.

    A file or folder this user cannot read is an ``InputError`` naming it."""
    check_cluster_name(name)
    try:
        return _load_cluster(project, name, checked)
    except OSError as exc:
        project.clusters_readable()  # clusters/ itself, when that is what is refused
        where = Path(exc.filename) if exc.filename else project.clusters / name
        raise InputError(
            f"cannot read {'folder' if os.path.isdir(where) else 'file'}: {exc.strerror or exc}",
            path=project.display(where),
            hint=f"check that this user may read clusters/{name}/ and the files it names (`ls -l clusters/{name}`)",
        ) from None


def _load_cluster(project: Project, name: str, checked: bool) -> Cluster:
    folder = project.clusters / name
    path = folder / CLUSTER_FILE
    display = project.display(path)
    if not path.exists() and not path.is_symlink():
        if folder.is_dir():
            raise InputError(
                f"cluster {name!r} has no {CLUSTER_FILE}: expected {display}",
                path=display,
                hint=_missing_input_hint(folder, name),
            )
        raise InputError(
            f"cluster {name!r} not found",
            path=display,
            hint=f"create it with `gpu-gitops init {name}`, or run `gpu-gitops list` to see the clusters",
        )
    if path.is_symlink() or folder.is_symlink():
        resolved = path.resolve()
        if not resolved.is_relative_to(project.clusters.resolve()):
            raise InputError(
                "cluster input links outside clusters/", path=display, hint="replace the symlink by the file"
            )
    doc, layers, found = read_layers(project, name)
    schema = load_schema(project.schema_file)
    errors = [] if checked else schema_errors(doc, schema, path)
    if errors:
        raise InputErrors(errors)
    spec = apply_defaults(schema, copy.deepcopy({k: v for k, v in doc.data.items() if k not in OWN_KEYS}))
    if spec["name"] != name:
        raise doc.error(
            f"name {spec['name']!r} does not match its folder clusters/{name}/",
            ("name",),
            hint=f"set `name: {name}` or rename the folder",
            at_value=True,
        )
    from generator.inputs import conventions
    from generator.library import providers

    facts = providers.facts(spec["provider"], project.libsonnet)
    conventions.complete(spec, facts, project.libsonnet, doc.data)
    if not checked:
        from generator.inputs import consistency

        found += consistency.run(spec, doc, facts, project.root)
    errors = [e for e in found if not isinstance(e, InputWarning)]
    if errors:
        raise InputErrors(errors)
    bases = [(project.display(layer.source), layer.sha) for layer in layers[:-1]]
    return Cluster(name, folder, spec, doc, facts, [w for w in found if isinstance(w, InputWarning)], bases)


# The contract's keys: checked per file, never merged from bases and never part of the spec.
OWN_KEYS = ("apiVersion", "kind", "bases")


def read_layers(project: Project, name: str) -> tuple[Merged, list[Layer], list[InputError]]:
    """The cluster's file and its bases, each file's contract checked (``contract``), merged
    (``merge``): the merged document, the layers in the order applied, the files' warnings."""
    from generator.inputs import bases, contract
    from generator.inputs.merge import merge

    top = bases.read(project, project.clusters / name / CLUSTER_FILE)
    if not isinstance(top.doc.data, dict):
        raise schema_errors(top.doc, {})[0]
    found = contract.check(top.doc, contract.CLUSTER, name)
    layers = [*bases.chain(project, top), top]
    for layer in layers[:-1]:
        found += contract.check(layer.doc, contract.BASE, name)
        if isinstance(layer.doc.data, dict) and "name" in layer.doc.data:
            found.append(
                layer.doc.error(
                    "a base cannot set the cluster's name", ("name",), "set `name` in clusters/<name>/cluster.yaml"
                )
            )
        elif not isinstance(layer.doc.data, dict):
            found.append(layer.doc.error("a base must be a YAML mapping", (), "start it with `kind: ClusterBase`"))
    errors = [e for e in found if not isinstance(e, InputWarning)]
    if errors:
        raise InputErrors(errors)
    schema = load_schema(project.schema_file)
    doc = merge([layer.doc for layer in layers], [layer.source for layer in layers], schema, OWN_KEYS)
    return doc, layers, found


# --- schema errors -------------------------------------------------------------------------


def schema_errors(doc: Located, schema: dict, source: Path | None = None) -> list[InputError]:
    """The schema violations of ``doc``; ``source``, the file it was read from, lets hints quote
    a value as it was written (``1.30``, which YAML reads as the number 1.3)."""
    if not isinstance(doc.data, dict):
        return [
            InputError(
                "a cluster input must be a YAML mapping",
                path=doc.path,
                line=1,
                col=1,
                hint="start from `gpu-gitops init NAME`",
            )
        ]
    if _valid(schema, doc.data):
        return []
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema)
    found = list(validator.iter_errors(doc.data))
    lines = yamllines.split(source.read_text(encoding="utf-8", errors="replace")) if found and source else []
    explained = [_hinted(_explain(doc, schema, error, lines), schema, error) for error in found]
    return sorted(explained, key=lambda e: (e.location.path, e.location.line, e.location.col))


# Compiled checks of input schemas (``validate.fastcheck``), by the schema, kept so no id is reused:
# the valid inputs of a fleet take one compiled check each instead of jsonschema's walk (a fifth
# of loading a cluster); jsonschema runs only for an input the check refuses, to word its errors.
_CHECKS: dict[int, tuple[dict, Callable[[object], bool] | None]] = {}


def _valid(schema: dict, data: object) -> bool:
    """Whether the compiled check accepts ``data``; False when the schema is not compiled."""
    from generator.validate import fastcheck

    known = _CHECKS.get(id(schema))
    if known is None or known[0] is not schema:
        if len(_CHECKS) >= _MEMO_MAX:
            _CHECKS.clear()
        try:
            check = fastcheck.Compiler(schema.get("$defs", {}), ("#/$defs/",)).compile(schema)
        except fastcheck.Unsupported:
            check = None
        known = _CHECKS[id(schema)] = (schema, check)
    if known[1] is None:
        return False
    try:
        return known[1](data)
    except (fastcheck.Unsupported, RecursionError):  # a definition compiled on first use
        return False


_PLAIN_SCALAR = regex.compile(r"[^\s#,\[\]{}]+")


def _written(doc: Located, path: tuple, lines: list[str]) -> str | None:
    """A plain scalar value as it stands in the file (of the layer that set it), or None when it
    cannot be told."""
    from generator.inputs.merge import Merged

    if isinstance(doc, Merged):
        index, layer_path = doc.owner(path)
        lines = yamllines.split(doc.sources[index].read_text(errors="replace", encoding="utf-8"))
        line, col = doc.layers[index].value_position(layer_path)
    else:
        line, col = doc.value_position(path)
    if not 0 < line <= len(lines):
        return None
    match = _PLAIN_SCALAR.match(lines[line - 1], col - 1)
    return match.group() if match else None


def _explain(doc: Located, root: dict, error: jsonschema.ValidationError, lines: list[str]) -> InputError:
    """One schema violation as a sentence a platform engineer can act on."""
    path = tuple(error.absolute_path)
    where = dotted(path) or "(top level)"
    schema = cast(dict, error.schema)  # the failing subschema: a mapping in cluster.schema.json
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = sorted(schema.get("properties", {}))
        unknown = [k for k in error.instance if k not in allowed]
        key = unknown[0]
        close = difflib.get_close_matches(key, allowed, n=1)
        hint = f"did you mean {close[0]!r}?" if close else f"allowed keys here: {', '.join(allowed)}"
        parent = next((p for p in reversed(path) if isinstance(p, str)), "")
        from generator.inputs.migrations import REMOVED

        if (parent, key) in REMOVED:
            return doc.error(f"{where}.{key} was removed", path + (key,), REMOVED[parent, key])
        return doc.error(f"unknown key {key!r} in {where}", path + (key,), hint)
    if error.validator == "type":
        expected: Any = error.validator_value
        expected = " or ".join(expected) if isinstance(expected, list) else expected
        got = type(error.instance).__name__.replace("str", "string").replace("dict", "mapping")
        got = got.replace("NoneType", "null").replace("bool", "boolean")
        hint = _type_hint(error.instance, expected, _written(doc, path, lines))
        return doc.error(f"{where}: expected {expected}, got {got} {error.instance!r}"[:200], path, hint, at_value=True)
    if error.validator == "required":
        missing = error.message.split("'")[1]
        # the subschema may be a branch (`else`) without the properties: look them up along the path
        desc = schema.get("properties", {}).get(missing) or _along(root, path)[0].get("properties", {}).get(missing, {})
        desc = resolve_ref(root, desc).get("description", "")
        return doc.error(f"{where}: missing required key {missing!r}", path, desc)
    if error.validator == "enum":
        options = ", ".join(json.dumps(v) for v in cast(list, error.validator_value))
        hint = f"one of: {options}"
        if path and path[-1] == "kubeProxyReplacement":
            hint = "use true or false; the legacy values strict/partial/probe no longer mean what they did"
        return doc.error(f"{where}: {error.instance!r} is not allowed", path, hint, at_value=True)
    if (
        error.validator == "pattern"
        and path == ("kubernetesVersion",)
        and isinstance(error.instance, str)
        and _MINOR.match(error.instance)
    ):
        return _unsupported_version(doc, path, error.instance)
    if error.validator == "pattern":
        return doc.error(
            f"{where}: {error.instance!r} has the wrong format",
            path,
            schema.get("description", f"must match {error.validator_value}"),
            at_value=True,
        )
    return doc.error(f"{where}: {error.message}", path, at_value=True)  # the bound and the description: below


_TAKES = {
    "object": "a mapping (`key: value` lines, or `{key: value}`)",
    "array": "a list (`- item` lines, or `[a, b]`)",
    "string": 'a string (quoted if it looks like a number or a boolean: "8", "true")',
    "integer": "a whole number",
    "number": "a number",
    "boolean": "true or false",
    "null": "null",
}


def _hinted(explained: InputError, root: dict, error: jsonschema.ValidationError) -> InputError:
    """``explained``, with a hint where the failing subschema gave none (``_fallback_hint``)."""
    if not explained.hint:
        explained.hint = _fallback_hint(root, error)
    return explained


def _fallback_hint(root: dict, error: jsonschema.ValidationError) -> str:
    """What the value must be (its type, range or size), what the key is for (the nearest
    description along its path) and where docs/inputs.md documents it."""
    path = tuple(error.absolute_path)
    node, described, section = _along(root, path)
    described = cast(dict, error.schema).get("description", described)
    parts = [_must(error, node)]
    if described:
        parts.append(described.rstrip("."))
    anchor = re.sub(r"[^a-z0-9 _-]", "", (section or "Top level").lower()).replace(" ", "-")
    parts.append(f"see docs/inputs.md#{anchor}")
    return "; ".join(p for p in parts if p)


def _must(error: jsonschema.ValidationError, node: dict) -> str:
    """The rule the value broke, said as what to write."""
    value: Any = error.validator_value
    name = dotted(tuple(error.absolute_path)) or "the top level"
    if error.validator == "type":
        kinds: list[str] = value if isinstance(value, list) else [value]
        default = node.get("default")
        example = f", e.g. {json.dumps(default)}" if default not in (None, {}, []) else ""
        return f"{name} takes " + " or ".join(_TAKES.get(k, k) for k in kinds) + example
    bounds = {
        "minimum": f"use {value} or more",
        "maximum": f"use {value} or less",
        "exclusiveMinimum": f"use more than {value}",
        "exclusiveMaximum": f"use less than {value}",
        "minItems": f"give at least {value} item(s)",
        "maxItems": f"give at most {value} item(s)",
        "minLength": f"use at least {value} character(s)",
        "maxLength": f"use at most {value} character(s)",
        "minProperties": f"give at least {value} key(s)",
        "maxProperties": f"give at most {value} key(s)",
        "uniqueItems": "each item may appear once",
        "const": f"the only allowed value is {json.dumps(value)}",
    }
    if error.validator in bounds:
        return bounds[error.validator]
    schema = cast(dict, error.schema)
    if error.validator == "propertyNames" and isinstance(schema.get("propertyNames"), dict):
        pattern = schema["propertyNames"].get("pattern")
        return f"keys here must match {pattern}" if pattern else ""
    return ""


def _along(root: dict, path: tuple) -> tuple[dict, str, str]:
    """Walk the schema along an instance path: the subschema at its end, the nearest
    description on the way (the key's own, else its parent's), and the docs/inputs.md section
    (as ``docs`` titles it, ``nodePools[].gpu``) that lists the last named key."""
    node = resolve_ref(root, root)
    described, section, here = "", "", ""
    for part in path:
        if isinstance(part, int):
            items = node.get("items")
            node, here = resolve_ref(root, items if isinstance(items, dict) else {}), here + "[]"
        elif part in node.get("properties", {}):
            section = here
            node, here = resolve_ref(root, node["properties"][part]), f"{here}.{part}" if here else part
        else:  # a key under patternProperties or additionalProperties
            matching = [sub for pattern, sub in node.get("patternProperties", {}).items() if re.search(pattern, part)]
            extra = node.get("additionalProperties")
            node = resolve_ref(root, matching[0] if matching else extra if isinstance(extra, dict) else {})
        described = node.get("description", described)
    return node, described, f"`{section}`" if section else ""


def _unsupported_version(doc: Located, path: tuple, version: str) -> InputError:
    """A well-formed version outside the ones whose Kubernetes schemas are installed
    (kubernetes-validate ships one strict schema tree per minor version)."""
    from generator.validate.kubernetes import bundled_versions

    (lo_major, lo_minor), (hi_major, hi_minor) = bundled_versions()[0], bundled_versions()[-1]
    supported = f"{lo_major}.{lo_minor}\u2013{hi_major}.{hi_minor}"
    return doc.error(
        f"kubernetesVersion: {json.dumps(version)} is not supported ({supported})",
        path,
        f"gpu-gitops validates against the Kubernetes schemas it ships, {supported}; use the "
        "cluster's minor version in that range",
        at_value=True,
    )


def _type_hint(value: Any, expected: str, written: str | None = None) -> str:
    if expected in ("integer", "number") and isinstance(value, str) and value.strip().isdigit():
        return "remove the quotes to make it a number"
    if expected == "string" and isinstance(value, (int, float)):
        return f'quote it: "{written or value}"'
    if expected == "boolean" and isinstance(value, str):
        return "use true or false without quotes"
    return ""


# --- defaults ------------------------------------------------------------------------------


def apply_defaults(root: dict, data: Any, schema: dict | None = None) -> Any:
    """Fill ``default``s from the schema into ``data`` (recursively, into list items too)."""
    schema = resolve_ref(root, schema if schema is not None else root)
    if isinstance(data, dict):
        for key, sub in schema.get("properties", {}).items():
            sub = resolve_ref(root, sub)
            if key not in data and "default" in sub:
                default = sub["default"]
                data[key] = copy.deepcopy(default) if isinstance(default, dict | list) else default
            if key in data:
                data[key] = apply_defaults(root, data[key], sub)
    elif isinstance(data, list) and isinstance(schema.get("items"), dict):
        data = [apply_defaults(root, item, schema["items"]) for item in data]
    return data
