"""``resolve_ref``: local references of the input schema, followed once a process."""

from __future__ import annotations

from generator.inputs.load import apply_defaults
from generator.inputs.schemaref import resolve_ref


def _schema() -> dict:
    return {
        "$defs": {"pool": {"type": "object", "properties": {"count": {"type": "integer", "default": 1}}}},
        "properties": {
            "pool": {"$ref": "#/$defs/pool", "description": "the pool"},
            "tags": {"type": "array", "default": ["a"]},
        },
    }


def test_a_reference_is_followed_once_and_keeps_its_description():
    root = _schema()
    node = root["properties"]["pool"]
    first = resolve_ref(root, node)
    assert first["description"] == "the pool" and first["properties"] == root["$defs"]["pool"]["properties"]
    assert resolve_ref(root, node) is first  # the defaults and the merge ask for every cluster
    assert "description" not in root["$defs"]["pool"]


def test_another_schema_with_the_same_shape_is_followed_on_its_own():
    one, other = _schema(), _schema()
    other["$defs"]["pool"]["properties"]["count"]["default"] = 2
    assert apply_defaults(one, {"pool": {}}) == {"pool": {"count": 1}, "tags": ["a"]}
    assert apply_defaults(other, {"pool": {}}) == {"pool": {"count": 2}, "tags": ["a"]}


def test_a_default_container_is_copied_into_each_input():
    root = _schema()
    a, b = apply_defaults(root, {}), apply_defaults(root, {})
    a["tags"].append("b")
    assert b["tags"] == ["a"] and root["properties"]["tags"]["default"] == ["a"]
