"""``path:line:col: severity: message [RULE-ID]``, one finding a line (editors and CI parse it),
followed by an indented ``  hint:`` line where the finding has one (YAML errors)."""

from __future__ import annotations

import click

from generator.report import shown_name, shown_text

_COLOURS = {"error": "red", "warning": "yellow", "info": "cyan"}


def line(finding, color: bool = False) -> str:
    severity = finding.severity
    if color:
        severity = click.style(severity, fg=_COLOURS[finding.severity], bold=True)
    text = (
        f"{shown_name(finding.file)}:{finding.line}:{finding.col}: {severity}: {shown_text(finding.message)} "
        f"[{finding.rule}]"
    )
    return text + (f"\n  hint: {shown_text(finding.hint)}" if finding.hint else "")


def format(report) -> str:
    return "".join(line(f, report.color) + "\n" for f in report.findings)
