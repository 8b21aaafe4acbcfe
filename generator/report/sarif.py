"""SARIF 2.1.0 for GitHub code scanning and other SARIF consumers.

Every rule has a short and full description and help text (never empty strings), every
result a real region (line and column of the offending node), URIs are relative to the
working directory, and ``partialFingerprints`` are stable across runs so alerts keep their
identity when lines move.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from generator.diagnostic import Diagnostic
    from generator.lint.protocol import Rule
    from generator.report import Report

import hashlib
import json
from pathlib import Path
from urllib.parse import quote

from generator import __version__
from generator.diagnostic import shown_text
from generator.lint.rules import REGISTRY, help_uri, sections

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
MAX_RESULTS = 25000
_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def _rule(rule: Rule) -> dict:
    meta = rule.meta
    description, rationale, fix = sections(meta, "text")
    _, md_rationale, md_fix = sections(meta, "markdown")
    full = " ".join(description.split())
    return {
        "id": meta.id,
        "name": meta.name,
        "shortDescription": {"text": meta.summary},
        "fullDescription": {"text": (full + " " + rationale)[:1024]},
        "help": {"text": f"{rationale}\n\nFix: {fix}", "markdown": f"{md_rationale}\n\n**Fix:** {md_fix}"},
        "helpUri": help_uri(meta),
        "defaultConfiguration": {"level": _LEVEL[meta.severity]},
        "properties": {"tags": [meta.id.rstrip("0123456789").lower()]},
    }


def _fingerprint(finding: Diagnostic) -> str:
    key = "\0".join((finding.rule, finding.file, str(finding.ref), finding.message))
    # surrogatepass: a message may quote a lone surrogate from a JSON manifest (``"\\udc80"``)
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _uri(file: str) -> str:
    """A relative URI reference (RFC 3986, as SARIF requires): the name's bytes percent-encoded
    where they are not URI characters (a space, a control character, a byte that is not UTF-8)."""
    return quote(file.replace("\\", "/").encode("utf-8", "surrogateescape"), safe="/")


def _result(finding: Diagnostic, index: dict[str, int]) -> dict:
    result: dict = {
        "ruleId": finding.rule or "input",  # an input error or a review finding: no lint rule
        "level": _LEVEL[finding.severity],
        "message": {"text": shown_text(finding.message + (f" ({finding.ref})" if str(finding.ref) else ""))},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": _uri(finding.file)},
                    "region": {"startLine": max(finding.line, 1), "startColumn": max(finding.col, 1)},
                },
            }
        ],
        "partialFingerprints": {"gpuGitopsFinding/v1": _fingerprint(finding)},
    }
    if finding.rule in index:
        result["ruleIndex"] = index[finding.rule]
    if finding.ref.kind:
        result["locations"][0]["logicalLocations"] = [
            {
                "name": finding.ref.shown_name,
                "kind": "resource",
                "fullyQualifiedName": "/".join(
                    p
                    for p in (finding.ref.api_version, finding.ref.kind, finding.ref.namespace, finding.ref.shown_name)
                    if p
                ),
            }
        ]
    return result


def format(report: Report) -> str:
    index = {rule.meta.id: i for i, rule in enumerate(REGISTRY)}
    results = [_result(f, index) for f in report.findings[:MAX_RESULTS]]
    log = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "gpu-gitops",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "rules": [_rule(r) for r in REGISTRY],
                    }
                },
                "invocations": [
                    {
                        "executionSuccessful": True,
                        "workingDirectory": {"uri": Path(report.workdir).resolve().as_uri() + "/"},
                    }
                ],
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }
    return json.dumps(log, indent=2) + "\n"
