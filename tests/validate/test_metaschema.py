"""The metaschema check with shared verdicts says what jsonschema's own check says."""

from __future__ import annotations

import copy
import json

import jsonschema
import pytest
from jsonschema import Draft7Validator, Draft202012Validator

from generator.validate import metaschema
from tests.conftest import CRD_SCHEMAS, needs_shared

# A CRD-like schema whose sub-schemas repeat, as generated CRDs do.
_CONTAINER = {
    "type": "object",
    "required": ["name"],
    "properties": {
        "name": {"type": "string", "maxLength": 63},
        "ports": {"type": "array", "items": {"type": "object", "properties": {"port": {"type": "integer"}}}},
        "env": {"type": "array", "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
    },
}
SCHEMA = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "properties": {
                "containers": {"type": "array", "items": copy.deepcopy(_CONTAINER)},
                "initContainers": {"type": "array", "items": copy.deepcopy(_CONTAINER)},
                "sidecars": {"type": "array", "items": copy.deepcopy(_CONTAINER)},
            },
        }
    },
}

# faults deep in one copy of a repeated sub-schema, each refused by Draft 2020-12's metaschema
FAULTS = [
    ("spec", "containers", "name", "type", 5),
    ("spec", "initContainers", "name", "maxLength", -1),
    ("spec", "sidecars", "name", "maxLength", True),
    ("spec", "sidecars", "ports", "items", "not a schema"),
    ("spec", "containers", "name", "required", "name"),
    ("spec", "initContainers", "ports", "minItems", 1.5),
]


def _with_fault(path: tuple) -> dict:
    schema = copy.deepcopy(SCHEMA)
    *where, key, value = path
    node = schema["properties"][where[0]]["properties"][where[1]]["items"]["properties"][where[2]]
    node[key] = value
    return schema


def _plain_error(schema: dict) -> str | None:
    try:
        Draft202012Validator.check_schema(schema, format_checker=None)
    except jsonschema.SchemaError as exc:
        return exc.message
    return None


def test_a_schema_with_repeated_sub_schemas_passes():
    metaschema.check(Draft202012Validator, SCHEMA)


@pytest.mark.parametrize("fault", FAULTS, ids=[f"{p[-2]}={p[-1]!r}" for p in FAULTS])
def test_a_fault_in_one_copy_of_a_sub_schema_that_passed_elsewhere_is_refused_in_jsonschemas_words(fault):
    metaschema.check(Draft202012Validator, SCHEMA)  # the fault-free copies pass, and are kept
    schema = _with_fault(fault)
    expected = _plain_error(schema)
    assert expected is not None
    with pytest.raises(jsonschema.SchemaError) as refused:
        metaschema.check(Draft202012Validator, schema)
    assert refused.value.message == expected


def test_true_and_one_are_not_the_same_sub_schema():
    """JSON's `true` and `1` are equal in Python: a verdict kept for one must not answer the other."""
    metaschema.check(Draft202012Validator, {"properties": {"a": {"uniqueItems": True}}})
    with pytest.raises(jsonschema.SchemaError):
        metaschema.check(Draft202012Validator, {"properties": {"a": {"uniqueItems": 1}}})


def test_another_draft_is_checked_against_its_own_metaschema():
    draft7 = {"$schema": "http://json-schema.org/draft-07/schema#", "properties": {"a": {"type": "string"}}}
    metaschema.check(Draft7Validator, draft7)
    with pytest.raises(jsonschema.SchemaError):
        metaschema.check(Draft7Validator, {**draft7, "properties": {"a": {"type": 5}}})


@needs_shared(CRD_SCHEMAS, "the upstream CRD schemas")
def test_every_shared_crd_schema_passes_and_a_broken_copy_fails_as_jsonschema_says():
    """The check agrees with jsonschema on real CRD schemas: every one passes (as each passed
    jsonschema's own check in `schemas sync` before), and a copy broken at its deepest
    property is refused with jsonschema's message."""
    paths = sorted(CRD_SCHEMAS.rglob("*.json"))
    assert len(paths) > 20
    for path in paths:
        metaschema.check(Draft202012Validator, json.loads(path.read_bytes()))
    smallest = min(paths, key=lambda p: p.stat().st_size)
    broken = json.loads(smallest.read_bytes())
    node = broken
    while isinstance(node.get("properties"), dict) and node["properties"]:
        node = node["properties"][sorted(node["properties"])[-1]]
    node["type"] = ["string", "no such type"]
    expected = _plain_error(broken)
    assert expected is not None
    with pytest.raises(jsonschema.SchemaError) as refused:
        metaschema.check(Draft202012Validator, broken)
    assert refused.value.message == expected


