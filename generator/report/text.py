"""``path:line:col: severity: message [RULE-ID]``, one finding a line (editors and CI parse it)."""

from __future__ import annotations

import click

_COLOURS = {"error": "red", "warning": "yellow", "info": "cyan"}


def line(finding, color: bool = False) -> str:
    severity = finding.severity
    if color:
        severity = click.style(severity, fg=_COLOURS[finding.severity], bold=True)
    return f"{finding.file}:{finding.line}:{finding.col}: {severity}: {finding.message} [{finding.rule}]"


def format(report) -> str:
    return "".join(line(f, report.color) + "\n" for f in report.findings)
