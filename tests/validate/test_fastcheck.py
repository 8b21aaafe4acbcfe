"""The compiled schema check agrees with jsonschema: on real objects and on broken copies."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from conftest import CRD_LOCATIONS, CRD_SCHEMAS, SHARED, needs_crd_schemas

from generator.lint.loader import read
from generator.validate import SchemaValidator, fastcheck

ROOT = Path(__file__).resolve().parents[2]
PEER = SHARED / "peer" / "kubeconform" / "fixtures"
_WRONG = ("text", 7, 1.5, True, None, [], {})


def _objects():
    files = sorted((ROOT / "tests" / "fixtures").rglob("*.yaml")) + sorted((ROOT / "rendered").rglob("*.yaml"))
    files += sorted(PEER.glob("*.yaml")) if PEER.is_dir() else []
    for path in files:
        for res in read(str(path), str(path)).resources:
            if isinstance(res.obj.get("apiVersion"), str) and isinstance(res.obj.get("kind"), str):
                yield res.obj


def _mutations(obj, limit=60):
    """Copies of ``obj`` with one leaf replaced by a value of each other type, or one key added."""
    paths = []

    def walk(node, path):
        if isinstance(node, dict):
            paths.append((path, "extra"))
            for key, value in node.items():
                walk(value, path + (key,))
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, path + (i,))
        else:
            paths.append((path, "leaf"))

    walk(obj, ())
    for path, what in paths[:limit]:
        for wrong in _WRONG if what == "leaf" else ("unknownField",):
            # only the collections on the path are copied: the rest is shared, and nothing writes to it
            mutated = node = copy.copy(obj)
            for part in path[:-1] if what == "leaf" else path:
                node[part] = node = copy.copy(node[part])
            if what == "leaf":
                if path[-1] in ("apiVersion", "kind") and len(path) == 1:
                    continue
                node[path[-1]] = wrong
            else:
                node[wrong] = 1
            yield mutated


def test_compiled_check_matches_jsonschema():
    validator = SchemaValidator("1.32")
    compared, mutated_kinds = 0, set()
    for obj in _objects():
        if not validator.has_schema(obj["apiVersion"], obj["kind"]):
            continue
        compiled = validator._validator_for(obj["apiVersion"], obj["kind"])
        if compiled.fast is None:
            continue
        slow = compiled.full()
        key = (obj["apiVersion"], obj["kind"])
        # broken copies of the first object of each kind; the others as they are
        candidates = [obj] if key in mutated_kinds else [obj, *_mutations(obj)]
        mutated_kinds.add(key)
        for candidate in candidates:
            assert compiled.passes(candidate) == slow.is_valid(candidate), (obj["kind"], candidate)
            compared += 1
    assert compared > 1000


def test_unsupported_keywords_are_refused():
    compiler = fastcheck.Compiler({}, ())
    with pytest.raises(fastcheck.Unsupported):
        compiler.compile({"type": "object", "dependentRequired": {"a": ["b"]}})
    with pytest.raises(fastcheck.Unsupported):
        compiler.compile({"type": "object", "object": {}})  # an unknown keyword, whatever its name
    with pytest.raises(fastcheck.Unsupported):
        compiler.compile({"type": "string", "pattern": "(?<!a"})  # Python cannot compile it
    with pytest.raises(fastcheck.Unsupported):
        compiler.compile({"$ref": "https://elsewhere/x.json"})
    assert compiler.compile({"type": ["integer", "null"], "x-kubernetes-int-or-string": True})(None)


def test_a_property_is_compiled_when_a_value_first_reaches_it():
    """A kind's object schema lists dozens of properties and an object sets a few: each
    property's schema compiles on its first value (a lint after an edit compiles 190 schema
    nodes for its five objects, not 408), so one outside the subset only counts when reached."""
    compiler = fastcheck.Compiler({}, ())
    check = compiler.compile(
        {"type": "object", "properties": {"size": {"type": "integer"}, "odd": {"dependentRequired": {"a": ["b"]}}}}
    )
    assert check({"size": 1}) and not check({"size": "1"}) and check({"other": 1})
    with pytest.raises(fastcheck.Unsupported):
        check({"odd": {}})


def test_a_definition_outside_the_subset_met_by_an_object_leaves_the_kind_to_jsonschema():
    """Definitions compile when an object reaches them; one the compiler refuses then makes
    the kind's objects go through jsonschema, which still finds what is wrong."""
    from generator.validate.validator import _empty_registry, _Kind

    definitions = {"Name": {"type": "object", "dependentRequired": {"a": ["b"]}}}
    schema = {
        "type": "object",
        "properties": {"name": {"$ref": "#/$defs/Name"}, "size": {"type": "integer"}},
        "$defs": definitions,
    }
    check = fastcheck.Compiler(definitions, ("#/$defs/",)).compile(schema)
    assert check({"size": 1})  # the definition is not reached: nothing to refuse yet
    kind = _Kind(schema, _empty_registry, check)
    assert not kind.passes({"name": {"a": 1}}) and kind.fast is None
    assert not kind.full().is_valid({"name": {"a": 1}}) and kind.full().is_valid({"name": {"a": 1, "b": 2}})


