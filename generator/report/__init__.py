"""Output formats for lint findings: one module a format, each ``format(report) -> str``.

``Report`` carries everything a format may need (findings, the files and resources that
were linted, the rules, the working directory), so formats stay pure functions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from generator.lint.loader import Source
from generator.lint.model import Finding

FORMATS = ("text", "json", "sarif", "junit", "github", "markdown")


@dataclass
class Report:
    findings: list[Finding]
    sources: list[Source] = field(default_factory=list)
    workdir: Path = Path(".")
    color: bool = False

    def count(self, severity: str) -> int:
        return sum(1 for f in self.findings if f.severity == severity)

    @property
    def resource_count(self) -> int:
        """Cluster objects linted (Kustomize's own files are not counted)."""
        from generator.lint.engine import is_cluster_object

        return sum(1 for s in self.sources for r in s.resources if is_cluster_object(r))

    def summary(self) -> str:
        return (f"{self.resource_count} resource(s) in {len(self.sources)} file(s): "
                f"{self.count('error')} error(s), {self.count('warning')} warning(s), {self.count('info')} info")


def render(name: str, report: Report) -> str:
    """The report in format ``name`` (one of ``FORMATS``)."""
    from generator.report import github, json_format, junit, markdown, sarif, text

    modules = {"text": text, "json": json_format, "sarif": sarif, "junit": junit, "github": github,
               "markdown": markdown}
    return modules[name].format(report)
