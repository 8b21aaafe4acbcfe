"""The compiled check of the input schemas (``const``, ``uniqueItems``, ``propertyNames``,
``if``/``then``/``else``) decides as jsonschema does: keyword by keyword, and on every example
cluster's input and broken copies of it."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from generator.inputs import load
from generator.paths import Project
from generator.validate import fastcheck
from tests.validate.test_fastcheck import _mutations

ROOT = Path(__file__).resolve().parents[2]
VALUES = [
    None,
    True,
    False,
    0,
    1,
    1.0,
    2,
    "1",
    "a",
    "b",
    [],
    [1],
    [1, 1.0],
    [True, 1],
    [False, 0],
    ["a", "a"],
    ["a", "b"],
    [[1], [1.0]],
    [{"a": 1}, {"a": 1.0}],
    [{"a": 1}, {"a": True}],
    [{"a": [1]}, {"a": [True]}],
    {},
    {"a": 1},
    {"a": True},
    {"B": 1, "a": 2},
    {"ab": None, "a-b": 1},
]
SCHEMAS = [
    {"const": 1},
    {"const": True},
    {"const": "a"},
    {"const": None},
    {"const": [1, {"a": 1}]},
    {"const": {"a": 1}},
    {"uniqueItems": True},
    {"uniqueItems": False},
    {"propertyNames": {"pattern": "^[a-z]+$"}},
    {"propertyNames": {"maxLength": 1}},
    {"if": {"type": "object", "required": ["a"]}, "then": {"properties": {"a": {"const": 1}}}},
    {"if": {"type": "array"}, "then": {"minItems": 1}, "else": {"type": "string"}},
    {"if": {"const": 1}, "else": {"const": "a"}},
    {"then": {"const": 1}, "else": {"const": 2}},  # without an if: no effect
    {"type": "array", "uniqueItems": True, "items": {"type": "string"}},
]


@pytest.mark.parametrize("schema", SCHEMAS, ids=json.dumps)
def test_each_keyword_is_decided_as_jsonschema_decides(schema):
    check = fastcheck.Compiler({}, ()).compile(schema)
    validator = jsonschema.Draft202012Validator(schema)
    for value in VALUES:
        assert check(value) == validator.is_valid(value), value


def test_a_uniqueitems_that_is_no_boolean_is_left_to_jsonschema():
    with pytest.raises(fastcheck.Unsupported):
        fastcheck.Compiler({}, ()).compile({"uniqueItems": 1})


def _inputs():
    project = Project(ROOT)
    for name in project.cluster_names():
        doc, _layers, _found = load.read_layers(project, name)
        yield name, doc.data


def test_the_cluster_schema_compiles_and_agrees_with_jsonschema_on_every_example_and_broken_copies():
    schema = json.loads((ROOT / "schemas" / "cluster.schema.json").read_text(encoding="utf-8"))
    check = fastcheck.Compiler(schema["$defs"], ("#/$defs/",)).compile(schema)
    validator = jsonschema.Draft202012Validator(schema)
    verdicts = []
    for name, data in _inputs():
        assert check(data) and validator.is_valid(data), name
        for mutated in _mutations(data, limit=120):
            verdicts.append(expected := validator.is_valid(mutated))
            assert check(mutated) == expected, (name, mutated)
    assert True in verdicts and False in verdicts


def test_a_valid_input_is_not_walked_by_jsonschema_and_an_invalid_one_is_explained(monkeypatch):
    project = Project(ROOT)
    name = project.cluster_names()[0]
    doc, _layers, _found = load.read_layers(project, name)
    schema = load.load_schema(project.schema_file)
    walked = []
    real = jsonschema.Draft202012Validator
    monkeypatch.setattr(jsonschema, "Draft202012Validator", lambda s: walked.append(s) or real(s))
    assert load.schema_errors(doc, schema) == []
    assert walked == []
    doc.data["kubernetesVersion"] = 1.32
    errors = load.schema_errors(doc, schema)
    assert walked == [schema] and errors and "kubernetesVersion" in str(errors[0])
