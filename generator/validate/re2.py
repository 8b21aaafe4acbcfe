"""Go/RE2 regular expressions (the syntax of CRD ``pattern``s) as Python ``re`` patterns.

The API server compiles a CRD's ``pattern`` with Go's ``regexp`` (RE2 syntax); Python's ``re``
rejects some of it, e.g. ``(?i)`` in the middle of a pattern (Prometheus Operator's
PrometheusRule and AlertmanagerConfig CRDs), ``\\z``, ``\\pL``, ``\\PC`` (Cilium's
CiliumNetworkPolicy) or ``[[:alpha:]]``. Unicode classes are built from Python's Unicode
tables, which may be a version apart from Go's. A pattern
Python accepts as written is used as written; one it rejects is rewritten to an equivalent
pattern; one that has no equivalent gives ``None`` and the caller skips that one keyword.
RE2 syntax: https://github.com/google/re2/wiki/Syntax
"""

from __future__ import annotations

import functools
import re
import unicodedata

from generator import regex
from generator.replace import replace_file

# RE2's ASCII classes (https://github.com/google/re2/wiki/Syntax, "ASCII character classes")
_POSIX = {
    "alnum": "0-9A-Za-z",
    "alpha": "A-Za-z",
    "ascii": "\\x00-\\x7f",
    "blank": "\\t ",
    "cntrl": "\\x00-\\x1f\\x7f",
    "digit": "0-9",
    "graph": "!-~",
    "lower": "a-z",
    "print": " -~",
    "punct": "!-/:-@\\[-`{-~",
    "space": "\\t\\n\\v\\f\\r ",
    "upper": "A-Z",
    "word": "0-9A-Za-z_",
    "xdigit": "0-9A-Fa-f",
}
_FLAGS = regex.compile(r"\(\?([imsU]*)(?:-([imsU]*))?\)")


class Untranslatable(ValueError):
    """The pattern uses RE2 syntax with no Python equivalent."""


@functools.cache
def _category(name: str) -> str:
    """The code points of Unicode general category ``name`` (``L``, ``Lu``, ``C``…) as a bracket body.

    Go's tables (package unicode) have no ``Cn``: unassigned code points are in no category.
    Script names (``Greek``) have no Python table and are not translated.
    """
    if not re.fullmatch(r"[A-Z][a-z]?", name):
        raise Untranslatable(f"\\p{{{name}}}")
    ranges: list[list[int]] = []
    for first, last, category in _category_runs():
        if category.startswith(name) and category != "Cn":
            if ranges and ranges[-1][1] == first - 1:
                ranges[-1][1] = last
            else:
                ranges.append([first, last])
    if not ranges:
        raise Untranslatable(f"\\p{{{name}}}")
    return "".join(f"\\U{a:08x}" + (f"-\\U{b:08x}" if b != a else "") for a, b in ranges)


@functools.cache
def _category_runs() -> list[tuple[int, int, str]]:
    """Every code point's general category, as runs ``(first, last, category)`` in order.

    One walk over all 1.1 M code points gives every category's table (0.2 s; a walk per
    category took 1.6 s each). The runs depend only on this Python's Unicode tables, so they
    are kept in the user cache per Unicode version, and later processes read them (a cache
    that cannot be read or written only costs the walk)."""
    import json

    from generator.paths import cache_root

    path = cache_root() / "unicode" / f"categories-{unicodedata.unidata_version}.json"
    try:
        runs = [(int(a), int(b), str(c)) for a, b, c in json.loads(path.read_text(encoding="utf-8"))]
        if _covers_all(runs):
            return runs
    except (OSError, ValueError, TypeError):
        pass
    runs = _walk_categories()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        replace_file(path, json.dumps(runs))
    except OSError:
        pass
    return runs


def _walk_categories() -> list[tuple[int, int, str]]:
    category = unicodedata.category
    runs: list[tuple[int, int, str]] = []
    start, current = 0, category("\0")
    for cp in range(1, 0x110000):
        found = category(chr(cp))
        if found != current:
            runs.append((start, cp - 1, current))
            start, current = cp, found
    runs.append((start, 0x10FFFF, current))
    return runs


def _covers_all(runs: list[tuple[int, int, str]]) -> bool:
    """Whether cached runs are well formed: contiguous from 0 to U+10FFFF, two-letter categories."""
    expected = 0
    for first, last, category in runs:
        if first != expected or last < first or not re.fullmatch(r"[A-Z][a-z]", category):
            return False
        expected = last + 1
    return expected == 0x110000


@functools.lru_cache(maxsize=4096)
def to_python(pattern: str) -> str | None:
    """A Python pattern that matches what the RE2 ``pattern`` matches, or None."""
    if "[:" not in pattern:  # Python reads RE2's [[:alpha:]] as a set of characters, without an error
        try:
            re.compile(pattern)
            return pattern
        except re.error:
            pass
    try:
        translated = translate(pattern)
        re.compile(translated)
        return translated
    except (Untranslatable, re.error):
        return None


