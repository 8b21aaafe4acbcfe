"""Output formats for lint findings: one module a format, each ``format(report) -> str``.

``Report`` carries everything a format may need (the findings, ``Diagnostic``s; the files and
resources that were linted, the rules, the working directory), so formats stay pure functions.

May import: generator.diagnostic, generator.lint.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # `FORMATS` is read by the command line's --help, which must not load the linter
    from generator.diagnostic import Diagnostic
    from generator.lint.engine import FileResult

FORMATS = ("text", "json", "sarif", "junit", "github", "markdown")
_MODULES = {name: "json_format" if name == "json" else name for name in FORMATS}  # `json` would shadow the library
_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\"}


def shown_name(name: str) -> str:
    """A file name safe to print on one line: control characters (a newline would forge
    another finding) and undecodable bytes (``\\xff``, kept by the OS as surrogates) escaped.

    The JSON and SARIF formats print names exactly: JSON escapes them itself.
    """
    if name.isprintable():
        return name
    return "".join(_escape(c, surrogate_bytes=True) for c in name)


def shown_text(text: str) -> str:
    """Text taken from a linted file (a message quoting a key, an object's name), safe in any
    format: what is not printable is escaped as in ``shown_name``. Control characters could
    forge a finding, style a terminal, or make XML unreadable (XML 1.0 cannot carry most of
    them at all); a lone surrogate (a JSON ``\\udc80``) cannot be written as UTF-8.
    Backslashes stay as they are: messages quote patterns and paths.
    """
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else _escape(c, surrogate_bytes=False) for c in text)


def _escape(char: str, surrogate_bytes: bool) -> str:
    if char in _ESCAPES:
        return _ESCAPES[char]
    if char.isprintable():
        return char
    code = ord(char)
    if surrogate_bytes and 0xDC80 <= code <= 0xDCFF:  # os.fsdecode's surrogateescape of a byte
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


@dataclass
class Report:
    findings: list[Diagnostic]
    sources: list[FileResult] = field(default_factory=list)
    workdir: Path = Path(".")
    color: bool = False
    title: str = "gpu-gitops lint"  # the command, where a format names it (the GitHub summary)

    def count(self, severity: str) -> int:
        return sum(1 for f in self.findings if f.severity == severity)

    @property
    def resource_count(self) -> int:
        """Cluster objects linted (Kustomize's own files are not counted)."""
        return sum(s.objects for s in self.sources)

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
    module = importlib.import_module(f"generator.report.{_MODULES[name]}")
    return module.format(report)
