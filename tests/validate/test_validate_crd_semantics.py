"""Custom resources checked as the API server checks them: RE2 patterns, pruned nulls,
defaults before ``required``, and the CRD's CEL rules."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from generator.validate import SchemaValidator
from generator.validate.locations import SchemaLocation
from generator.validate.re2 import Untranslatable, to_python, translate


@pytest.mark.parametrize(
    ("re2", "matches", "misses"),
    [
        # PrometheusRule / AlertmanagerConfig style: flags in the middle, scoped to the rest of the group
        ("^((?i)sun|mon)day$", ["SUNday", "MONday", "monday"], ["monDAY", "tueday"]),
        ("^(?i)(abort|warn)?$", ["ABORT", "", "Warn"], ["skip"]),
        ("^a(?i)b|c$", ["aB", "C", "ab"], ["AB"]),
        ("^x(?i:y)z$", ["xYz"], ["xYZ"]),
        ("^ab\\z", ["ab"], ["ab\n"]),
        ("^\\pL+$", ["héllo"], ["h3llo", "a_b", "\u216b"]),
        # CiliumNetworkPolicy: no control or format characters
        ("^\\PC*$", ["abc é", ""], ["a\x00", "a\u200bb", "\x7f"]),
        ("^[\\p{Lu}0-9]+$", ["AÉ9"], ["aé"]),
        ("^\\PL$", ["5"], ["x"]),
        ("^\\p{L}\\d$", ["é5"], ["55"]),
        ("^[[:alpha:]][[:digit:]]+$", ["a12"], ["12", "a"]),
        ("^\\Q1.5+\\E$", ["1.5+"], ["105+"]),
        ("^(?<name>[a-z]+)$", ["abc"], ["ABC"]),
    ],
)
def test_re2_patterns_become_equivalent_python_patterns(re2, matches, misses):
    python = to_python(re2)
    assert python is not None
    for text in matches:
        assert re.search(python, text), (python, text)
    for text in misses:
        assert not re.search(python, text), (python, text)


@pytest.mark.parametrize("re2", ["(?U)a+", "\\p{Greek}", "[\\PL]", "[\\p{^L}]", "[[:^alpha:]]", "a\\C"])
def test_re2_without_a_python_equivalent_is_none(re2):
    assert to_python(re2) is None
    with pytest.raises((Untranslatable, re.error)):
        re.compile(translate(re2))


def test_a_pattern_python_accepts_is_kept_as_written():
    assert to_python("^[a-z]+(\\.[a-z]+)*$") == "^[a-z]+(\\.[a-z]+)*$"


def _validator(tmp_path: Path, schema: dict) -> SchemaValidator:
    folder = tmp_path / "schemas" / "example.com"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "run_v1.json").write_text(json.dumps(schema), encoding="utf-8")
    location = SchemaLocation(
        str(tmp_path / "schemas" / "{{.Group}}" / "{{.ResourceKind}}_{{.ResourceAPIVersion}}.json")
    )
    return SchemaValidator("1.32", [location])


def _schema(spec: dict) -> dict:
    return {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "apiVersion": {"type": "string"},
            "kind": {"type": "string"},
            "metadata": {"type": "object"},
            "spec": spec,
        },
    }


def _run(spec: object) -> dict:
    return {"apiVersion": "example.com/v1", "kind": "Run", "metadata": {"name": "r"}, "spec": spec}


def test_a_go_pattern_is_checked_and_an_untranslatable_one_skipped_with_a_warning(tmp_path):
    validator = _validator(
        tmp_path,
        _schema(
            {
                "type": "object",
                "properties": {
                    "day": {"type": "string", "pattern": "^((?i)sun|mon)day$"},
                    "greek": {"type": "string", "pattern": "^\\p{Greek}+$"},
                },
            }
        ),
    )
    assert validator.check(_run({"day": "SUNday", "greek": "abc"})) == []
    problems = validator.check(_run({"day": "Friday"}))
    assert [p.path for p in problems] == [("spec", "day")]
    assert list(validator.warnings) == [
        "Run (example.com/v1): schema pattern '^\\\\p{Greek}+$' has no Python equivalent; that pattern is not checked"
    ]


def test_prometheusrule_schema_from_schemas_import_does_not_stop_the_run(project, run):
    """The converted PrometheusRule-style CRD (with ``(?i)`` mid-pattern) lints, exit 0/1, never 2."""
    crd = (
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: rules.example.com}\n"
        "spec:\n  group: example.com\n  names: {kind: Rule, plural: rules}\n  scope: Namespaced\n  versions:\n"
        "    - name: v1\n      served: true\n      storage: true\n      schema:\n        openAPIV3Schema:\n"
        "          type: object\n          properties:\n            spec:\n              type: object\n"
        "              properties:\n                partial_response_strategy:\n                  type: string\n"
        "                  pattern: ^(?i)(abort|warn)?$\n"
    )
    (project / "crd.yaml").write_text(crd, encoding="utf-8")
    assert run(project, "schemas", "import", "--output-dir", "out", str(project / "crd.yaml")).exit_code == 0
    location = str(project / "out" / "{{.Group}}" / "{{.ResourceKind}}_{{.ResourceAPIVersion}}.json")
    (project / "rule.yaml").write_text(
        "apiVersion: example.com/v1\nkind: Rule\nmetadata: {name: r}\n"
        "spec: {partial_response_strategy: WARN}\n---\n"
        "apiVersion: example.com/v1\nkind: Rule\nmetadata: {name: s}\n"
        "spec: {partial_response_strategy: skip}\n",
        encoding="utf-8",
    )
    result = run(project, "lint", "--schema-location", location, str(project / "rule.yaml"))
    assert result.exit_code == 1, result.output
    assert "rule.yaml:9:8: error: spec.partial_response_strategy: 'skip' does not match" in result.stdout


# NVIDIA's NVIDIADriver sample leaves out spec.driverType, spec.image and spec.default: the CRD
# defaults them (gpu, nvcr.io/nvidia/driver, false) and lists them as required
DEFAULTED = _schema(
    {
        "type": "object",
        "required": ["driverType", "image"],
        "properties": {
            "driverType": {"type": "string", "default": "gpu", "enum": ["gpu", "vgpu"]},
            "image": {"type": "string", "default": "nvcr.io/nvidia/driver"},
            "manager": {
                "type": "object",
                "default": {},
                "required": ["env"],
                "properties": {"env": {"type": "array", "default": [], "items": {"type": "string"}}},
            },
        },
    }
)


def test_defaults_are_filled_before_required_is_checked(tmp_path):
    validator = _validator(tmp_path, DEFAULTED)
    assert validator.check(_run({})) == []
    assert [p.message for p in validator.check(_run({"driverType": "cpu"}))] == ["'cpu' is not one of ['gpu', 'vgpu']"]


# NVIDIA's ClusterPolicy sample sets fields that are not nullable to null (e.g. an empty
# "repository:" in YAML): the API server prunes them before validating
NULLS = _schema(
    {
        "type": "object",
        "required": ["repository"],
        "properties": {
            "repository": {"type": "string", "default": "nvcr.io/nvidia"},
            "version": {"type": "string"},
            "note": {"type": ["string", "null"]},
            "count": {"type": "integer", "minimum": 1},
        },
    }
)


def test_null_for_a_non_nullable_field_is_pruned_then_defaulted(tmp_path):
    validator = _validator(tmp_path, NULLS)
    assert validator.check(_run({"repository": None, "version": None, "note": None})) == []


def test_messages_spell_null_as_json(tmp_path):
    validator = _validator(
        tmp_path, _schema({"type": "object", "properties": {"items": {"type": "array", "items": {"type": "string"}}}})
    )
    problems = validator.check(_run({"items": [None, True]}))
    assert [p.message for p in problems] == ["null is not of type 'string'", "true is not of type 'string'"]


CEL = _schema(
    {
        "type": "object",
        "properties": {
            "min": {"type": "integer"},
            "max": {"type": "integer"},
            "name": {
                "type": "string",
                "x-kubernetes-validations": [
                    {"rule": "self.startsWith('gpu-')", "messageExpression": "'name must start with gpu-, got ' + self"}
                ],
            },
            "replicas": {
                "type": "integer",
                "x-kubernetes-validations": [{"rule": "self == oldSelf", "message": "replicas is immutable"}],
            },
            "url": {
                "type": "string",
                "x-kubernetes-validations": [{"rule": "self.frobnicate()", "message": "not a URL"}],
            },
        },
        "x-kubernetes-validations": [
            {"rule": "self.min <= self.max", "message": "min must not exceed max"},
            {"rule": "!has(self.name) || size(self.name) < 12"},
        ],
    }
)


def test_cel_rules_are_evaluated_with_their_own_messages(tmp_path):
    validator = _validator(tmp_path, CEL)
    assert validator.check(_run({"min": 1, "max": 2, "name": "gpu-a", "replicas": 3})) == []
    problems = validator.check(_run({"min": 3, "max": 2, "name": "cpu-a-too-long"}))
    assert [(p.path, p.message) for p in problems] == [
        (("spec",), "min must not exceed max"),
        (("spec",), "failed rule: !has(self.name) || size(self.name) < 12"),
        (("spec", "name"), "name must start with gpu-, got cpu-a-too-long"),
    ]


def test_cel_rules_that_cannot_be_evaluated_are_skipped_with_one_warning(tmp_path):
    validator = _validator(tmp_path, CEL)
    for _ in range(2):
        assert validator.check(_run({"min": 1, "max": 2, "url": "nope", "replicas": 1})) == []
    assert len(validator.warnings) == 1
    assert list(validator.warnings)[0].startswith("Run: CEL rule 'self.frobnicate()' not evaluated (")


def test_cel_rule_failure_is_a_k8s003_finding_with_its_line(tmp_path):
    from generator.lint import lint_paths
    from generator.lint.settings import Settings

    _validator(tmp_path, CEL)
    (tmp_path / "run.yaml").write_text(
        "apiVersion: example.com/v1\nkind: Run\nmetadata: {name: r}\nspec:\n  min: 5\n  max: 1\n", encoding="utf-8"
    )
    location = str(tmp_path / "schemas" / "{{.Group}}" / "{{.ResourceKind}}_{{.ResourceAPIVersion}}.json")
    findings = lint_paths([str(tmp_path / "run.yaml")], Settings(schema_locations=[location])).findings
    assert [(f.rule, f.line, f.message) for f in findings] == [("K8S003", 4, "spec: min must not exceed max")]


@pytest.mark.slow
def test_nvidia_driver_sample_validates_against_the_real_crd(synced_cache, monkeypatch):
    """NVIDIA's own NVIDIADriver sample shape (no driverType, image or default) is valid."""
    monkeypatch.setenv("GPU_GITOPS_CACHE_DIR", str(synced_cache))
    validator = SchemaValidator("1.32")
    sample = {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "NVIDIADriver",
        "metadata": {"name": "demo"},
        "spec": {"version": "580.95.05", "repository": "nvcr.io/nvidia", "nodeSelector": {}},
    }
    assert validator.check(sample) == []
    assert [p.path for p in validator.check({**sample, "spec": {**sample["spec"], "driverType": "cpu"}})] == [
        ("spec", "driverType")
    ]


@pytest.mark.slow
def test_kueue_cluster_queue_cel_rules_on_the_real_crd(synced_cache, monkeypatch):
    """Kueue's single-ClusterQueue example passes; a flavor missing a covered resource fails
    with the CRD's own message (its rule: ``self.flavors.all(x, size(x.resources) == size(self.coveredResources))``)."""
    monkeypatch.setenv("GPU_GITOPS_CACHE_DIR", str(synced_cache))
    validator = SchemaValidator("1.32")
    flavor = {
        "name": "default-flavor",
        "resources": [{"name": "cpu", "nominalQuota": 9}, {"name": "memory", "nominalQuota": "36Gi"}],
    }
    queue = {
        "apiVersion": "kueue.x-k8s.io/v1beta1",
        "kind": "ClusterQueue",
        "metadata": {"name": "cluster-queue"},
        "spec": {
            "namespaceSelector": {},
            "resourceGroups": [{"coveredResources": ["cpu", "memory"], "flavors": [flavor]}],
        },
    }
    assert validator.check(queue) == []
    flavor["resources"].pop()
    assert [(p.path, p.message) for p in validator.check(queue)] == [
        (("spec", "resourceGroups", 0), "flavors must have the same number of resources as the coveredResources")
    ]
    assert not validator.warnings


