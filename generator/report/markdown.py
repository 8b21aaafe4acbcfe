"""A Markdown summary for ``$GITHUB_STEP_SUMMARY``: counts per rule, then the findings."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from generator.report import Report

from generator.diagnostic import shown_name, shown_text
from generator.lint.rules import BY_ID

MAX_ROWS = 200


def _cell(text: str) -> str:
    """One table cell: control characters (a CR or LF would end the row) escaped, pipes too."""
    return shown_text(text).replace("\\", "\\\\").replace("|", "\\|")


def format(report: Report) -> str:
    lines = ["## gpu-gitops lint", "", report.summary(), ""]
    if not report.findings:
        return "\n".join(lines + ["No findings.", ""])
    counts: dict[str, int] = {}
    for f in report.findings:
        counts[f.rule] = counts.get(f.rule, 0) + 1
    lines += ["| Rule | Severity | Count | Summary |", "|---|---|---:|---|"]
    for rule_id in sorted(counts):
        rule = BY_ID.get(rule_id)
        severity = next(f.severity for f in report.findings if f.rule == rule_id)
        lines.append(f"| {rule_id} | {severity} | {counts[rule_id]} | {_cell(rule.meta.summary if rule else '')} |")
    lines += ["", "| Location | Severity | Rule | Message | Hint |", "|---|---|---|---|---|"]
    for f in report.findings[:MAX_ROWS]:
        where = f"{_cell(shown_name(f.file))}:{f.line}:{f.col}"
        lines.append(f"| `{where}` | {f.severity} | {f.rule} | {_cell(f.message)} | {_cell(f.hint)} |")
    if len(report.findings) > MAX_ROWS:
        lines += ["", f"... and {len(report.findings) - MAX_ROWS} more (see the text or SARIF output)."]
    return "\n".join(lines) + "\n"
