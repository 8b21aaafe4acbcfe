"""Generated docs cannot drift: docs/inputs.md (schema), docs/rules.md (lint rules), README."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import types
from pathlib import Path

from conftest import REPO

from generator import docs
from generator.paths import Project


def _leaf_rows(node: dict, root: dict, path: str = ""):
    """(section path, key) for every property in the schema, following $refs and list items."""
    if "$ref" in node:
        node = root["$defs"][node["$ref"].rsplit("/", 1)[1]]
    if node.get("type") == "array":
        yield from _leaf_rows(node.get("items", {}), root, path + "[]")
        return
    for key, child in node.get("properties", {}).items():
        yield path, key
        yield from _leaf_rows(child, root, f"{path}.{key}" if path else key)


def test_committed_docs_are_up_to_date():
    stale = docs.stale(Project(REPO))
    assert not stale, f"run `gpu-gitops docs`: {[str(p) for p in stale]}"


def test_inputs_md_documents_every_key():
    schema = json.loads((REPO / "schemas" / "cluster.schema.json").read_text(encoding="utf-8"))
    text = docs.inputs_markdown(schema, "schemas/cluster.schema.json")
    sections = re.split(r"^## ", text, flags=re.M)
    by_title = {s.split("\n", 1)[0].strip("`"): s for s in sections[1:]}
    rows = list(_leaf_rows(schema, schema))
    assert len(rows) > 100
    for section, key in rows:
        body = by_title["Top level" if not section else section]
        assert f"| `{key}` |" in body, (section, key)
    # an enum is listed value by value, escaped for the table
    assert "`flux` \\| `argocd`" in by_title["gitops"]


def test_docs_check_fails_on_a_stale_copy_and_docs_fixes_it(project, run):
    assert run(project, "docs").exit_code == 0
    assert run(project, "docs", "--check").exit_code == 0
    schema_path = project / "schemas" / "cluster.schema.json"
    schema = json.loads(schema_path.read_text(encoding="utf-8"))
    schema["properties"]["gitops"]["properties"]["branch"]["description"] = "The branch Flux or Argo CD follows."
    schema_path.write_text(json.dumps(schema, indent=2), encoding="utf-8")
    result = run(project, "docs", "--check")
    assert result.exit_code == 1
    assert "docs/inputs.md: stale" in result.stderr
    assert run(project, "docs").exit_code == 0
    assert "The branch Flux or Argo CD follows." in (project / "docs" / "inputs.md").read_text(encoding="utf-8")
    assert run(project, "docs", "--check").exit_code == 0


def test_rules_md_comes_from_the_rule_registry(project, monkeypatch):
    from generator.lint.options import Option
    from generator.lint.protocol import ObjectRule
    from generator.rulemeta import RuleMeta

    def rule(rule_id, severity, summary, doc, options=None):
        meta = RuleMeta(rule_id, rule_id.lower(), severity, summary, doc)
        return ObjectRule(meta=meta, check=lambda res, ctx: (), options=options or {})

    registry = types.ModuleType("generator.lint.rules")
    registry.REGISTRY = (
        rule("K8S001", "error", "YAML | parse error", "The file is not YAML."),
        rule(
            "GPU001",
            "error",
            "GPU request without a limit",
            "A GPU requested without a limit is never scheduled.\n\n    Fix: set ``nvidia.com/gpu`` in limits.\n\n"
            "    PASS:\n\n        kind: Pod\n        spec: {}\n\n    FAIL:\n\n        kind: Pod\n",
            {"maxCount": Option({"type": "integer"}, 8, "At most | this many.")},
        ),
    )
    monkeypatch.setitem(sys.modules, "generator.lint.rules", registry)
    text = docs.generated(Project(project))[project / "docs" / "rules.md"]
    # registry order, table cells escaped, docstrings published as written, examples as YAML blocks
    assert text.index("[`K8S001`]") < text.index("[`GPU001`]")
    assert "| [`K8S001`](#k8s001) | error | YAML \\| parse error |" in text
    assert "## GPU001\n\n**error**: GPU request without a limit\n\nA GPU requested" in text
    assert "Fix: set ``nvidia.com/gpu`` in limits.\n\nOptions (`lint.rules.GPU001`):" in text
    assert "| `maxCount` | integer | `8` | At most \\| this many. |" in text
    assert text.endswith("Passes:\n\n```yaml\nkind: Pod\nspec: {}\n```\n\nFails:\n\n```yaml\nkind: Pod\n```\n\n")
    assert "PASS:" not in text


def test_no_rules_md_without_a_linter(monkeypatch):
    monkeypatch.setitem(sys.modules, "generator.lint", None)  # import raises ModuleNotFoundError
    monkeypatch.setitem(sys.modules, "generator.lint.rules", None)
    assert docs.rule_registry() is None


def test_readme_keeps_its_two_setup_commands_first():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```(\w*)\n(.*?)^```", readme, flags=re.S | re.M)
    commands = [
        line
        for lang, block in blocks
        if lang in ("", "sh", "bash", "shell", "console")
        for line in block.splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    assert commands[:2] == [
        "python3 -m venv .venv && . .venv/bin/activate && pip install -e . && gpu-gitops render",
        "python3 -m venv .venv && . .venv/bin/activate && pip install -e '.[test]' && python -m pytest -q",
    ]
    assert readme.count("```mermaid") >= 2


def test_documented_shell_completion_works():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "_GPU_GITOPS_COMPLETE=bash_source gpu-gitops" in readme
    done = subprocess.run(
        [str(Path(sys.executable).parent / "gpu-gitops")],
        capture_output=True,
        encoding="utf-8",
        env={"_GPU_GITOPS_COMPLETE": "bash_source", "PATH": os.environ.get("PATH", "")},
    )
    assert done.returncode == 0
    assert "_gpu_gitops_completion" in done.stdout


def test_every_command_has_help_with_an_example(run, tmp_path):
    """The top level and every command that runs (subcommands of groups included)."""
    import click

    from generator.cli import cli

    assert "Example" in run(tmp_path, "--help").output

    def leaves(group: click.Group, prefix: list[str]):
        for name, command in group.commands.items():
            if isinstance(command, click.Group):
                yield from leaves(command, prefix + [name])
            else:
                yield prefix + [name]

    for words in leaves(cli, []):
        result = run(tmp_path, *words, "--help")
        assert result.exit_code == 0, words
        assert "Example" in result.output and "gpu-gitops " + " ".join(words) in result.output, words


def test_a_version_bump_changes_docs_versions_md_and_not_the_input_reference(project, run):
    """Versions live apart from the input contract: bumping one in libsonnet/versions.json
    leaves the schema and docs/inputs.md as they are, and only docs/versions.md goes stale."""
    assert run(project, "docs").exit_code == 0
    inputs_before = (project / "docs" / "inputs.md").read_text(encoding="utf-8")
    path = project / "libsonnet" / "versions.json"
    table = json.loads(path.read_text(encoding="utf-8"))
    entry = next(e for e in table["versions"] if e["input"] == "autoscaling.kedaVersion")
    entry["default"] = "2.99.0"
    path.write_text(json.dumps(table, indent=2), encoding="utf-8")
    result = run(project, "docs", "--check")
    assert result.exit_code == 1
    assert "docs/versions.md: stale" in result.stderr
    assert "docs/inputs.md" not in result.stderr
    assert run(project, "docs").exit_code == 0
    assert "| `autoscaling.kedaVersion` | `2.99.0` |" in (project / "docs" / "versions.md").read_text(encoding="utf-8")
    assert (project / "docs" / "inputs.md").read_text(encoding="utf-8") == inputs_before
