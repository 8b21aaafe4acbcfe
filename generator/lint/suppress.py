"""Suppressions: the ``gpu-gitops.io/ignore`` annotation, checkov's skip annotations for the
rules checkov also has, and the config file's ignores.

All need a reason. The annotation is ``"RULE-ID[,RULE-ID]: reason"`` on the object; a
``checkov.io/skip<N>: "CKV_K8S_<n>=reason"`` annotation suppresses the findings of the rule
whose check is the same as that checkov check (a rule's ``checkov``), so one
annotation explains an exception to both tools. The config file's ``lint.ignore`` entries
match objects by kind, namespace, name and file glob, for vendored manifests that cannot be
annotated.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet

from generator import pathmatch
from generator.lint.model import Resource

ANNOTATION = "gpu-gitops.io/ignore"
# checkov reads every annotation whose key contains this, and splits its value on "=" into
# exactly a check ID and a comment (checkov/kubernetes/kubernetes_utils.py get_skipped_checks,
# checkov 3.3): a second "=" makes checkov fail on the file.
CHECKOV_ANNOTATION = "checkov.io/skip"


def parse(value: object, known: AbstractSet[str]) -> tuple[set[str], str]:
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


def annotated(res: Resource, known: AbstractSet[str]) -> set[str]:
    value = res.annotations.get(ANNOTATION)
    return parse(value, known)[0] if value is not None else set()


def parse_checkov(value: object) -> tuple[str, str]:
    """``(check ID, problem)`` of one checkov skip annotation: the ID only with a reason."""
    if not isinstance(value, str):
        return "", "the value must be a string 'CKV_K8S_<n>=reason'"
    parts = value.split("=")
    if len(parts) > 2:
        return parts[0].strip(), "more than one '=': checkov cannot read it ('CKV_K8S_<n>=reason')"
    if len(parts) < 2 or not parts[1].strip():
        return parts[0].strip(), "a reason is required: 'CKV_K8S_<n>=reason'"
    return parts[0].strip(), ""


def checkov_annotations(res: Resource) -> list[tuple[str, str, str]]:
    """``(annotation key, check ID, problem)`` for each checkov skip annotation of the object."""
    found = []
    for key, value in res.annotations.items():
        if isinstance(key, str) and CHECKOV_ANNOTATION in key:
            found.append((key, *parse_checkov(value)))
    return found


def checkov_skips(res: Resource) -> set[str]:
    """The checkov checks the object skips with a reason."""
    return {check for _, check, problem in checkov_annotations(res) if check and not problem}


def config_ignores(entry: dict, rule: str, res: Resource, file: str) -> bool:
    """Whether one ``lint.ignore`` entry of the config file covers this finding (its ``path`` is
    a gitignore pattern, ``pathmatch``)."""
    if rule not in entry.get("rules", []) and "*" not in entry.get("rules", []):
        return False
    checks = (
        ("kind", res.kind if res else ""),
        ("namespace", res.namespace if res else ""),
        ("name", res.name if res else ""),
    )
    import fnmatch  # only for a config with ignore entries

    for key, actual in checks:
        if key in entry and not fnmatch.fnmatchcase(actual, entry[key]):
            return False
    return "path" not in entry or pathmatch.matches(file, [entry["path"]])
