"""``path:line:col: severity: message [RULE-ID]``, one finding a line (editors and CI parse it),
followed by an indented ``  hint:`` line where the finding has one (YAML errors).

The line is ``generator.diagnostic.format_text``'s, as render and check print theirs; what
came from the linted files (names, quoted keys) is escaped there, so it cannot forge a line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from generator.report import Report

from generator.diagnostic import format_text


def format(report: Report) -> str:
    return "".join(format_text(f, report.color) + "\n" for f in report.listed)
