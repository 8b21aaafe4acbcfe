"""Findings as one JSON document, for scripts: every field of every finding plus a summary.

The bytes are ``json.dumps(document, indent=2)``'s, written faster: with an indent, ``json``
encodes in Python, one generator per container, which was most of a cached run's time on a
large report. Every finding has one shape, so it is written from a template, its strings by
the C encoder ``json.dumps`` uses (ASCII, escaped) and its integers as ``int`` writes them;
anything else a field could hold goes through ``jsontext.dumps`` (``json.dumps``'s bytes,
without importing ``json``), which an indent does not change for a scalar. The test suite compares the bytes with ``json.dumps``'s. Messages and hints are
escaped as in every format (``shown_text``); file names and object names are exact.
"""

from __future__ import annotations

from generator.diagnostic import shown_text
from generator.jsontext import dumps, string

TYPE_CHECKING = False  # typing's flag without importing typing (PEP 781; mypy reads it as True)
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

    from generator.diagnostic import Diagnostic, ObjectRef
    from generator.report import Report


def format(report: Report) -> str:
    summary = {
        "files": len(report.sources),
        "resources": report.resource_count,
        "errors": report.count("error"),
        "warnings": report.count("warning"),
        "info": report.count("info"),
    }
    counts = ",\n".join(f"    {_scalar(key)}: {_scalar(value)}" for key, value in summary.items())
    tail = f',\n  "summary": {{\n{counts}\n  }}\n}}\n'
    if not report.findings:
        return '{\n  "findings": []' + tail
    # one join of every piece: the document is copied once, not once a nesting level (a report
    # of a large tree is most of a megabyte, in memory the process has not touched yet)
    return "".join(['{\n  "findings": [\n', *_findings(report.findings), "\n  ]", tail])


def _findings(findings: list[Diagnostic]) -> Iterator[str]:
    """Each finding's text, from the second on after the comma that separates it from the one
    before. Rules, severities, files, messages, hints and objects' API versions, kinds and
    namespaces repeat across a report, and objects across their findings: each distinct one is
    encoded once (a report of a large tree answered from the cache spent a tenth of its run
    here, call by call)."""
    exact: dict[Any, str] = {}  # rule, severity, file, apiVersion, kind, namespace: as they are
    shown: dict[str, str] = {}  # message, hint: escaped as in every format
    objects: dict[int, str] = {}  # the object's fields, by the reference's identity (alive in findings)
    before = ""
    for f in findings:
        where = f.location
        ref = f.ref
        rule = exact.get(f.rule) or exact.setdefault(f.rule, _scalar(f.rule))
        severity = exact.get(f.severity) or exact.setdefault(f.severity, _scalar(f.severity))
        file = exact.get(where.path) or exact.setdefault(where.path, _scalar(where.path))
        message = shown.get(f.message) or shown.setdefault(f.message, _scalar(shown_text(f.message)))
        line, col = where.line, where.col
        hint = ""
        if f.hint:
            hint = shown.get(f.hint) or shown.setdefault(f.hint, _scalar(shown_text(f.hint)))
            hint = f',\n      "hint": {hint}'
        block = objects.get(id(ref))
        if block is None:
            block = objects[id(ref)] = _object(ref, exact)
        yield (
            f"{before}    {{\n"
            f'      "rule": {rule},\n'
            f'      "severity": {severity},\n'
            f'      "message": {message},\n'
            f'      "file": {file},\n'
            f'      "line": {line if type(line) is int else _scalar(line)},\n'
            f'      "column": {col if type(col) is int else _scalar(col)}{hint},\n'
            f"{block}"
        )
        before = ",\n"


def _object(ref: ObjectRef, exact: dict[Any, str]) -> str:
    api_version = exact.get(ref.api_version) or exact.setdefault(ref.api_version, _scalar(ref.api_version))
    kind = exact.get(ref.kind) or exact.setdefault(ref.kind, _scalar(ref.kind))
    namespace = exact.get(ref.namespace) or exact.setdefault(ref.namespace, _scalar(ref.namespace))
    # a generateName object has no name yet: its prefix, under the field's own name
    generate = f',\n        "generateName": {_scalar(ref.generate_name)}' if ref.generate_name else ""
    return (
        '      "object": {\n'
        f'        "apiVersion": {api_version},\n'
        f'        "kind": {kind},\n'
        f'        "namespace": {namespace},\n'
        f'        "name": {_scalar(ref.name)}{generate}\n'
        "      }\n"
        "    }"
    )


def _scalar(value: Any) -> str:
    kind = type(value)
    if kind is str:
        return string(value)
    if kind is int:
        return int.__repr__(value)
    return dumps(value)
