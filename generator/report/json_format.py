"""Findings as one JSON document, for scripts: every field of every finding plus a summary.

The bytes are ``json.dumps(document, indent=2)``'s, written faster: with an indent, ``json``
encodes in Python, one generator per container, which was most of a cached run's time on a
large report. Every finding has one shape, so it is written from a template, its strings by
the C encoder ``json.dumps`` uses (ASCII, escaped) and its integers as ``int`` writes them;
anything else a field could hold goes through ``json.dumps``, which an indent does not change
for a scalar. The test suite compares the bytes with ``json.dumps``'s. Messages and hints are
escaped as in every format (``shown_text``); file names and object names are exact.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from generator.diagnostic import Diagnostic
    from generator.report import Report

import json
from json.encoder import encode_basestring_ascii

from generator.diagnostic import shown_text


def format(report: Report) -> str:
    findings = ",\n".join(_finding(f) for f in report.findings)
    summary = {
        "files": len(report.sources),
        "resources": report.resource_count,
        "errors": report.count("error"),
        "warnings": report.count("warning"),
        "info": report.count("info"),
    }
    listed = f"[\n{findings}\n  ]" if findings else "[]"
    counts = ",\n".join(f"    {_scalar(key)}: {_scalar(value)}" for key, value in summary.items())
    return f'{{\n  "findings": {listed},\n  "summary": {{\n{counts}\n  }}\n}}\n'


def _finding(f: Diagnostic) -> str:
    hint = f',\n      "hint": {_scalar(shown_text(f.hint))}' if f.hint else ""
    ref = f.ref
    # a generateName object has no name yet: its prefix, under the field's own name
    generate = f',\n        "generateName": {_scalar(ref.generate_name)}' if ref.generate_name else ""
    return (
        "    {\n"
        f'      "rule": {_scalar(f.rule)},\n'
        f'      "severity": {_scalar(f.severity)},\n'
        f'      "message": {_scalar(shown_text(f.message))},\n'
        f'      "file": {_scalar(f.file)},\n'
        f'      "line": {_scalar(f.line)},\n'
        f'      "column": {_scalar(f.col)}{hint},\n'
        '      "object": {\n'
        f'        "apiVersion": {_scalar(ref.api_version)},\n'
        f'        "kind": {_scalar(ref.kind)},\n'
        f'        "namespace": {_scalar(ref.namespace)},\n'
        f'        "name": {_scalar(ref.name)}{generate}\n'
        "      }\n"
        "    }"
    )


def _scalar(value: Any) -> str:
    kind = type(value)
    if kind is str:
        return encode_basestring_ascii(value)
    if kind is int:
        return int.__repr__(value)
    return json.dumps(value)
