"""Output formats for lint findings: one module a format, each ``format(report) -> str``.

``Report`` carries everything a format may need (the findings, ``Diagnostic``s; the files and
resources that were linted, the rules, the working directory), so formats stay pure functions.

May import: generator.diagnostic, generator.jsontext, generator.lint, generator.record.
"""

from __future__ import annotations

import sys

from generator.record import Record

TYPE_CHECKING = False  # typing's flag without importing typing (PEP 781; mypy reads it as True)
if TYPE_CHECKING:
    from generator.diagnostic import Diagnostic
    from generator.lint.engine import FileResult


FORMATS = ("text", "json", "sarif", "junit", "github", "markdown")
_MODULES = {name: "json_format" if name == "json" else name for name in FORMATS}  # `json` would shadow the library


class Report(Record):
    """``findings`` are every finding of the run, all counted, whatever the format; with
    ``folded`` the text format lists the K8S004 warnings as the one summary warning the
    command prints instead (``listed``), so the count, the summary and the exit code are
    the same in every format."""

    __slots__ = _fields = ("findings", "sources", "workdir", "color", "folded", "title")

    findings: list[Diagnostic]
    sources: list[FileResult]
    workdir: str  # the folder relative paths are relative to (SARIF's working directory)
    color: bool
    folded: bool
    title: str  # the command, where a format names it (the GitHub summary)

    def __init__(
        self,
        findings: list[Diagnostic],
        sources: list[FileResult] | None = None,
        workdir: str = ".",
        color: bool = False,
        folded: bool = False,
        title: str = "gpu-gitops lint",
    ):
        self.findings = findings
        self.sources = [] if sources is None else sources
        self.workdir = workdir
        self.color = color
        self.folded = folded
        self.title = title

    def count(self, severity: str) -> int:
        return sum(1 for f in self.findings if f.severity == severity)

    @property
    def listed(self) -> list[Diagnostic]:
        """The findings the text format prints one by one."""
        if not self.folded:
            return self.findings
        return [f for f in self.findings if not (f.rule == "K8S004" and f.severity == "warning")]

    @property
    def resource_count(self) -> int:
        """Cluster objects linted (Kustomize's own files are not counted)."""
        return sum(s.objects for s in self.sources)

    def coverage(self) -> str:
        """How many of the linted objects a schema checked: the rest got the rules only."""
        return f"{sum(s.checked for s in self.sources)} of {self.resource_count} objects schema-checked"

    def summary(self) -> str:
        if not self.sources:  # render's and check's input errors: no files were linted
            return f"{self.count('error')} error(s), {self.count('warning')} warning(s), {self.count('info')} info"
        return (
            f"{self.resource_count} resource(s) in {len(self.sources)} file(s): "
            f"{self.count('error')} error(s), {self.count('warning')} warning(s), {self.count('info')} info"
        )


def render(name: str, report: Report) -> str:
    """The report in format ``name`` (one of ``FORMATS``): only that format's module is
    imported (JUnit's needs ``xml``, which a run that prints JSON does not)."""
    qualified = f"generator.report.{_MODULES[name]}"
    __import__(qualified)  # not importlib's import_module: importing importlib brings warnings (~0.4 ms a lint)
    return sys.modules[qualified].format(report)
