"""The rule registry lists exactly the rule modules on disk, each complete."""

from __future__ import annotations

import dataclasses
import importlib
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

from generator.lint import rules
from generator.lint.protocol import DocumentRule, ObjectRule, Rule, SetRule
from generator.lint.rules import REGISTRY, sections

RULES_DIR = Path(rules.__file__).parent


def _module(rule: Rule) -> ModuleType:
    return sys.modules[rule.check.__module__]


def test_registry_equals_modules_on_disk():
    on_disk = {p.stem for p in RULES_DIR.glob("*.py") if p.stem != "__init__"}
    assert {_module(r).__name__.rsplit(".", 1)[1] for r in REGISTRY} == on_disk
    assert len(REGISTRY) == len(on_disk)


def test_module_name_is_id_and_name_and_holds_the_rule():
    for rule in REGISTRY:
        module = _module(rule)
        stem = module.__name__.rsplit(".", 1)[1]
        assert stem == f"{rule.meta.id.lower()}_{rule.meta.name.replace('-', '_')}"
        assert module.RULE is rule and module.META is rule.meta and rule.meta.doc == module.__doc__


def test_every_rule_is_complete():
    ids = set()
    for rule in REGISTRY:
        meta = rule.meta
        assert re.fullmatch(r"[A-Z][A-Z0-9]*\d{3}", meta.id) and meta.id not in ids
        ids.add(meta.id)
        assert meta.severity in ("error", "warning", "info")
        assert isinstance(rule, (DocumentRule, ObjectRule, SetRule))
        assert meta.summary and callable(rule.check)
        description, rationale, fix = sections(meta)
        assert description and rationale and fix, meta.id


def test_rule_metadata_is_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        REGISTRY[0].meta.severity = "info"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        REGISTRY[0].check = REGISTRY[1].check  # type: ignore[misc]


def test_modules_import_on_their_own():
    for rule in REGISTRY:
        assert importlib.reload(_module(rule)).META == rule.meta


def test_the_cluster_rules_are_the_cl_family_and_named_by_their_modules():
    """The engine leaves the cluster rules' modules unimported without a target cluster, so what
    it needs of them then (their IDs, their checkov equivalents) must hold without them."""
    from generator.lint.rules import CHECKOV_EQUIVALENTS, CLUSTER_MODULES, RULE_IDS

    clustered = {r.meta.id for r in REGISTRY if r.cluster}
    assert clustered == {r.meta.id for r in REGISTRY if r.meta.id.startswith("CL")}
    assert [_module(r).__name__.rsplit(".", 1)[1] for r in REGISTRY if r.cluster] == list(CLUSTER_MODULES)
    assert RULE_IDS == {r.meta.id for r in REGISTRY}
    assert CHECKOV_EQUIVALENTS == {check: r.meta.id for r in REGISTRY for check in r.checkov}
    assert rules.registry(cluster=False) == tuple(r for r in REGISTRY if not r.cluster)


def test_a_lint_without_a_target_cluster_imports_no_cluster_rule(tmp_path):
    import json
    import subprocess

    (tmp_path / "pod.yaml").write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {}\n", encoding="utf-8")
    probe = (
        "import json, sys\n"
        "from generator.lint import lint_paths\n"
        "from generator.lint.settings import Settings\n"
        "lint_paths([sys.argv[1]], Settings())\n"
        "print(json.dumps(sorted(m for m in sys.modules if '.rules.cl0' in m)))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe, str(tmp_path)], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == []
