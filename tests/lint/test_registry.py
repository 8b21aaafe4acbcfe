"""The rule registry lists exactly the rule modules on disk, each complete."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

from generator.lint import rules
from generator.lint.rules import REGISTRY, sections

RULES_DIR = Path(rules.__file__).parent


def test_registry_equals_modules_on_disk():
    on_disk = {p.stem for p in RULES_DIR.glob("*.py") if p.stem != "__init__"}
    assert {m.__name__.rsplit(".", 1)[1] for m in REGISTRY} == on_disk
    assert len(REGISTRY) == len(on_disk)


def test_module_name_is_id_and_name():
    for module in REGISTRY:
        stem = module.__name__.rsplit(".", 1)[1]
        assert stem == f"{module.ID.lower()}_{module.NAME.replace('-', '_')}"


def test_every_rule_is_complete():
    ids = set()
    for module in REGISTRY:
        assert re.fullmatch(r"[A-Z][A-Z0-9]*\d{3}", module.ID) and module.ID not in ids
        ids.add(module.ID)
        assert module.SEVERITY in ("error", "warning", "info")
        assert module.SCOPE in ("document", "object", "set")
        assert module.SUMMARY and callable(module.check)
        description, rationale, fix = sections(module)
        assert description and rationale and fix, module.ID


def test_modules_import_on_their_own():
    for module in REGISTRY:
        assert importlib.reload(module).ID == module.ID
