"""The ``lint`` section of a config file against the rule registry: every rule ID it names is a
rule's, every ``lint.rules.<ID>.<option>`` one the rule declares, with a value that fits.

The config schema only checks their shape; a misspelt ID (``GPU0004``) or option would
otherwise turn nothing off and set nothing, without a word. This sits above the registry (the
rules read ``settings``, so ``settings`` cannot read the rules).
"""

from __future__ import annotations

import difflib

from generator.errors import InputError
from generator.lint import options
from generator.lint.rules import BY_ID
from generator.yamlio.positions import Located


def rule_errors(doc: Located) -> list[InputError]:
    """Rule IDs in a config document (``yamlpos.Located``) that no rule has, and rule options
    (``lint.rules.<ID>.<option>``) the rule does not declare or whose value does not fit."""
    known = sorted(BY_ID)
    lint = doc.data.get("lint") if isinstance(doc.data, dict) else None
    if not isinstance(lint, dict):
        return []
    found: list[tuple[str, tuple, bool]] = []
    rules = lint.get("rules")
    for rule_id in rules if isinstance(rules, dict) else {}:
        found.append((rule_id, ("lint", "rules", rule_id), False))
    ignores = lint.get("ignore")
    for i, entry in enumerate(ignores if isinstance(ignores, list) else []):
        listed = entry.get("rules") if isinstance(entry, dict) else None
        for j, rule_id in enumerate(listed if isinstance(listed, list) else []):
            found.append((rule_id, ("lint", "ignore", i, "rules", j), True))
    errors = []
    for rule_id, path, at_value in found:
        if rule_id == "*" or rule_id in known:
            continue
        close = difflib.get_close_matches(str(rule_id), known, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        errors.append(
            doc.error(f"unknown lint rule {rule_id!r}", path, hint + "`gpu-gitops rules` lists them", at_value=at_value)
        )
    for rule_id, section in (rules if isinstance(rules, dict) else {}).items():
        if rule_id in BY_ID and isinstance(section, dict):
            declared = BY_ID[rule_id].options
            for name, message, hint in options.problems(rule_id, declared, section):
                errors.append(
                    doc.error(
                        message,
                        ("lint", "rules", rule_id, name),
                        hint,
                        at_value=name in declared,
                    )
                )
    return errors
