"""A rule's docstring, read one way for the lint rules and the input checks.

The docstring is the one source of a rule's documentation, as in yamllint: its paragraphs
say what the rule finds, why (``Rationale:``) and how to fix it (``Fix:``), then come its
``PASS:`` and ``FAIL:`` examples, each the indented YAML block under a line of its own::

    PASS:

        apiVersion: v1
        kind: Pod

``explain`` prints them from the installed package, the generated docs publish them, and the
tests run each example (a PASS example gives no finding of its rule, a FAIL example exactly
one), so the documentation cannot show what the rule does not do.

May import: generator.record.
"""

from __future__ import annotations

from generator.record import Frozen

VERDICTS = ("PASS", "FAIL")


class Example(Frozen):
    """One PASS or FAIL example of a rule's docstring."""

    __slots__ = _fields = ("verdict", "text")

    verdict: str  # "PASS" or "FAIL"
    text: str  # the YAML, dedented, ending in a newline

    def __init__(self, verdict: str, text: str):
        object.__setattr__(self, "verdict", verdict)
        object.__setattr__(self, "text", text)


def cleandoc(docstring: str) -> str:
    """``inspect.cleandoc``: the docstring with its tabs expanded, its first line's leading
    whitespace and the other lines' common indentation removed, and its leading and trailing
    blank lines. Here, not inspect's: a lint reads a docstring for a finding without a hint of
    its own, and inspect's import (ast, dis, tokenize) would cost more than its lint; a test
    holds the two equal on every rule's and input check's docstring."""
    lines = docstring.expandtabs().split("\n")
    indents = [len(line) - len(line.lstrip()) for line in lines[1:] if line.lstrip()]
    margin = min(indents, default=None)
    lines[0] = lines[0].lstrip()
    if margin is not None:
        lines[1:] = [line[margin:] for line in lines[1:]]
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    return "\n".join(lines)


def _headers(text: str) -> list[tuple[str, int, int]]:
    """Each example's header line, ``PASS:`` or ``FAIL:`` alone on its line (trailing white
    space allowed): its verdict, where the line starts and where its text ends. Read by hand:
    a lint reads a docstring for a finding without a hint of its own, and compiling the pattern
    (``^(PASS|FAIL):\\s*$``) cost it more than the read (a test holds the two equal)."""
    found, start = [], 0
    for line in text.split("\n"):
        if line[:5] in ("PASS:", "FAIL:") and not line[5:].strip():
            found.append((line[:4], start, start + 5))
        start += len(line) + 1
    return found


def prose(docstring: str | None) -> str:
    """The docstring before its first example."""
    text = cleandoc(docstring or "")
    found = _headers(text)
    return text[: found[0][1]].rstrip() if found else text


def split(docstring: str | None) -> tuple[str, list[Example]]:
    """``(prose, examples)``: the docstring before its first example, and the examples in order."""
    import textwrap  # on use: its import compiles the patterns of its wrapper, which no lint uses

    text = cleandoc(docstring or "")
    found = _headers(text)
    if not found:
        return text, []
    examples = []
    ends = [start for _, start, _ in found[1:]] + [len(text)]
    for (verdict, _, after), end in zip(found, ends, strict=True):
        examples.append(Example(verdict, textwrap.dedent(text[after:end]).strip("\n") + "\n"))
    return text[: found[0][1]].rstrip(), examples


def sections(docstring: str | None, markup: str = "rst") -> tuple[str, str, str]:
    """``(description, rationale, fix)`` of a rule's docstring, with its ``code`` spans as
    written (``rst``), as Markdown code (``markdown``) or as plain text (``text``: a terminal)."""
    text = prose(docstring)
    if markup == "markdown":
        text = text.replace("``", "`")
    elif markup == "text":
        text = text.replace("``", "")
    description, _, rest = text.partition("\n\nRationale:")
    rationale, _, fix = rest.partition("\n\nFix:")
    return description.strip(), " ".join(rationale.split()), " ".join(fix.split())
