"""``gpu-gitops schemas import``: CustomResourceDefinitions → strict JSON Schemas.

The output uses the layout kubeconform and the CRDs-catalog use,
``<group>/<kind>_<version>.json`` (template
``{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json``), one file per served version.
Objects reject unknown fields unless the CRD preserves them, ``x-kubernetes-int-or-string``
becomes integer-or-string, and ``nullable`` admits null, as the API server does.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from json.encoder import encode_basestring_ascii
from pathlib import Path
from typing import NoReturn

from generator import regex
from generator.errors import InputError
from generator.lint.loader import parse_text, resources_of
from generator.lint.model import Resource
from generator.replace import replace_file

# the API server's rules: a DNS-1123 subdomain with at least one dot; DNS-1035 labels for
# the lower-cased kind and for version names
_GROUP = regex.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+")
_LABEL = regex.compile(r"[a-z]([-a-z0-9]{0,61}[a-z0-9])?")


def strict(schema: dict) -> dict:
    """A copy of an OpenAPI v3 schema with the API server's decoding rules made explicit."""
    out = copy.deepcopy(schema)
    _tighten(out)
    return out


def _tighten(node: object, constraint: bool = False) -> None:
    """``constraint``: inside allOf/anyOf/oneOf/not, whose ``properties`` only constrain values
    the structural schema already declares (Cilium's ``anyOf: [{properties: {egress: {}},
    required: [egress]}, …]``): they must not reject the object's other fields."""
    if isinstance(node, list):
        for item in node:
            _tighten(item, constraint)
        return
    if not isinstance(node, dict):
        return
    for key, value in list(node.items()):
        if key in ("properties", "patternProperties", "definitions"):
            for child in value.values():
                _tighten(child, constraint)
        elif key in ("items", "additionalProperties"):
            _tighten(value, constraint)
        elif key in ("not", "allOf", "anyOf", "oneOf"):
            if key != "not" and not isinstance(value, list):
                raise TypeError(f"{key} is not a list")  # reported as a malformed schema
            _tighten(value, True)
    if node.pop("x-kubernetes-int-or-string", False):
        node.pop("type", None)
        node.pop("format", None)
        # controller-gen already writes the alternatives as anyOf; a second copy would
        # report one bad value twice
        if not _int_or_string(node.get("anyOf")):
            if "anyOf" in node:
                node.setdefault("allOf", []).append({"anyOf": list(_INT_OR_STRING)})
            else:
                node["anyOf"] = list(_INT_OR_STRING)
    preserve = node.get("x-kubernetes-preserve-unknown-fields") is True
    if "properties" in node and "additionalProperties" not in node and not preserve and not constraint:
        node["additionalProperties"] = False
    if node.pop("nullable", False) and isinstance(node.get("type"), str):
        node["type"] = [node["type"], "null"]


_INT_OR_STRING = ({"type": "integer"}, {"type": "string"})


def _int_or_string(alternatives: object) -> bool:
    """Whether ``anyOf`` is exactly the integer-or-string pair (the CRD's own spelling of it)."""
    return (
        isinstance(alternatives, list)
        and sorted((a.get("type") for a in alternatives if isinstance(a, dict) and set(a) == {"type"}), key=str)
        == ["integer", "string"]
        and len(alternatives) == 2
    )


def versions(crd: dict) -> list[tuple[str, dict]]:
    """``(version, openAPIV3Schema)`` for every served version (v1 and v1beta1 CRDs)."""
    spec = _mapping(crd.get("spec"))
    shared = _mapping(_mapping(spec.get("validation")).get("openAPIV3Schema")) or None
    listed = spec.get("versions") if isinstance(spec.get("versions"), list) else None
    out = []
    for version in listed or [{"name": spec.get("version"), "served": True}]:
        if not isinstance(version, dict) or not version.get("served", True) or not version.get("name"):
            continue
        schema = _mapping(_mapping(version.get("schema")).get("openAPIV3Schema")) or shared
        if isinstance(schema, dict):
            out.append((version["name"], schema))
    return out


def _mapping(value: object) -> dict:
    return value if isinstance(value, dict) else {}


def document_schema(crd: dict, version: str, schema: dict) -> dict:
    group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
    out = strict(schema)
    out.setdefault("type", "object")
    props = out.setdefault("properties", {})
    props.setdefault("apiVersion", {"type": "string"})
    props.setdefault("kind", {"type": "string"})
    props.setdefault("metadata", {"type": "object"})
    props["apiVersion"] = {**props["apiVersion"], "enum": [f"{group}/{version}"]}
    props["kind"] = {**props["kind"], "enum": [kind]}
    if "x-kubernetes-preserve-unknown-fields" not in out:
        out["additionalProperties"] = False
    out["description"] = out.get("description") or f"{kind} ({group}/{version}), from its CustomResourceDefinition"
    return out


