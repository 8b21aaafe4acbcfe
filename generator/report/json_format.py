"""Findings as one JSON document, for scripts: every field of every finding plus a summary."""

from __future__ import annotations

import json


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
    return json.dumps({"findings": findings, "summary": summary}, indent=2) + "\n"