_DRAFT_URIS = [
    "http://json-schema.org/draft-03/schema",
    "http://json-schema.org/draft-04/schema#",
    "http://json-schema.org/draft-06/schema#",
    "http://json-schema.org/draft-07/schema",
    "http://json-schema.org/draft-07/schema#",
    "https://json-schema.org/draft/2019-09/schema",
    "https://json-schema.org/draft/2020-12/schema",
    "https://json-schema.org/draft/2020-12/schema#",
    "https://example.com/my-own/schema",
]


@pytest.mark.parametrize("schema", [{}, *({"$schema": uri} for uri in _DRAFT_URIS)])
def test_the_compiled_check_is_used_for_the_drafts_jsonschema_would_choose(schema):
    """The draft is told from $schema without importing jsonschema, as its ``validator_for`` tells it."""
    import jsonschema

    from generator.validate.validator import fast_draft

    chosen = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    followed = (
        jsonschema.Draft6Validator,
        jsonschema.Draft7Validator,
        jsonschema.Draft201909Validator,
        jsonschema.Draft202012Validator,
    )
    assert fast_draft(schema) == (chosen in followed)


# lints the good file, then the good and the bad: the modules loaded after each, in one process
# (what the first lint did not load, the second would load only for the bad file)
_MODULES_AFTER_LINT = """
import json, sys
from generator.lint import lint_paths
from generator.lint.settings import Settings
for paths in (sys.argv[1:2], sys.argv[1:]):
    findings = lint_paths(paths, Settings()).findings
    print(json.dumps({"rules": sorted({f.rule for f in findings}), "modules": sorted(sys.modules)}))
"""


def test_jsonschema_is_imported_only_to_explain_an_object_that_fails(tmp_path):
    import json
    import subprocess
    import sys

    good = tmp_path / "good.yaml"
    good.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k: v}\n", encoding="utf-8")
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\ndta: {k: v}\n", encoding="utf-8")
    out = subprocess.run(
        [sys.executable, "-c", _MODULES_AFTER_LINT, str(good), str(bad)],
        capture_output=True,
        encoding="utf-8",
        check=True,
    )
    good_run, bad_run = map(json.loads, out.stdout.splitlines()[-2:])
    assert good_run["rules"] == [] and not {"jsonschema", "referencing"} & set(good_run["modules"])
    assert bad_run["rules"] == ["K8S003"] and {"jsonschema", "referencing"} <= set(bad_run["modules"])