# schemas against every keyword of Draft 2020-12's vocabularies, right and wrong, and the
# metaschema's own forms: booleans, `$defs`, references, the old `definitions` and `dependencies`
_KEYWORD_CASES = [
    True,
    False,
    {},
    {"type": "string", "minLength": 0, "maxLength": 5, "pattern": "^a"},
    {"type": ["string", "null"], "enum": [1, "a", None, {"x": [1]}], "const": {"any": "value"}},
    {"type": []},
    {"type": ["string", "string"]},
    {"type": "no-such-type"},
    {"multipleOf": 0},
    {"multipleOf": 0.5, "minimum": -1, "exclusiveMaximum": 2.5},
    {"maximum": "1"},
    {"minItems": -1},
    {"maxProperties": 1.0},
    {"maxProperties": 1.5},
    {"uniqueItems": 1},
    {"required": ["a", "a"]},
    {"required": ["a", 1]},
    {"dependentRequired": {"a": ["b"]}},
    {"dependentRequired": {"a": "b"}},
    {"enum": "a"},
    {"properties": {"a": {"type": 1}}},
    {"properties": {"a": True, "b": False}},
    {"patternProperties": {"^x-": {"type": "string"}}},
    {"patternProperties": {"^x-": 5}},
    {"additionalProperties": {"items": [{"type": "string"}]}},
    {"prefixItems": [{"type": "string"}], "items": False, "contains": {"const": 1}, "minContains": 0},
    {"prefixItems": []},
    {"allOf": []},
    {"anyOf": [{"type": "string"}, 7]},
    {"oneOf": [True]},
    {"if": {"type": "string"}, "then": {"minLength": 1}, "else": False},
    {"not": "x"},
    {"propertyNames": {"pattern": "^[a-z]+$"}},
    {"dependentSchemas": {"a": {"required": ["b"]}}},
    {"unevaluatedProperties": False, "unevaluatedItems": {"type": "string"}},
    {"unevaluatedProperties": "no"},
    {"$defs": {"a": {"type": "string"}}, "$ref": "#/$defs/a"},
    {"$defs": {"a": {"type": 3}}},
    {"$ref": 5},
    {"$id": "https://example.com/a#frag"},
    {"$id": "https://example.com/a#"},
    {"$anchor": "1bad"},
    {"$anchor": "good_anchor"},
    {"$dynamicAnchor": "meta", "$dynamicRef": "#meta"},
    {"$vocabulary": {"https://example.com/v": "yes"}},
    {"$comment": 1},
    {"title": "t", "description": 2},
    {"deprecated": "yes", "readOnly": True, "writeOnly": False, "examples": "x"},
    {"format": 5},
    {"contentEncoding": "base64", "contentMediaType": 1},
    {"contentSchema": {"type": "object"}},
    {"definitions": {"a": {"type": 2}}},
    {"dependencies": {"a": ["b"], "c": {"type": "string"}}},
    {"dependencies": {"a": 1}},
    {"$recursiveAnchor": "x", "$recursiveRef": "#"},
    {"x-kubernetes-preserve-unknown-fields": True, "x-kubernetes-int-or-string": "anything"},
    {"properties": {"spec": {"properties": {"a": {"items": {"properties": {"b": {"maxLength": "5"}}}}}}}},
]


@pytest.mark.parametrize("schema", _KEYWORD_CASES, ids=[json.dumps(c)[:50] for c in _KEYWORD_CASES])
def test_the_compiled_metaschema_answers_as_jsonschema_does(schema):
    """The compiled check's yes is final, so it must never pass what jsonschema refuses; and it
    should pass what jsonschema passes, or the slow path runs for nothing."""
    expected = Draft202012Validator(Draft202012Validator.META_SCHEMA, format_checker=None).is_valid(schema)
    assert metaschema._compiled()(schema) == expected


def test_the_compiled_metaschema_is_the_first_answer_and_a_no_goes_on_to_jsonschema(monkeypatch):
    asked: list[object] = []
    monkeypatch.setattr(metaschema, "_validator", lambda: asked.append("jsonschema") or Draft202012Validator(False))
    metaschema.check(Draft202012Validator, SCHEMA)
    assert asked == []  # passed by the compiled check alone
    with pytest.raises(jsonschema.SchemaError):
        metaschema.check(Draft202012Validator, _with_fault(FAULTS[0]))
    assert asked == ["jsonschema"]


@needs_shared(CRD_SCHEMAS, "the upstream CRD schemas")
def test_the_compiled_metaschema_passes_every_shared_crd_schema_and_refuses_each_broken_copy():
    compiled = metaschema._compiled()
    plain = Draft202012Validator(Draft202012Validator.META_SCHEMA, format_checker=None)
    for path in sorted(CRD_SCHEMAS.rglob("*.json")):
        schema = json.loads(path.read_bytes())
        assert compiled(schema), path
        node = schema
        while isinstance(node.get("properties"), dict) and node["properties"]:
            node = node["properties"][sorted(node["properties"])[0]]
        node["minLength"] = -1
        assert not compiled(schema) and not plain.is_valid(schema), path
