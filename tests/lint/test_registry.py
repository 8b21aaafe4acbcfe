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