LIBRARY = _schema(
    {
        "type": "object",
        "properties": {
            "zone": {
                "type": "string",
                "x-kubernetes-validations": [
                    {"rule": "self.lowerAscii() == self", "message": "zone must be lower case"},
                    {"rule": "self.split('-').size() == 3", "message": "zone is region-area-letter"},
                ],
            },
            "ranks": {
                "type": "array",
                "items": {"type": "integer"},
                "x-kubernetes-validations": [
                    {
                        "rule": "self.isSorted() && self.sum() <= 10",
                        "message": "ranks are sorted and add up to at most 10",
                    }
                ],
            },
        },
    }
)


@pytest.mark.parametrize(
    ("spec", "messages"),
    [
        ({"zone": "us-east-1", "ranks": [1, 2, 3]}, []),
        (
            {"zone": "US-east-1", "ranks": [3, 1]},
            ["ranks are sorted and add up to at most 10", "zone must be lower case"],
        ),
        (
            {"zone": "useast", "ranks": [5, 6]},
            ["ranks are sorted and add up to at most 10", "zone is region-area-letter"],
        ),
    ],
)
def test_kubernetes_cel_string_and_list_functions(tmp_path, spec, messages):
    validator = _validator(tmp_path, LIBRARY)
    assert [p.message for p in validator.check(_run(spec))] == messages
    assert not validator.warnings


