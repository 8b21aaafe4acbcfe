"""Findings as one JSON document, for scripts: every field of every finding plus a summary.

The bytes are ``json.dumps(document, indent=2)``'s, written faster: with an indent, ``json``
encodes in Python, one generator per container, which is most of a cached run's time on a
large report. ``_indented`` writes the same text from the C string encoder ``json.dumps``
uses (ASCII, escaped), ``int``'s own text, and ``json.dumps`` for anything else (floats,
booleans, null, empty containers), which an indent does not change.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring_ascii

_INDENT = "  "


def format(report) -> str:
    findings = [
        {
            "rule": f.rule,
            "severity": f.severity,
            "message": f.message,
            "file": f.file,
            "line": f.line,
            "column": f.col,
            **({"hint": f.hint} if f.hint else {}),
            "object": {
                "apiVersion": f.ref.api_version,
                "kind": f.ref.kind,
                "namespace": f.ref.namespace,
                "name": f.ref.name,
            },
        }
        for f in report.findings
    ]
    summary = {
        "files": len(report.sources),
        "resources": report.resource_count,
        "errors": report.count("error"),
        "warnings": report.count("warning"),
        "info": report.count("info"),
    }
    return _indented({"findings": findings, "summary": summary}, 1) + "\n"


def _indented(value, depth: int) -> str:
    """``json.dumps(value, indent=2)`` for a value whose items sit ``depth`` indents deep
    (mapping keys are strings)."""
    kind = type(value)
    if kind is str:
        return encode_basestring_ascii(value)
    if kind is int:
        return int.__repr__(value)
    if kind is dict and value:
        pad = "\n" + _INDENT * depth
        items = ("," + pad).join(
            encode_basestring_ascii(key) + ": " + _indented(item, depth + 1) for key, item in value.items()
        )
        return "{" + pad + items + pad[: -len(_INDENT)] + "}"
    if kind is list and value:
        pad = "\n" + _INDENT * depth
        return "[" + pad + ("," + pad).join(_indented(item, depth + 1) for item in value) + pad[: -len(_INDENT)] + "]"
    return json.dumps(value)