_KEYWORD_SCHEMAS = [
    {"type": "string", "pattern": "^[a-z]+$"},
    {"pattern": "b"},  # applies to strings only
    {"minLength": 2, "maxLength": 3},
    {"maxLength": 0},
    {"minItems": 1, "maxItems": 2},
    {"minProperties": 1, "maxProperties": 1},
    {"minimum": 1, "maximum": 2.5},
    {"exclusiveMinimum": 0, "exclusiveMaximum": 10},
    {"anyOf": [{"type": "integer"}, {"type": "string", "pattern": "^[0-9]+%$"}], "x-kubernetes-int-or-string": True},
    {"allOf": [{"minLength": 1}, {"pattern": "x"}]},
    {"not": {"type": "string"}},
    {"type": "object", "properties": {"a": {"type": "integer", "minimum": 0}}, "minProperties": 1},
    # the shapes checked as one loop or one test (arrays, maps, nullable numbers, one of two)
    {"type": ["array", "null"], "items": {"type": ["string", "null"]}},
    {"type": "array", "items": {"type": "integer", "minimum": 1}},
    {"type": ["null", "array"], "items": {"$ref": "#/$defs/n"}, "$defs": {"n": {"type": ["integer", "null"]}}},
    {"type": ["object", "null"], "additionalProperties": {"type": ["string", "null"]}},
    {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}},
    {"type": "object", "additionalProperties": {"$ref": "#/$defs/n"}, "$defs": {"n": {"type": "number"}}},
    {"type": ["integer", "null"]},
    {"type": ["null", "number"]},
    {"oneOf": [{"type": ["string", "null"]}, {"type": ["integer", "null"]}]},
    {"oneOf": [{"type": "string"}, {"type": "number"}]},
    {"oneOf": [{"type": "integer"}, {"type": "number"}]},
]
_KEYWORD_VALUES = [
    "",
    "ab",
    "abc",
    "abcd",
    "bb",
    "ééé",
    "50%",
    "x",
    0,
    1,
    2,
    2.5,
    3,
    10,
    -1,
    1.0,
    float("nan"),
    float("inf"),
    True,
    False,
    None,
    [],
    [1],
    [1, 2, 3],
    [1, True],
    [1.0, 2.5],
    ["a", None],
    ["a", 1],
    [None],
    {},
    {"a": 1},
    {"a": -1},
    {"a": 1, "b": 2},
    {"a": "x"},
    {"a": None},
    {"a": "x", "b": 2},
    {"a": 1.5, "b": False},
]


@pytest.mark.parametrize("schema", _KEYWORD_SCHEMAS, ids=lambda s: ",".join(sorted(s)))
def test_the_keywords_custom_resources_use_are_decided_as_jsonschema_decides(schema):
    import jsonschema

    check = fastcheck.Compiler(schema.get("$defs", {}), ("#/$defs/",)).compile(schema)
    slow = jsonschema.Draft202012Validator(schema, format_checker=None)
    for value in _KEYWORD_VALUES:
        assert check(value) == slow.is_valid(value), (schema, value)


def _crd_locations():
    from generator.validate.locations import SchemaLocation

    return [SchemaLocation(t) for t in CRD_LOCATIONS]


@pytest.mark.slow
@needs_crd_schemas()
def test_every_upstream_crd_schema_compiles_and_agrees_with_jsonschema():
    """Custom resources take the compiled check too: every schema of ../shared/crd-schemas
    compiles, and on the rendered custom resources and broken copies of them both agree."""
    from generator.validate.validator import _custom_schema

    for path in sorted(CRD_SCHEMAS.rglob("*.json")):
        # loaded, checked against its metaschema and compiled (no Unsupported) as a schema
        # location's file is, once per content: the validator below takes the same
        _schema, fast = _custom_schema(path, lambda pattern: None, check=True)
        assert fast is not None, path
    validator = SchemaValidator("1.32", _crd_locations())
    compared, kinds = 0, set()
    for obj in _objects():
        key = (obj["apiVersion"], obj["kind"])
        compiled = validator._validator_for(*key)
        if compiled is None or not compiled.custom:
            continue
        assert compiled.fast is not None, key
        candidates = [obj] if key in kinds else [obj, *_mutations(obj)]
        kinds.add(key)
        for candidate in candidates:
            assert compiled.passes(candidate) == compiled.full().is_valid(candidate), (key, candidate)
            compared += 1
    assert len(kinds) >= 10 and compared > 500


@needs_crd_schemas()
def test_a_crd_schema_is_loaded_and_compiled_once_per_process_for_every_kubernetes_version():
    """Clusters of several Kubernetes versions share one compiled check per schema file."""
    first = SchemaValidator("1.31", _crd_locations())
    second = SchemaValidator("1.32", _crd_locations())
    a = first._validator_for("helm.toolkit.fluxcd.io/v2", "HelmRelease")
    b = second._validator_for("helm.toolkit.fluxcd.io/v2", "HelmRelease")
    assert a is not None and b is not None and a.fast is b.fast and a.schema is b.schema
