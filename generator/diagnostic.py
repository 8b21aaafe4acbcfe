"""What is wrong, where, how bad, how to fix it: the one record every check reports.

Input errors and warnings, rendered-object problems and lint findings are all ``Diagnostic``s,
and ``format_text`` is the one way one is printed::

    path:line:col: severity: message [RULE]
      hint: how to fix it
      note: what else helps (for an input assembled from bases: the files that set the value)

The location is left out when there is none, the line and column when unknown (0), the rule
when no lint rule found it. Report formats (``generator.report``) read the same fields.
Only the standard library and ``generator.record`` are imported here (click, for colour, when
colour is asked for): every command's start-up loads this module. The three classes are frozen
records (``generator.record``): equal, hashed and printed as frozen dataclasses, copied with
``replace``, pickled as a call of the class with the fields in order (lint's worker processes
send findings back by the thousand).

May import: generator.record.
"""

from __future__ import annotations

from generator.record import Frozen

SEVERITIES = ("error", "warning", "info")
_COLOURS = {"error": "red", "warning": "yellow", "info": "cyan"}


class Location(Frozen):
    """A position in a file; line and column are 1-based, 0 when unknown; no path: nowhere."""

    __slots__ = _fields = ("path", "line", "col")

    path: str
    line: int
    col: int

    def __init__(self, path: str = "", line: int = 0, col: int = 0):
        put = object.__setattr__
        put(self, "path", path)
        put(self, "line", line)
        put(self, "col", col)

    def __str__(self) -> str:
        if self.line:
            return f"{self.path}:{self.line}:{self.col or 1}"
        return self.path


def line_col(text: str, offset: int) -> tuple[int, int]:
    """The 1-based line and column (in characters) of ``text[offset]``, as a Location holds them:
    where a problem found by its offset in a file's text is reported."""
    return text.count("\n", 0, offset) + 1, offset - text.rfind("\n", 0, offset)


class ObjectRef(Frozen):
    """The Kubernetes object a diagnostic is about (empty when it is about no object).
    ``generate_name``: metadata.generateName of an object without a name (the API server adds
    a suffix)."""

    __slots__ = _fields = ("api_version", "kind", "namespace", "name", "generate_name")

    api_version: str
    kind: str
    namespace: str
    name: str
    generate_name: str

    def __init__(
        self, api_version: str = "", kind: str = "", namespace: str = "", name: str = "", generate_name: str = ""
    ):
        put = object.__setattr__
        put(self, "api_version", api_version)
        put(self, "kind", kind)
        put(self, "namespace", namespace)
        put(self, "name", name)
        put(self, "generate_name", generate_name)

    def __str__(self) -> str:
        if not self.kind:
            return ""
        where = f"{self.namespace}/" if self.namespace else ""
        return f"{self.kind} {where}{self.shown_name}"

    @property
    def shown_name(self) -> str:
        """The name, or for a ``generateName`` object its prefix and ``*`` (the suffix to come)."""
        return self.name or (f"{self.generate_name}*" if self.generate_name else "")


_NO_OBJECT = ObjectRef()


class Diagnostic(Frozen):
    """One problem at one place. ``rule`` is the lint rule that found it ('' for the input
    checks and the schema validation); ``ref`` the object it is about, for the report
    formats that group or name objects (JUnit, SARIF, JSON); ``note`` context beyond the fix
    (the chain of input files that set a value)."""

    __slots__ = _fields = ("location", "severity", "message", "hint", "rule", "ref", "note")

    location: Location
    severity: str
    message: str
    hint: str
    rule: str
    ref: ObjectRef
    note: str

    def __init__(
        self,
        location: Location,
        severity: str,
        message: str,
        hint: str = "",
        rule: str = "",
        ref: ObjectRef = _NO_OBJECT,
        note: str = "",
    ):
        put = object.__setattr__
        put(self, "location", location)
        put(self, "severity", severity)
        put(self, "message", message)
        put(self, "hint", hint)
        put(self, "rule", rule)
        put(self, "ref", ref)
        put(self, "note", note)

    # the location's parts by the names lint rules and report formats use
    @property
    def file(self) -> str:
        return self.location.path

    @property
    def line(self) -> int:
        return self.location.line

    @property
    def col(self) -> int:
        return self.location.col

    def sort_key(self) -> tuple:
        """Report order: by file, position, rule, message."""
        return (self.location.path, self.location.line, self.location.col, self.rule, self.message)


def format_text(diagnostic: Diagnostic, color: bool = False) -> str:
    """``path:line:col: severity: message [RULE]`` and, when there are, indented ``  hint:``
    and ``  note:`` lines. With ``color`` the severity and the hint are styled (ANSI). What
    is not printable in the path, message, hint or note (input text they quote) is escaped
    first: a CR, a bidi override or an escape sequence cannot rewrite the line a reader sees."""
    d = diagnostic
    if not all(part.isprintable() for part in (d.location.path, d.message, d.hint, d.note)):
        location = Location(shown_name(d.location.path), d.location.line, d.location.col)
        d = d.replace(
            location=location, message=shown_text(d.message), hint=shown_text(d.hint), note=shown_text(d.note)
        )
    where = f"{d.location}: " if d.location.path else ""
    severity = f"{d.severity}:"
    hint = f"  hint: {d.hint}" if d.hint else ""
    if color:
        import click

        severity = click.style(severity, fg=_COLOURS.get(d.severity), bold=True)
        hint = click.style(hint, fg="cyan") if hint else ""
    text = f"{where}{severity} {d.message}" + (f" [{d.rule}]" if d.rule else "")
    note = f"  note: {d.note}" if d.note else ""
    return "\n".join(part for part in (text, hint, note) if part)


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