def _categories_by_walk(names: tuple[str, ...]) -> dict[str, str]:
    """Each Unicode category's bracket body built code point by code point, the plain way, for
    all of ``names`` in one walk."""
    import unicodedata

    ranges: dict[str, list[list[int]]] = {name: [] for name in names}
    for cp in range(0x110000):
        category = unicodedata.category(chr(cp))
        if category == "Cn":
            continue
        for name in names:
            if category.startswith(name):
                found = ranges[name]
                if found and found[-1][1] == cp - 1:
                    found[-1][1] = cp
                else:
                    found.append([cp, cp])
    return {
        name: "".join(f"\\U{a:08x}" + (f"-\\U{b:08x}" if b != a else "") for a, b in found)
        for name, found in ranges.items()
    }


def test_unicode_category_tables_come_from_one_walk_kept_in_the_cache(monkeypatch, tmp_path):
    """Every category's table is the code-point-by-code-point one; the walk runs once, later
    processes read it from the cache, and a damaged cache file is walked again."""
    from generator.validate import re2

    monkeypatch.setenv("GPU_GITOPS_CACHE_DIR", str(tmp_path))
    re2._category_runs.cache_clear()
    re2._category.cache_clear()
    walks = []
    real = re2._walk_categories
    monkeypatch.setattr(re2, "_walk_categories", lambda: walks.append(1) or real())
    expected = _categories_by_walk(("C", "L", "Lu", "N", "Zs", "P"))
    try:
        for name in ("C", "L", "Lu", "N", "Zs"):
            assert re2._category(name) == expected[name], name
        assert walks == [1]
        re2._category_runs.cache_clear()
        re2._category.cache_clear()
        assert re2._category("P") == expected["P"] and walks == [1]  # read from the cache
        (cached,) = (tmp_path / "unicode").iterdir()
        cached.write_text('[[0, 5, "Lu"]]', encoding="utf-8")  # does not cover every code point
        re2._category_runs.cache_clear()
        re2._category.cache_clear()
        assert re2._category("Lu") == expected["Lu"] and walks == [1, 1]
    finally:
        re2._category_runs.cache_clear()
        re2._category.cache_clear()
