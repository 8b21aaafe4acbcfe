"""A rule's docstring is read as ``inspect.cleandoc`` reads it, without importing inspect."""

from __future__ import annotations

import inspect

from generator import ruledoc
from generator.inputs import consistency
from generator.lint.rules import REGISTRY


def test_cleandoc_is_inspects_on_every_rule_and_input_check_and_on_odd_texts():
    docs = [r.meta.doc for r in REGISTRY] + [c.meta.doc for c in consistency.REGISTRY]
    docs += ["", "\n", "  one", "one\n  two\n\tthree\n\n", "\n\n  a\n    b\n  \n", "x\n\n   \n  y  \n"]
    assert [d for d in docs if ruledoc.cleandoc(d) != inspect.cleandoc(d)] == []


def test_the_prose_of_a_docstring_is_split_s_without_its_examples():
    for rule in REGISTRY:
        assert ruledoc.prose(rule.meta.doc) == ruledoc.split(rule.meta.doc)[0]


def test_the_examples_are_found_as_the_header_pattern_finds_them():
    """``_headers`` reads by hand what ``^(PASS|FAIL):\\s*$`` (multiline) finds: every rule's
    and input check's docstring, and headers with trailing white space, indented or glued."""
    import re

    pattern = re.compile(r"^(PASS|FAIL):\s*$", re.M)
    docs = [r.meta.doc for r in REGISTRY] + [c.meta.doc for c in consistency.REGISTRY]
    docs += ["PASS:", "x\nPASS:  \n\n  a: 1\nFAIL:\t\n  b", " PASS:\nPASS: x\nFAIL:\x0b\n", "PASS:\u2028\n", "FAILS:\n"]
    for doc in docs:
        text = ruledoc.cleandoc(doc)
        assert [(v, s) for v, s, _ in ruledoc._headers(text)] == [(m[1], m.start()) for m in pattern.finditer(text)]
