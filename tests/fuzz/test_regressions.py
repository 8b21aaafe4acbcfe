"""Minimal reproducers of what the fuzzers found; each xfail is strict, so a fix shows up.

When a fix makes one pass, remove its xfail mark and its entry in ``known.py``: the test
then guards the fix and the fuzzers look at those inputs again.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from click.testing import CliRunner

from generator.cli import cli


def lint(root: Path, *args: str, stdin: bytes | None = None):
    return CliRunner().invoke(
        cli, ["--root", str(root), "--color", "never", "lint", *args], input=stdin, catch_exceptions=False
    )


def test_lint_json_top_level_array(tmp_path):
    """An array of objects is a mistake in a manifest; an empty one is no manifest, passed by."""
    path = tmp_path / "list.json"
    path.write_text('[{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}]', encoding="utf-8")
    result = lint(tmp_path, "-o", "json", str(path))
    assert result.exit_code == 1
    (finding,) = json.loads(result.stdout)["findings"]
    assert "must be a mapping" in finding["message"] and finding["line"] == 1
    path.write_text("[]", encoding="utf-8")
    result = lint(tmp_path, "-o", "json", str(path))
    assert result.exit_code == 0 and json.loads(result.stdout)["findings"] == []


def test_lint_very_long_kind(tmp_path):
    path = tmp_path / "long.yaml"
    path.write_text(f"apiVersion: v1\nkind: {'K' * 300}\nmetadata: {{name: a}}\n", encoding="utf-8")
    result = lint(tmp_path, "-o", "json", "--require-schemas", str(path))
    assert result.exit_code == 1
    findings = json.loads(result.stdout)["findings"]
    assert [(f["rule"], f["line"]) for f in findings] == [("K8S004", 2)]


def test_lint_kind_that_is_a_path_finds_no_schema(tmp_path):
    """A kind is a name, never a path: ``../outside`` does not reach a file beside the location."""
    (tmp_path / "schemas").mkdir()
    (tmp_path / "outside.json").write_text('{"not": {}}', encoding="utf-8")  # would reject every object
    path = tmp_path / "odd.yaml"
    path.write_text("apiVersion: example.com/v1\nkind: ../outside\nmetadata: {name: a}\n", encoding="utf-8")
    location = str(tmp_path / "schemas" / "{{.ResourceKind}}.json")
    result = lint(tmp_path, "-o", "json", "--schema-location", location, str(path))
    assert result.exit_code == 0, result.output
    assert [f["rule"] for f in json.loads(result.stdout)["findings"]] == ["K8S004"]


def test_lint_schema_location_longer_than_a_file_name_finds_no_schema(tmp_path):
    """Valid names can still make a name the file system refuses, through the user's own template."""
    group = ".".join(["g" * 62] * 4)  # a 251-character DNS subdomain
    path = tmp_path / "cr.yaml"
    path.write_text(f"apiVersion: {group}/v1\nkind: Widget\nmetadata: {{name: a}}\n", encoding="utf-8")
    location = str(tmp_path / "{{.Group}}-{{.ResourceKind}}.json")
    result = lint(tmp_path, "-o", "json", "--schema-location", location, str(path))
    assert result.exit_code == 0, result.output
    assert [(f["rule"], f["line"]) for f in json.loads(result.stdout)["findings"]] == [("K8S004", 2)]


def test_lint_junit_report_with_control_character_is_xml(tmp_path):
    path = tmp_path / "ns.yaml"
    path.write_text('apiVersion: v1\nkind: Namespace\nmetadata: {name: "a\\x1e"}\n', encoding="utf-8")
    result = lint(tmp_path, "-o", "junit", str(path))
    (case,) = ElementTree.fromstring(result.stdout).iter("testcase")
    assert case.get("name") == "a\\x1e"


CLUSTER = "aks-h100-training"


