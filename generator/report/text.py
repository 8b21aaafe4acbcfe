"""``path:line:col: severity: message [RULE-ID]``, one finding a line (editors and CI parse it),
followed by an indented ``  hint:`` line where the finding has one (YAML errors).

The line is ``generator.diagnostic.format_text``'s, as render and check print theirs; what
came from the linted files (names, quoted keys) is escaped first, so it cannot forge a line.
"""

from __future__ import annotations

from dataclasses import replace

from generator.diagnostic import Diagnostic, Location, format_text
from generator.report import shown_name, shown_text


def line(finding: Diagnostic, color: bool = False) -> str:
    where, message, hint = finding.location, finding.message, finding.hint
    if not (where.path.isprintable() and message.isprintable() and hint.isprintable()):
        finding = replace(
            finding,
            location=Location(shown_name(where.path), where.line, where.col),
            message=shown_text(message),
            hint=shown_text(hint),
        )
    return format_text(finding, color)


def format(report) -> str:
    return "".join(line(f, report.color) + "\n" for f in report.findings)
