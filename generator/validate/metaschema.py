"""The metaschema check of a schema file, the verdicts of identical sub-schemas shared.

A CRD's schema repeats the same sub-schemas many times over (Argo CD's ApplicationSet holds
11,407 schema objects, 195 of them distinct), and jsonschema checks Draft 2020-12's metaschema
against every one again: nine CPU-seconds for that file, about 150 for a first ``schemas sync``
of the pinned CRDs. In Draft 2020-12 each sub-schema is checked through ``$dynamicRef: "#meta"``,
whose target is the outermost ``$dynamicAnchor: meta`` of the check, the metaschema it started
from (Draft 2020-12 §8.2.3.2): the reference's verdict depends on the sub-schema's content
alone, so a pass is kept by content and answered again, in this file and the next.

Only passes are kept. A schema with a fault is checked again by jsonschema's own
``check_schema``, so what is reported, and its wording, is jsonschema's.

Before any of that, a Draft 2020-12 schema meets the compiled yes/no check of ``fastcheck``
(``_compiled``): the same metaschema documents with every ``$dynamicRef: "#meta"`` made a
``$ref`` to the root, which is where the check resolves it as said above, and their ``$ref``s
made names of one definitions map. A yes is final (fastcheck refuses to compile any keyword it
does not implement as jsonschema does); a no goes on to jsonschema. Checking the 24 CRD schema
files of a fleet's first render took ~0.5 s through jsonschema, about a fifth of that render.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from functools import cache
from typing import Any

import jsonschema
from jsonschema import Draft202012Validator
from jsonschema.protocols import Validator

# jsonschema picks a validator class by a schema's `$schema` each time a `$ref` is followed
# (`Validator.evolve`), which would hand the check back to the plain class at the first
# vocabulary. The check runs over copies of the metaschemas without `$schema`, under a base of
# their own, so the class below keeps it; the base is never fetched (a registry lookup only).
_BASE = "https://json-schema.org/draft/2020-12/"
_OWN = "https://metaschema.gpu-gitops.invalid/draft/2020-12/"

# digests of (reference, sub-schema) pairs that passed, for the life of the process
_PASSED: set[bytes] = set()


def check(cls: type[Validator], schema: dict) -> None:
    """Raise ``jsonschema.SchemaError`` where ``schema`` does not meet ``cls``'s metaschema.

    Draft 2020-12 (the default of CRD schemas) takes the shared verdicts; other drafts, and
    every schema that fails, take jsonschema's ``check_schema``."""
    if cls is Draft202012Validator and (_compiled()(schema) or _validator().is_valid(schema)):
        return
    # (types-jsonschema does not know check_schema's format_checker, jsonschema >= 4.16)
    cls.check_schema(schema, format_checker=None)  # type: ignore[call-arg]


@cache
def _validator() -> Validator:
    """A Draft 2020-12 metaschema validator whose ``$dynamicRef`` answers again what passed."""
    from jsonschema_specifications import REGISTRY
    from referencing import Registry
    from referencing.jsonschema import DRAFT202012

    resources = [
        (_OWN + uri[len(_BASE) :], DRAFT202012.create_resource(_moved(REGISTRY.contents(uri))))
        for uri in REGISTRY
        if uri.startswith(_BASE)
    ]
    registry: Registry = Registry().with_resources(resources)
    shared = jsonschema.validators.extend(Draft202012Validator, {"$dynamicRef": _dynamic_ref})
    # format checks stay off, as in the plain check (CRD patterns are RE2, not Python's)
    return shared(registry.contents(_OWN + "schema"), registry=registry, format_checker=None)


@cache
def _compiled() -> Callable[[object], bool]:
    """The Draft 2020-12 metaschema as a ``fastcheck`` yes/no check; a check that says no to
    everything if it cannot be compiled (then jsonschema answers alone)."""
    from jsonschema_specifications import REGISTRY

    from generator.validate.fastcheck import Compiler, Unsupported

    documents = {uri[len(_BASE) :]: REGISTRY.contents(uri) for uri in REGISTRY if uri.startswith(_BASE)}
    definitions: dict[str, Any] = {}
    for name, document in documents.items():
        definitions[name] = _static(document, name)
        for key, sub in document.get("$defs", {}).items():
            definitions[f"{name}#/$defs/{key}"] = _static(sub, name)
    try:
        compiled = Compiler(definitions, ("",)).compile(definitions["schema"])
    except Unsupported:
        return lambda schema: False

    def check(schema: object) -> bool:
        try:
            return compiled(schema)
        except Unsupported:  # a definition or property is compiled when a schema first reaches it
            return False

    return check


def _static(node: Any, document: str) -> Any:
    """A metaschema node for ``_compiled``: ``$dynamicRef: "#meta"`` is a ``$ref`` to the root,
    a local ``$ref`` names its document, and the keywords that only identify (``$vocabulary``,
    ``$dynamicAnchor``) and ``items: true`` are dropped. Only schema positions hold keywords: ``properties`` and
    ``$defs`` map names to schemas, and ``enum`` and ``const`` hold values, kept as they are."""
    if isinstance(node, list):
        return [_static(value, document) for value in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in ("$vocabulary", "$dynamicAnchor", "$defs") or (key == "items" and value is True):
            continue  # ``items: true`` allows any item: no check (fastcheck compiles schema objects only)
        if key == "$dynamicRef":
            if value != "#meta":
                raise ValueError(f"unexpected $dynamicRef {value!r} in the metaschema")
            out["$ref"] = "schema"
        elif key == "$ref":
            out["$ref"] = f"{document}{value}" if value.startswith("#") else value
        elif key in ("properties", "patternProperties", "dependentSchemas"):
            out[key] = {name: _static(sub, document) for name, sub in value.items()}
        elif key in ("enum", "const", "default", "examples"):
            out[key] = value
        else:
            out[key] = _static(value, document)
    return out


def _moved(node: Any) -> Any:
    """A metaschema document without ``$schema``, its references under the own base."""
    if isinstance(node, dict):
        return {key: _moved(value) for key, value in node.items() if key != "$schema"}
    if isinstance(node, list):
        return [_moved(value) for value in node]
    if isinstance(node, str) and node.startswith(_BASE):
        return _OWN + node[len(_BASE) :]
    return node


_PLAIN_DYNAMIC_REF = Draft202012Validator.VALIDATORS["$dynamicRef"]


def _dynamic_ref(validator: Validator, ref: str, instance: Any, schema: dict) -> Iterator[jsonschema.ValidationError]:
    """``$dynamicRef`` as jsonschema checks it, once per distinct sub-schema that passes."""
    # canonical JSON: `true` and `1`, `1.0` and `1` stay apart, as the metaschema tells them apart
    key = hashlib.blake2b(json.dumps([ref, instance], sort_keys=True).encode(), digest_size=20).digest()
    if key in _PASSED:
        return
    errors = list(_PLAIN_DYNAMIC_REF(validator, ref, instance, schema))
    if not errors:
        _PASSED.add(key)
    yield from errors