def translate(pattern: str) -> str:
    """Rewrite the RE2 constructs Python lacks; raises ``Untranslatable``."""
    out: list[str] = []
    # per open group: how many scoped-flag groups were opened inside it at this depth
    scoped: list[list[str]] = [[]]
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            token, i = _escape(pattern, i)
            out.append(token)
            continue
        if c == "[":
            token, i = _bracket(pattern, i)
            out.append(token)
            continue
        if c == "(":
            flags = _FLAGS.match(pattern, i)
            if flags:
                on, off = flags.group(1) or "", flags.group(2) or ""
                if "U" in on + off:
                    raise Untranslatable("ungreedy flag")
                group = f"(?{on}{'-' + off if off else ''}:"
                out.append(group)
                scoped[-1].append(group)
                i = flags.end()
                continue
            if pattern.startswith("(?<", i) and not pattern.startswith(("(?<=", "(?<!"), i):
                out.append("(?P<")  # Go 1.22 named groups
                i += 3
            elif pattern.startswith("(?", i) and not pattern.startswith(("(?:", "(?P<"), i):
                flagged = re.match(r"\(\?([imsU]*)(?:-([imsU]*))?:", pattern[i:])
                if not flagged or "U" in flagged.group(0):
                    raise Untranslatable("group syntax")
                out.append(flagged.group(0))
                i += flagged.end()
            else:
                out.append(c)
                i += 1
            scoped.append([])
            continue
        if c == ")":
            out.append(")" * len(scoped.pop()))
            if not scoped:
                raise Untranslatable("unbalanced parenthesis")
            out.append(")")
            i += 1
            continue
        if c == "|" and scoped[-1]:
            # flags set earlier in this group still apply in the next alternative
            out.append(")" * len(scoped[-1]) + "|" + "".join(scoped[-1]))
            i += 1
            continue
        out.append(c)
        i += 1
    if len(scoped) != 1:
        raise Untranslatable("unbalanced parenthesis")
    out.append(")" * len(scoped[0]))
    return "".join(out)


def _escape(pattern: str, i: int) -> tuple[str, int]:
    """One escape outside brackets → (python text, next index)."""
    if i + 1 >= len(pattern):
        raise Untranslatable("trailing backslash")
    e = pattern[i + 1]
    if e == "z":
        return "\\Z", i + 2
    if e == "Q":
        end = pattern.find("\\E", i + 2)
        literal = pattern[i + 2 :] if end < 0 else pattern[i + 2 : end]
        return re.escape(literal), (len(pattern) if end < 0 else end + 2)
    if e in "pP":
        name, j = _class_name(pattern, i + 2)
        negated = (e == "P") != name.startswith("^")
        return ("[^" if negated else "[") + _category(name.lstrip("^")) + "]", j
    if e in "CX":
        raise Untranslatable(f"\\{e}")
    return pattern[i : i + 2], i + 2


def _class_name(pattern: str, j: int) -> tuple[str, int]:
    if j < len(pattern) and pattern[j] == "{":
        end = pattern.find("}", j)
        if end < 0:
            raise Untranslatable("unclosed \\p{")
        return pattern[j + 1 : end], end + 1
    if j >= len(pattern):
        raise Untranslatable("\\p without a class")
    return pattern[j], j + 1


def _bracket(pattern: str, i: int) -> tuple[str, int]:
    """A bracket expression with RE2's ``[:name:]`` classes expanded."""
    out = ["["]
    j = i + 1
    if j < len(pattern) and pattern[j] == "^":
        out.append("^")
        j += 1
    if j < len(pattern) and pattern[j] == "]":
        out.append("\\]")  # a leading ] is a literal in RE2
        j += 1
    while j < len(pattern):
        c = pattern[j]
        if c == "]":
            out.append("]")
            return "".join(out), j + 1
        if pattern.startswith("[:", j):
            end = pattern.find(":]", j + 2)
            name = pattern[j + 2 : end] if end > 0 else ""
            negated = name.startswith("^")
            if negated or name not in _POSIX:
                raise Untranslatable(f"[:{name}:]")
            out.append(_POSIX[name])
            j = end + 2
            continue
        if c == "[":
            out.append("\\[")  # Python warns of nested sets; RE2 reads a literal
            j += 1
            continue
        if c == "\\":
            e = pattern[j + 1] if j + 1 < len(pattern) else ""
            if e == "p":
                name, j = _class_name(pattern, j + 2)
                if name.startswith("^"):
                    raise Untranslatable("negated \\p in brackets")
                out.append(_category(name))
                continue
            if e in ("P", "z", "Q", ""):
                raise Untranslatable(f"\\{e} in brackets")
            out.append(pattern[j : j + 2])
            j += 2
            continue
        out.append(c)
        j += 1
    raise Untranslatable("unclosed bracket")
