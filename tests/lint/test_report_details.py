"""What every report format carries besides the message: hints, rule links, generated names;
and ``explain`` for people (no reST markup, a suggestion for a misspelt ID)."""

from __future__ import annotations

import json

from generator.diagnostic import Diagnostic, Location, ObjectRef
from generator.lint.rules import BY_ID, REGISTRY, help_uri
from generator.report import Report, render

FINDING = Diagnostic(
    Location("apps/job.yaml", 7, 5),
    "error",
    "spec.template.spec.tolerations: pod asks for nvidia.com/gpu",
    "tolerate one pool's taints, e.g. {key: nvidia.com/gpu, operator: Exists}",
    "CL001",
    ObjectRef("batch/v1", "Job", "gpu-training", "", "train-"),
)


def test_markdown_and_github_keep_the_hint():
    report = Report([FINDING])
    markdown = render("markdown", report)
    assert "| Location | Severity | Rule | Message | Hint |" in markdown
    assert "| tolerate one pool's taints, e.g. {key: nvidia.com/gpu, operator: Exists} |" in markdown
    github = render("github", report).splitlines()[0]
    assert github.endswith(
        "pod asks for nvidia.com/gpu%0Ahint: tolerate one pool's taints, e.g. {key: nvidia.com/gpu, operator: Exists}"
    )


def test_sarif_rules_link_their_docs_without_rest_markup():
    sarif = json.loads(render("sarif", Report([FINDING])))
    rules = sarif["runs"][0]["tool"]["driver"]["rules"]
    assert all(r["helpUri"] == help_uri(BY_ID[r["id"]].meta) for r in rules) and len(rules) == len(REGISTRY)
    gpu004 = next(r for r in rules if r["id"] == "GPU004")
    assert gpu004["helpUri"].endswith("/docs/rules.md#gpu004")
    assert "``" not in gpu004["help"]["text"] and "``" not in gpu004["help"]["markdown"]
    assert "`lint.taintKeys`" in gpu004["help"]["markdown"]


def test_generate_name_objects_are_named_by_their_prefix():
    report = Report([FINDING])
    found = json.loads(render("json", report))["findings"][0]["object"]
    assert found == {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "namespace": "gpu-training",
        "name": "",
        "generateName": "train-",
    }
    assert str(FINDING.ref) == "Job gpu-training/train-*"
    sarif = json.loads(render("sarif", report))
    assert sarif["runs"][0]["results"][0]["locations"][0]["logicalLocations"][0]["name"] == "train-*"
    assert "{{" not in render("junit", report)


def test_generate_name_comes_from_the_object(tmp_path):
    from generator.lint import lint_paths
    from generator.lint.settings import Settings

    (tmp_path / "job.yaml").write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {generateName: smi-, namespace: x}\n"
        "spec:\n  containers: [{name: a, image: x, resources: {requests: {nvidia.com/gpu: 1}}}]\n",
        encoding="utf-8",
    )
    refs = {f.ref for f in lint_paths([str(tmp_path / "job.yaml")], Settings()).findings}
    assert refs == {ObjectRef("v1", "Pod", "x", "", "smi-")}


def test_explain_prints_plain_text_and_suggests_rule_ids(run, tmp_path):
    result = run(tmp_path, "explain", "GPU004")
    assert result.exit_code == 0 and "``" not in result.stdout and "lint.taintKeys" in result.stdout
    result = run(tmp_path, "explain", "GPU0004")
    assert result.exit_code == 2 and "did you mean GPU004?" in result.stderr
