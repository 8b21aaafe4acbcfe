"""Lint for libsonnet/, standing in for go-jsonnet's ``jsonnet-lint`` (a Go binary, not packaged
for Python): every file passes go-jsonnet's static check on import (syntax, unknown variables
anywhere in the file, not only on the evaluated path), every import names a file that exists,
and no ``local`` is left unused. The renderer uses rjsonnet, which checks names lazily.

The unused-local check is lexical: comments and string literals are blanked, then a ``local``
name that never appears again in its file is reported. A name declared twice (shadowing) counts
each use for both, so the check can miss a dead local but does not report a used one. Only the
first name of ``local a = 1, b = 2;`` and no function parameters are checked.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import _gojsonnet
import pytest

LIBSONNET = Path(__file__).resolve().parent.parent / "libsonnet"
FILES = sorted(p.relative_to(LIBSONNET).as_posix() for p in LIBSONNET.rglob("*.libsonnet"))

_IMPORT = re.compile(r"""\bimport(?:str|bin)?\s+(?:'([^']+)'|"([^"]+)")""")
_LOCAL = re.compile(r"\blocal\s+([A-Za-z_][A-Za-z0-9_]*)")
_TEXT_BLOCK = re.compile(r"\|\|\|-?[ \t]*\n(?P<indent>[ \t]+).*?\n[ \t]*\|\|\|", re.S)


def _code_only(text: str) -> str:
    """``text`` with comments and string literals blanked (newlines kept, so lines still count)."""
    text = _TEXT_BLOCK.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c == "#" or text.startswith("//", i):
            end = text.find("\n", i)
            end = len(text) if end < 0 else end
        elif text.startswith("/*", i):
            end = text.index("*/", i + 2) + 2
        elif c in "'\"" or (c == "@" and text[i + 1 : i + 2] in ("'", '"')):
            verbatim = c == "@"
            quote = text[i + 1] if verbatim else c
            end = i + (2 if verbatim else 1)
            while text[end] != quote or (verbatim and text.startswith(quote * 2, end)):
                end += 2 if (text[end] == "\\" and not verbatim) or (verbatim and text[end] == quote) else 1
            end += 1
        else:
            out.append(c)
            i += 1
            continue
        out.append(re.sub(r"[^\n]", " ", text[i:end]))
        i = end
    return "".join(out)


def unused_locals(text: str) -> list[tuple[str, int]]:
    """(name, line) of each ``local`` whose name does not appear anywhere else in ``text``."""
    code = _code_only(text)
    return [
        (m.group(1), code.count("\n", 0, m.start()) + 1)
        for m in _LOCAL.finditer(code)
        if len(re.findall(rf"(?<![\w$.]){re.escape(m.group(1))}\b", code)) == 1
    ]


def _static_check(path: Path) -> str:
    """The type of the file's value; importing it runs go-jsonnet's static analysis on all of it."""
    return json.loads(_gojsonnet.evaluate_snippet("lint", f"std.type(import {json.dumps(str(path))})"))


@pytest.mark.parametrize("name", FILES)
def test_every_library_file_passes_the_static_check_on_its_own(name):
    assert _static_check(LIBSONNET / name) in ("function", "object")


@pytest.mark.parametrize("name", FILES)
def test_every_import_names_an_existing_file(name):
    path = LIBSONNET / name
    imports = [a or b for a, b in _IMPORT.findall(path.read_text(encoding="utf-8"))]
    assert [i for i in imports if not (path.parent / i).is_file()] == []


@pytest.mark.parametrize("name", FILES)
def test_no_library_file_has_an_unused_local(name):
    assert unused_locals((LIBSONNET / name).read_text(encoding="utf-8")) == []


def test_an_unknown_name_off_the_evaluated_path_fails_the_static_check(tmp_path):
    (tmp_path / "broken.libsonnet").write_text("local a = 1;\n{ f(x): a + y }\n", encoding="utf-8")
    with pytest.raises(RuntimeError, match="broken.libsonnet:2:.*Unknown variable: y"):
        _static_check(tmp_path / "broken.libsonnet")


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("local a = 1;\n{ b: 2 }", [("a", 1)]),
        ("local a = 1;\n{ b: a }", []),
        ("{\n  local helper(x) = x,\n  b: 2,\n}", [("helper", 2)]),
        ("local a = 1;\n// a is used here only in a comment\n{ b: 'a' }", [("a", 1)]),
        ('local a = 1;\n{ b: |||\n  a\n|||, c: "a" }', [("a", 1)]),
        ("local a = 1;\n{ a: 2 }", []),  # a field of the same name counts as a use: the check can miss, not invent
        ("local a = 1;\n{ b: x.a }", [("a", 1)]),
        ("local s = @'it''s';\n{ b: s }", []),
        ("local s = 'it\\'s';\n{ b: s }", []),
    ],
)
def test_the_unused_local_check(text, found):
    assert unused_locals(text) == found
