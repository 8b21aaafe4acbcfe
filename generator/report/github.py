"""GitHub Actions workflow commands (``::error file=...,line=...::message``), escaped.

GitHub shows only ten annotations of each level per step, so a summary ``::notice`` closes
the output. Escaping follows actions/toolkit: ``%``, CR and LF in messages, plus ``:`` and
``,`` in properties; other control characters in a message are escaped as in the text format.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from generator.report import Report

from generator.diagnostic import shown_name, shown_text

_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _hint(hint: str) -> str:
    """The hint on the annotation's second line (an escaped LF: annotations show several lines)."""
    return f"%0Ahint: {escape_data(shown_text(hint))}" if hint else ""


def format(report: Report) -> str:
    out = []
    for f in report.findings:
        props = ",".join(
            f"{k}={escape_property(str(v))}"
            for k, v in (("file", shown_name(f.file)), ("line", f.line), ("col", f.col), ("title", f.rule))
        )
        out.append(f"::{_LEVEL[f.severity]} {props}::{escape_data(shown_text(f.message))}{_hint(f.hint)}\n")
    out.append(f"::notice title={escape_property(report.title)}::{escape_data(report.summary())}\n")
    return "".join(out)
