"""What names a rule and explains it: the one record lint rules and input checks share.

A rule is looked up by its ID (``GPU001``), listed with its name and summary, reported at its
default severity, and explained by its docstring: what it finds, ``Rationale:``, ``Fix:``, then
``PASS:`` and ``FAIL:`` examples (``gpu-gitops explain ID``, docs/rules.md). One frozen record
per rule holds them, so the registry, the reports and the docs read typed fields.

May import: generator.record.
"""

from __future__ import annotations

from generator.record import Frozen

TYPE_CHECKING = False  # typing's flag without importing typing (PEP 781; mypy reads it as True)
if TYPE_CHECKING:
    from typing import Literal

    Severity = Literal["error", "warning", "info"]


class RuleMeta(Frozen):
    """A rule's ID, name (``extended-limit-missing``), default severity, one-line summary and docstring."""

    __slots__ = _fields = ("id", "name", "severity", "summary", "doc")

    id: str
    name: str
    severity: Severity
    summary: str
    doc: str

    def __init__(self, id: str, name: str, severity: Severity, summary: str, doc: str):  # noqa: A002 (the rule's ID)
        put = object.__setattr__
        put(self, "id", id)
        put(self, "name", name)
        put(self, "severity", severity)
        put(self, "summary", summary)
        put(self, "doc", doc)
