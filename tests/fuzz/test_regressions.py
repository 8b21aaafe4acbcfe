"""Minimal reproducers of what the fuzzers found; each xfail is strict, so a fix shows up.

When a fix makes one pass, remove its xfail mark and its entry in ``known.py``: the test
then guards the fix and the fuzzers look at those inputs again.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.cli import cli

LOCATED = re.compile(r"^\S.*?:[1-9]\d*:[1-9]\d*: error: .*\n  hint: \S", re.M)


def lint(root: Path, *args: str, stdin: bytes | None = None):
    return CliRunner().invoke(cli, ["--root", str(root), "--color", "never", "lint", *args], input=stdin,
                              catch_exceptions=False)


@pytest.mark.xfail(strict=True, raises=AttributeError,
                   reason="lint: a .json file whose top level is an array crashes in engine.is_cluster_object")
def test_lint_json_top_level_array(tmp_path):
    path = tmp_path / "list.json"
    path.write_text("[]")
    result = lint(tmp_path, "-o", "json", str(path))
    assert result.exit_code == 1
    (finding,) = json.loads(result.stdout)["findings"]
    assert "must be a mapping" in finding["message"] and finding["line"] == 1


@pytest.mark.xfail(strict=True, raises=OSError,
                   reason="lint: a kind longer than a file name can be (ENAMETOOLONG) crashes in "
                   "validate.validator.schema_source, at Path.is_file on the bundled schema path")
def test_lint_very_long_kind(tmp_path):
    path = tmp_path / "long.yaml"
    path.write_text(f"apiVersion: v1\nkind: {'K' * 300}\nmetadata: {{name: a}}\n")
    result = lint(tmp_path, "-o", "json", str(path))
    assert result.exit_code == 1
    findings = json.loads(result.stdout)["findings"]
    assert findings and all(f["line"] == 2 for f in findings)


@pytest.mark.xfail(strict=True, raises=ElementTree.ParseError,
                   reason="lint -o junit: a control character from the manifest is written raw, "
                   "and the report is not well-formed XML")
def test_lint_junit_report_with_control_character_is_xml(tmp_path):
    path = tmp_path / "ns.yaml"
    path.write_text('apiVersion: v1\nkind: Namespace\nmetadata: {name: "a\\x1e"}\n')
    result = lint(tmp_path, "-o", "junit", str(path))
    ElementTree.fromstring(result.stdout)