def import_files(paths: list[Path], output: Path, display: Callable[[Path], str]) -> list[Path]:
    """Write one schema per CRD and served version; return the files written, sorted."""
    written = []
    for path in paths:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"cannot read CRD file: {exc}", path=display(path)) from None
        crds = 0
        for doc in parse_text(text, display(path)):
            if doc.error is not None:
                raise InputError(doc.error.message, path=display(path), line=doc.error_line, col=doc.error_col)
            for res in resources_of(doc):
                if res.kind != "CustomResourceDefinition":
                    continue
                crds += 1
                group, kind = _names(res, display(path))
                for version, schema in versions(res.obj):
                    target = _target(output, group, kind, version, res, display(path))
                    target.parent.mkdir(parents=True, exist_ok=True)
                    try:
                        converted = document_schema(res.obj, version, schema)
                    except (AttributeError, TypeError):
                        # a keyword holding the wrong type (properties: [..]); the API server rejects it too
                        _bad(
                            res,
                            display(path),
                            _version_path(res, version) + ("schema", "openAPIV3Schema"),
                            f"the openAPIV3Schema of version {version!r} is not a valid schema",
                            "properties must map names to schemas, oneOf/anyOf/allOf must be lists of schemas",
                        )
                    body = indented_json(converted) + "\n"
                    replace_file(target, body)
                    written.append(target)
        if not crds:
            raise InputError(
                "no CustomResourceDefinition in this file",
                path=display(path),
                hint="pass CRD manifests, or the output of `kubectl get crd -o yaml`",
            )
    return sorted(written)


def indented_json(value: object) -> str:
    """``json.dumps(value, indent=2, sort_keys=True)``, byte for byte, three times as fast on a
    schema: Python's C encoder does not indent, and its pure-Python one takes seconds over the
    schemas of a synced set. Anything but string keys and JSON's own types is left to ``json``."""
    out: list[str] = []
    try:
        _indent(value, out, "")
    except TypeError:
        return json.dumps(value, indent=2, sort_keys=True)
    return "".join(out)


def _indent(value: object, out: list[str], pad: str) -> None:
    if isinstance(value, str):
        out.append(encode_basestring_ascii(value))
    elif isinstance(value, dict):
        if not value:
            out.append("{}")
            return
        inner, sep = pad + "  ", "{\n" + pad + "  "
        for key in sorted(value):
            if not isinstance(key, str):
                raise TypeError(key)  # json turns such keys into strings: leave it to json
            out.append(f"{sep}{encode_basestring_ascii(key)}: ")
            sep = ",\n" + inner
            _indent(value[key], out, inner)
        out.append("\n" + pad + "}")
    elif isinstance(value, list):
        if not value:
            out.append("[]")
            return
        inner, sep = pad + "  ", "[\n" + pad + "  "
        for item in value:
            out.append(sep)
            sep = ",\n" + inner
            _indent(item, out, inner)
        out.append("\n" + pad + "]")
    elif value is None or isinstance(value, (bool, int, float)):
        out.append(json.dumps(value))
    else:
        raise TypeError(value)


def _names(res: Resource, shown: str) -> tuple[str, str]:
    """``spec.group`` and ``spec.names.kind``, checked as the API server checks them: they
    become a folder and a file name."""
    spec = res.obj.get("spec")
    names = spec.get("names") if isinstance(spec, dict) else None
    group = spec.get("group") if isinstance(spec, dict) else None
    kind = names.get("kind") if isinstance(names, dict) else None
    if not (isinstance(group, str) and group and isinstance(kind, str) and kind):
        line, col = res.document.position(res.base + ("spec",))
        raise InputError(
            "CustomResourceDefinition without spec.group or spec.names.kind (strings)", path=shown, line=line, col=col
        )
    if not _GROUP.fullmatch(group) or len(group) > 253:
        _bad(
            res,
            shown,
            ("spec", "group"),
            f"spec.group {group!r} is not a DNS subdomain with a dot",
            "groups look like example.com or nvidia.com",
        )
    if not _LABEL.fullmatch(kind.lower()):
        _bad(
            res,
            shown,
            ("spec", "names", "kind"),
            f"spec.names.kind {kind!r} is not a valid kind",
            "kinds are CamelCase letters and digits, e.g. ClusterPolicy",
        )
    return group, kind


def _target(output: Path, group: str, kind: str, version: str, res: Resource, shown: str) -> Path:
    """``<output>/<group>/<kind>_<version>.json``, which must stay under ``output``."""
    if not isinstance(version, str) or not _LABEL.fullmatch(version):
        where = _version_path(res, version)
        _bad(
            res,
            shown,
            where + ("name",) if len(where) > 2 else where,
            f"version {version!r} is not a valid version name",
            "versions look like v1 or v1beta2",
        )
    target = output / group / f"{kind.lower()}_{version}.json"
    if not target.resolve().is_relative_to(output.resolve()):
        _bad(res, shown, ("spec",), f"schema file {target} would be outside {output}", "")
    return target


def _version_path(res: Resource, version: object) -> tuple:
    """``spec.versions[i]`` of a version name, or ``spec.version`` (v1beta1 CRDs)."""
    listed = _mapping(res.obj.get("spec")).get("versions")
    for i, item in enumerate(listed if isinstance(listed, list) else []):
        if isinstance(item, dict) and item.get("name") == version:
            return ("spec", "versions", i)
    return ("spec", "version")


def _bad(res: Resource, shown: str, path: tuple, message: str, hint: str) -> NoReturn:
    line, col = res.document.position(res.base + path, at_value=True)
    raise InputError(message, path=shown, line=line, col=col, hint=hint)
