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
from pathlib import Path

from generator.errors import InputError
from generator.lint.loader import parse_text, resources_of


def strict(schema: dict) -> dict:
    """A copy of an OpenAPI v3 schema with the API server's decoding rules made explicit."""
    out = copy.deepcopy(schema)
    _tighten(out)
    return out


def _tighten(node) -> None:
    if isinstance(node, list):
        for item in node:
            _tighten(item)
        return
    if not isinstance(node, dict):
        return
    for key, value in list(node.items()):
        if key in ("properties", "patternProperties", "definitions"):
            for child in value.values():
                _tighten(child)
        elif key in ("items", "additionalProperties", "not", "allOf", "anyOf", "oneOf"):
            _tighten(value)
    if node.pop("x-kubernetes-int-or-string", False):
        node.pop("type", None)
        node.pop("format", None)
        node["oneOf"] = [{"type": "integer"}, {"type": "string"}] + node.get("oneOf", [])
    preserve = node.get("x-kubernetes-preserve-unknown-fields") is True
    if "properties" in node and "additionalProperties" not in node and not preserve:
        node["additionalProperties"] = False
    if node.pop("nullable", False) and isinstance(node.get("type"), str):
        node["type"] = [node["type"], "null"]


def versions(crd: dict) -> list[tuple[str, dict]]:
    """``(version, openAPIV3Schema)`` for every served version (v1 and v1beta1 CRDs)."""
    spec = crd.get("spec") or {}
    shared = ((spec.get("validation") or {}).get("openAPIV3Schema"))
    out = []
    for version in spec.get("versions") or [{"name": spec.get("version"), "served": True}]:
        if not isinstance(version, dict) or not version.get("served", True) or not version.get("name"):
            continue
        schema = ((version.get("schema") or {}).get("openAPIV3Schema")) or shared
        if isinstance(schema, dict):
            out.append((version["name"], schema))
    return out


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


def import_files(paths: list[Path], output: Path, display) -> list[Path]:
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
                spec = res.obj.get("spec") or {}
                if not (spec.get("group") and (spec.get("names") or {}).get("kind")):
                    line, _ = res.document.position(res.base + ("spec",))
                    raise InputError("CustomResourceDefinition without spec.group or spec.names.kind",
                                     path=display(path), line=line)
                crds += 1
                for version, schema in versions(res.obj):
                    target = output / spec["group"] / f"{spec['names']['kind'].lower()}_{version}.json"
                    target.parent.mkdir(parents=True, exist_ok=True)
                    body = json.dumps(document_schema(res.obj, version, schema), indent=2, sort_keys=True) + "\n"
                    target.write_text(body)
                    written.append(target)
        if not crds:
            raise InputError("no CustomResourceDefinition in this file", path=display(path),
                             hint="pass CRD manifests, or the output of `kubectl get crd -o yaml`")
    return sorted(written)
