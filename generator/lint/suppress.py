"""Suppressions: the ``gpu-gitops.io/ignore`` annotation and the config file's ignores.

Both need a reason. The annotation is ``"RULE-ID[,RULE-ID]: reason"`` on the object; the
config file's ``lint.ignore`` entries match objects by kind, namespace, name and file glob,
for vendored manifests that cannot be annotated.
"""

from __future__ import annotations

import fnmatch

from generator.lint import pathmatch

ANNOTATION = "gpu-gitops.io/ignore"


def parse(value: object, known: set[str]) -> tuple[set[str], str]:
    """``(rule IDs, problem)``: the IDs an annotation suppresses, or why it suppresses nothing."""
    if not isinstance(value, str):
        return set(), "the value must be a string 'RULE-ID[,RULE-ID]: reason'"
    head, sep, reason = value.partition(":")
    ids = {part.strip() for part in head.split(",") if part.strip()}
    if not sep or not reason.strip():
        return set(), "a reason is required: 'RULE-ID[,RULE-ID]: reason'"
    if not ids:
        return set(), "no rule IDs before the colon: 'RULE-ID[,RULE-ID]: reason'"
    unknown = sorted(ids - known)
    if unknown:
        return set(), f"unknown rule ID(s) {', '.join(unknown)} (see `gpu-gitops rules`)"
    return ids, ""


def annotated(res, known: set[str]) -> set[str]:
    value = res.annotations.get(ANNOTATION)
    return parse(value, known)[0] if value is not None else set()


def config_ignores(entry: dict, rule: str, res, file: str) -> bool:
    """Whether one ``lint.ignore`` entry of the config file covers this finding (its ``path`` is
    a gitignore pattern, ``pathmatch``)."""
    if rule not in entry.get("rules", []) and "*" not in entry.get("rules", []):
        return False
    checks = (("kind", res.kind if res else ""), ("namespace", res.namespace if res else ""),
              ("name", res.name if res else ""))
    for key, actual in checks:
        if key in entry and not fnmatch.fnmatchcase(actual, entry[key]):
            return False
    return "path" not in entry or pathmatch.matches(file, [entry["path"]])
