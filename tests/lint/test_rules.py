"""Every rule against its fixtures: failing files must give exactly the marked lines.

A failing fixture marks each line where its rule must report with ``# <- RULE-ID``; the
test compares the set of (line, rule) pairs, so a finding on the wrong line fails as much
as a missing one. A passing fixture must give no finding of its rule. A fixture that needs
cluster context starts with ``# lint: {"provider": "eks"}`` (the config file's ``lint`` section, as JSON).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from generator.lint import lint_paths
from generator.lint.rules import BY_ID, REGISTRY
from generator.lint.settings import Settings

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
_MARK = re.compile(r"#\s*<-\s*([A-Z][A-Z0-9]*[0-9]{3})")
# API002 needs a target where its example is deprecated but not yet removed
_VERSION = {"API002": "1.30"}


def _cases(verdict: str):
    return sorted((p.parent.parent.name, p) for p in FIXTURES.glob(f"*/{verdict}/*.yaml"))


_CONTEXT = re.compile(r"^# lint: (\{.*\})$", re.MULTILINE)


def _lint(rule_id: str, path: Path):
    context = _CONTEXT.search(path.read_text())
    lint = json.loads(context[1]) if context else {}
    settings = Settings.from_config({"lint": lint}, kubernetes_version=_VERSION.get(rule_id) or None)
    return [f for f in lint_paths([str(path)], settings).findings if f.rule == rule_id]


@pytest.mark.parametrize(("rule_id", "path"), _cases("fail"), ids=lambda v: getattr(v, "name", v))
def test_failing_fixture_reports_marked_lines(rule_id, path):
    expected = {(n, m.group(1)) for n, line in enumerate(path.read_text().splitlines(), 1)
                for m in _MARK.finditer(line)}
    assert expected, f"{path} marks no line"
    found = {(f.line, f.rule) for f in _lint(rule_id, path)}
    assert found == expected


@pytest.mark.parametrize(("rule_id", "path"), _cases("pass"), ids=lambda v: getattr(v, "name", v))
def test_passing_fixture_is_clean(rule_id, path):
    assert _lint(rule_id, path) == []


def test_every_rule_has_passing_and_failing_fixtures():
    for rule in REGISTRY:
        assert list((FIXTURES / rule.ID / "fail").glob("*.yaml")), rule.ID
        assert list((FIXTURES / rule.ID / "pass").glob("*.yaml")), rule.ID
    assert {p.name for p in FIXTURES.iterdir() if p.is_dir()} == set(BY_ID)


def test_severity_follows_the_rule_default():
    path = FIXTURES / "GPU007" / "fail" / "no-memory-limit.yaml"
    assert {f.severity for f in _lint("GPU007", path)} == {"warning"}
    path = FIXTURES / "GPU001" / "fail" / "request-only.yaml"
    assert {f.severity for f in _lint("GPU001", path)} == {"error"}


def test_gpu_taint_rules_warn_with_a_hint_without_cluster_context():
    path = FIXTURES / "GPU004" / "fail" / "no-tolerations-at-all.yaml"
    [guess] = _lint("GPU004", path)
    assert guess.severity == "warning" and "lint.taintKeys" in guess.hint
    settings = Settings(taint_keys=["nvidia.com/gpu"])
    [known] = [f for f in lint_paths([str(path)], settings).findings if f.rule == "GPU004"]
    assert known.severity == "error" and not known.hint
    overridden = Settings(rules={"GPU004": "error"})
    assert {f.severity for f in lint_paths([str(path)], overridden).findings if f.rule == "GPU004"} == {"error"}


def test_a_namespace_declared_differently_by_two_trees_is_not_exempt(tmp_path):
    privileged = (FIXTURES / "SEC001" / "pass" / "privileged-namespace.yaml").read_text()
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "all.yaml").write_text(privileged)
    assert [f for f in lint_paths([str(tmp_path)], Settings()).findings if f.rule == "SEC001"] == []
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "namespace.yaml").write_text(
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: gpu-operator\n"
        "  labels: {pod-security.kubernetes.io/enforce: baseline}\n")
    assert [f.rule for f in lint_paths([str(tmp_path)], Settings()).findings if f.rule == "SEC001"] == ["SEC001"]
