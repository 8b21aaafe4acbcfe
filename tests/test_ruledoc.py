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
