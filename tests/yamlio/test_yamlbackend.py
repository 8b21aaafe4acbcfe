"""The YAML reader's backends: one chosen in one place (``yamlio.backend``), by name when asked,
named by ``--version``; ``locate`` refuses what ``load`` refuses on each; the compiled reader
takes part in garbage collection."""

from __future__ import annotations

import gc
import weakref

import pytest
from ruamel.yaml.error import YAMLError

from generator.yamlio import backend, read


@pytest.fixture
def forced(monkeypatch):
    """Force a backend by name for one test; the choice is made again after it."""

    def force(name: str) -> None:
        monkeypatch.setenv(backend.ENV, name)
        backend.chosen.cache_clear()
        read._compiled.cache_clear()

    yield force
    monkeypatch.undo()
    backend.chosen.cache_clear()
    read._compiled.cache_clear()


BUILT = pytest.mark.skipif(backend._cread is None, reason="the compiled backend is not built (no libyaml headers)")
BACKENDS = [pytest.param(backend.COMPILED, marks=BUILT), backend.EVENTS]


@pytest.mark.parametrize("name", BACKENDS)
def test_the_backend_named_in_the_environment_reads(forced, name):
    forced(name)
    assert backend.chosen() == name
    assert (read._compiled(read.GO_YAML, None) is not None) == (name == backend.COMPILED)
    assert read.load("a: [1, yes, '2']\n") == {"a": [1, True, "2"]}
    mark = read.Positions("a:\n  b: 1\n").find(("a", "b"))[1]
    assert (mark.line, mark.column) == (1, 2)


@pytest.mark.parametrize("name", BACKENDS)
def test_version_names_the_backend_in_use(run, project, forced, name):
    forced(name)
    result = run(project, "--version")
    assert result.exit_code == 0
    assert f"\nYAML reader: {name} (" in result.stdout and "libyaml 0." in result.stdout


def test_an_unknown_backend_is_one_error_before_anything_is_read(run, project, forced):
    forced("fast")
    result = run(project, "list")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: GPU_GITOPS_YAML_BACKEND='fast' names no YAML backend\n  hint: ")


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize(
    "text",
    [
        "a: &x 1\nb: 2\n",  # an anchor
        "a: [1]\nb: *x\n",  # an alias
        "a: !!str 1\n",  # a tag
        "a: !!map {b: 1}\n",
        "a: 1\na: 2\n",  # a repeated key
        "<<: {a: 1}\n",  # a merge key
        "? [a]\n: 1\n",  # a complex key
        "a: 1\n---\nb: 2\n",  # a second document
    ],
)
def test_locate_refuses_what_load_refuses(forced, name, text):
    forced(name)
    with pytest.raises((read.Fallback, YAMLError)):
        read.load(text)
    with pytest.raises((read.Fallback, YAMLError)):
        read.locate(text)


@BUILT
def test_the_compiled_reader_is_collected_in_a_reference_cycle():
    """A resolution whose function reaches its reader again: the cycle is freed by the collector."""

    class Resolver:
        def resolve(self, text: str) -> str:
            return text

    holder = Resolver()
    reader = backend._cread.Reader("0", holder.resolve, holder.resolve, -1)
    holder.reader = reader  # type: ignore[attr-defined]
    assert gc.is_tracked(reader) and holder.resolve.__self__ is holder
    gone = weakref.ref(holder)
    del holder, reader
    gc.collect()
    assert gone() is None


HANDED_OVER = [
    "a: &x 1\nb: *x\n",  # an anchor and its alias
    "a: !!str 1\n",  # a tag
    "a: 1\na: 2\n",  # a repeated key
    "a: 1\n---\nb: 2\n",  # a second document
    "a: [1\n",  # a syntax error, for the full loader to word
]


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize("text", HANDED_OVER)
def test_build_hands_over_what_the_backends_do_not_build(forced, name, text):
    forced(name)
    assert isinstance(read.build(text), read.Handover)


@pytest.mark.parametrize("name", BACKENDS)
def test_build_returns_the_data_it_builds(forced, name):
    forced(name)
    assert read.build("a: [1, yes]\n") == {"a": [1, True]}
    assert read.build("") is None  # an empty text is no hand-over


def test_load_data_reads_a_handed_over_document_with_the_safe_loader():
    assert read.load_data("a: &x {b: 1}\nc: *x\n") == {"a": {"b": 1}, "c": {"b": 1}}
    with pytest.raises(YAMLError):
        read.load_data("a: [1\n")


def test_no_caller_hands_over_by_catching_the_readers_exceptions():
    """``read.build`` decides; a caller branches on its ``Handover`` (or reads with ``load_data``,
    which does), never on ``Fallback``, and never calls ``read.load``, which raises it."""
    import re

    from conftest import REPO

    catch = re.compile(r"except\s*\(?[^:\n]*\bFallback\b")
    raising = re.compile(r"\b(?:read|yamlread)\.load\(|from generator\.yamlio\.read import [^\n]*\bload\b(?!_)")
    catching = [
        path.relative_to(REPO).as_posix()
        for path in (REPO / "generator").rglob("*.py")
        if path.parent.name != "yamlio"
        and (catch.search(text := path.read_text(encoding="utf-8")) or raising.search(text))
    ]
    assert catching == []


@pytest.mark.parametrize(
    "line",
    [
        "from generator.yamlio.read import load",
        "x = read.load(text)",
        "from generator.yamlio.read import TooDeep, load",
    ],
)
def test_the_check_of_callers_sees_a_call_of_load(line):
    import re

    raising = re.compile(r"\b(?:read|yamlread)\.load\(|from generator\.yamlio\.read import [^\n]*\bload\b(?!_)")
    assert raising.search(line)
    assert not raising.search(line.replace("load", "load_data"))
