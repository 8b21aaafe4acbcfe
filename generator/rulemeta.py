"""What names a rule and explains it: the one record lint rules and input checks share.

A rule is looked up by its ID (``GPU001``), listed with its name and summary, reported at its
default severity, and explained by its docstring: what it finds, ``Rationale:``, ``Fix:``, then
``PASS:`` and ``FAIL:`` examples (``gpu-gitops explain ID``, docs/rules.md). One frozen record
per rule holds them, so the registry, the reports and the docs read typed fields.

May import: nothing of generator.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warning", "info"]


@dataclass(frozen=True, slots=True)
class RuleMeta:
    """A rule's ID, name (``extended-limit-missing``), default severity, one-line summary and docstring."""

    id: str
    name: str
    severity: Severity
    summary: str
    doc: str