def render_edited(project: Path, run, old: bytes, new: bytes, cluster: str = CLUSTER) -> tuple[str, int]:
    """Render ``cluster`` after replacing ``old`` by ``new`` in its input (bytes, so anything goes):
    its standard error and the line ``old`` started on."""
    path = project / "clusters" / cluster / "cluster.yaml"
    data = path.read_bytes()
    assert old in data
    path.write_bytes(data.replace(old, new, 1))
    result = run(project, "render", cluster)
    assert result.exit_code == 2, result.output
    return result.stderr, data[: data.index(old)].count(b"\n") + 1


def error_at(line: int) -> re.Pattern:
    """A located error on ``line``, followed by a hint."""
    return re.compile(rf"^\S.*?\.yaml:{line}:[1-9]\d*: error: .*\n  hint: \S", re.M)


def test_render_non_utf8_input_is_located(project, run):
    stderr, line = render_edited(project, run, b"name: aks-h100-training", b"name: aks-h100-\xfftraining")
    assert error_at(line).search(stderr), stderr


def test_render_control_character_is_located(project, run):
    stderr, line = render_edited(project, run, b"name: aks-h100-training", b"name: aks-h100-\x00training")
    assert error_at(line).search(stderr), stderr


def test_render_huge_integer_is_located_and_named(project, run):
    stderr, line = render_edited(project, run, b"perNode: 8,", b"perNode: " + b"9" * 5001 + b",")
    assert error_at(line).search(stderr), stderr
    assert "integer with 5001 digits is too large" in stderr and "does not match its tag" not in stderr


def test_render_wrong_type_has_a_hint(project, run):
    stderr, line = render_edited(project, run, b"tuning: {restartKubelet: true}", b"tuning: 8")
    assert error_at(line).search(stderr) and "error: tuning: expected object, got int 8\n" in stderr, stderr


def test_render_deep_nesting_is_located(project, run):
    stderr, line = render_edited(
        project, run, b"monitoring:\n", b"deep: " + b"[" * 520 + b"]" * 520 + b"\nmonitoring:\n"
    )
    assert error_at(line).search(stderr), stderr


def test_render_bound_without_description_has_a_hint(project, run):
    stderr, line = render_edited(project, run, b"{1g.10gb: 7}", b"{1g.10gb: 0}", cluster="ocp-a100-tuned")
    assert error_at(line).search(stderr) and "1g.10gb: 0 is less than the minimum of 1\n" in stderr, stderr


def test_render_complex_key_is_located_where_it_is(project, run):
    stderr, line = render_edited(
        project, run, b"tuning: {restartKubelet: true}\n", b"tuning: {restartKubelet: true}\n? {a: 1}\n: c\n"
    )
    assert error_at(line + 1).search(stderr) and "keys must be strings" in stderr, stderr
    assert "ordereddict" not in stderr


def test_render_layer_facts_of_a_kind_no_schema_can_have():
    """An overrides file can emit any kind: the GitOps layer facts call it not built in, no crash."""
    from generator.render.gitops import layer_facts

    objects = [
        {"apiVersion": "v1", "kind": "K" * 300},
        {"apiVersion": "v1", "kind": "../configmap"},
        {"apiVersion": "v1", "kind": "ConfigMap"},
    ]
    (facts,) = layer_facts([("apps", [("component", objects)])], "1.32")
    assert {k["kind"]: k["builtin"] for k in facts["kinds"]} == {
        "K" * 300: False,
        "../configmap": False,
        "ConfigMap": True,
    }


def test_lint_container_claim_named_by_a_list(tmp_path):
    """A container's claim whose name is not a string (``name: []``) is the schema's finding,
    not a crash of GPU007's claim lookup."""
    path = tmp_path / "claim.yaml"
    path.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n"
        "  resourceClaims: [{name: gpu, resourceClaimTemplateName: gpu}]\n"
        "  containers:\n  - name: c\n    image: busybox:1.36\n"
        "    resources:\n      claims:\n      - name: []\n",
        encoding="utf-8",
    )
    result = lint(tmp_path, "-o", "json", str(path))
    assert result.exit_code == 1
    findings = json.loads(result.stdout)["findings"]
    assert any(f["rule"] == "K8S003" and f["line"] == 11 for f in findings), findings
