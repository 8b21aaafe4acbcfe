"""The values an entry is called with reach the library unchanged: the engine reads them as
JSON text (``std.parseJson``), not as Jsonnet code."""

from __future__ import annotations

from conftest import REPO

from generator.library import jsonnet
from generator.paths import Project
from generator.yamlio.read import INPUTS

PROJECT = Project(REPO)
ECHO = "function(spec, extra) {spec: spec, extra: extra}"


def _echo(spec: object, extra: object) -> object:
    sandbox = jsonnet.Sandbox(PROJECT.libsonnet, None, PROJECT.root)
    return jsonnet.evaluate(ECHO, sandbox, {"spec": spec, "extra": extra}, home=PROJECT.libsonnet)


def test_strings_and_numbers_come_back_as_they_went_in():
    spec = {"text": 'x\U0001f600y\u00e9\n\t"\\ \u2028', "numbers": [1, 1.5, -2, 0.1, 2**53], "empty": [{}, []]}
    assert _echo(spec, [True, False, None]) == {"spec": spec, "extra": [True, False, None]}


def test_a_batch_of_inputs_nested_as_deep_as_inputs_may_be_reaches_the_library():
    """The engine's JSON reader refuses more than 127 levels of collections; an input holds at
    most INPUTS.depth, and a batch (a list of specs) one more."""
    deep: object = "leaf"
    for level in range(INPUTS.depth):
        deep = [deep] if level % 2 else {"nested": deep}
    assert _echo([deep], {}) == {"spec": [deep], "extra": {}}
