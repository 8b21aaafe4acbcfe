"""The fast input reader gives the data and positions ruamel's round-trip loader gives."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import record_position_reads

from generator.errors import InputError
from generator.yamlio import depth as yamldepth
from generator.yamlio import positions as yamlpos
from generator.yamlio import read as yamlread

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((REPO / "clusters").glob("*/cluster.yaml")) + sorted(REPO.glob(".gpu-gitops.yaml"))

DOCUMENTS = [
    "a: 1\nb:\n  c: [x, 'y', \"z\"]\n  d: |\n    text\n  e: >-\n    folded\n",
    "# comment\nlist:\n- name: a\n  value: 1\n-   name: b   # trailing\n    nested: {k: v, l: [1, 2]}\n",
    "k: \"quoted: value\"\nnull_value: ~\nyes: no\nquantity: 500m\nversion: '1.32'\n",
    "top:\n  - - a\n    - b\n  - []\n  - {}\n",
    "",
]


def _both(text: str):
    fast = yamlpos._fast_load(text, "x.yaml")
    slow = yamlpos._ruamel_load(text, "x.yaml")
    return fast, slow


@pytest.mark.parametrize(
    "text",
    [p.read_text(encoding="utf-8") for p in EXAMPLES] + DOCUMENTS,
    ids=[p.parent.name for p in EXAMPLES] + [f"doc{i}" for i in range(len(DOCUMENTS))],
)
def test_fast_reader_matches_the_round_trip_loader(text):
    fast, slow = _both(text)
    assert fast.data == slow.data
    assert fast.positions == slow.positions


def test_an_empty_value_is_located_on_its_key_line():
    """ruamel places an empty value at the start of the next line; libyaml, and so the fast
    reader, right after its key, where an error about it belongs."""
    fast, slow = _both("a: 1\nempty:\nb: 2\n")
    assert fast.value_position(("empty",)) == (2, 7)
    assert slow.value_position(("empty",)) == (3, 1)


@pytest.mark.parametrize(
    "text",
    [
        "a: &x 1\nb: *x\n",  # anchors and aliases
        "a: !!str 1\n",  # tags
        "a: 1.5\n",  # floats
        "a: 2024-01-02\n",  # timestamps
        "a: 1\na: 2\n",  # duplicate keys
        "? [a]\n: 1\n",  # complex keys
        "1: one\n",  # non-string keys
        "a: 1\n---\nb: 2\n",  # two documents
    ],
)
def test_what_the_fast_reader_does_not_model_goes_to_the_round_trip_loader(text):
    assert yamlpos._fast_load(text, "x.yaml") is None  # handed over


def test_positions_point_at_keys_items_and_values():
    doc = yamlpos.load_text("a:\n  b: [1, 2]\n  c:\n  - x: 1\n", "x.yaml")
    assert doc.position(("a", "b")) == (2, 3)
    assert doc.value_position(("a", "b")) == (2, 6)
    assert doc.position(("a", "b", 1)) == (2, 10)
    assert doc.position(("a", "c", 0, "x")) == (4, 5)
    assert doc.position(("a", "missing", "deeper")) == (1, 1)
    assert doc.position(("a", "c", 5)) == (3, 3)


DEEP_FLOW = "[" * 1000 + "x" + "]" * 1000


@pytest.mark.parametrize(
    "before",
    [
        "a: [b:c]\n",  # a flow plain scalar with ':' (YAML 1.2): libyaml stops here, ruamel reads on
        "a: {b:c}\n",
        ": 1\n",  # an empty key
        "a: b\u2028c\n",  # a line separator inside a scalar
        "a: 1\n\ufeffb: 2\n",  # a byte order mark inside the stream
    ],
)
def test_deep_flow_nesting_is_refused_before_the_round_trip_loader_reads_it(before):
    """When libyaml stops early, the nesting that follows is still bounded (and located)
    before ruamel's scanner, which takes seconds a thousand levels, sees it."""
    text = before + "deep: " + DEEP_FLOW + "\n"
    with pytest.raises(yamlpos.InputError) as caught:
        yamlpos.load_text(text, "x.yaml")
    line = text.count("\n")
    # the root mapping is the first level: the bracket that passes the bound is the 64th, on
    # every path (the compiled reader's count, libyaml's events, the flow scan and ruamel's)
    col = len("deep: ") + yamlread.INPUTS.depth
    assert str(caught.value).startswith(f"x.yaml:{line}:{col}: error: YAML nesting is deeper than 64 levels")


@pytest.mark.parametrize(
    "text",
    [
        "a: x" + "[" * 100 + "\n",  # brackets inside a plain scalar
        "a: '" + "[" * 100 + "'\n",
        'a: "' + "{" * 100 + '\\""\n',
        "a: 1 # " + "[" * 100 + "\n",
        "a: |\n  " + "[" * 100 + "\n  " + "{" * 100 + "\nb: 1\n",
        "- >-\n    " + "[" * 100 + "\n- x\n",
        "a: [" + ", ".join(["'[['"] * 50) + "]\n",
        "--- " + "[" * 64 + "]" * 64 + "\n",
    ],
)
def test_the_flow_depth_scan_counts_only_collections(text):
    assert yamldepth.flow_too_deep(text, yamlread.INPUTS.depth) is None


def test_the_flow_depth_scan_finds_the_first_collection_too_deep():
    assert yamldepth.flow_too_deep("--- " + "[" * 65, 64) == 4 + 64
    assert yamldepth.flow_too_deep("a: {b: [" + "{c: " * 63 + "x" + "}" * 63 + "]}\n", 64) == 8 + 62 * 4


@pytest.mark.parametrize("value", ["9" * 5001, "!!int '" + "9" * 5001 + "'", "-" + "1" * 5001])
def test_a_huge_integer_read_by_the_round_trip_loader_is_located_and_named(value):
    text = "a: 1.5\nb:\n  c: [1, " + value + "]\n"  # the float sends the document to ruamel
    with pytest.raises(yamlpos.InputError) as caught:
        yamlpos.load_text(text, "x.yaml")
    assert str(caught.value) == (
        "x.yaml:3:10: error: integer with 5001 digits is too large\n  hint: quote it if it is meant as a string"
    )


@pytest.mark.parametrize(
    "key, kind",
    [
        ("{a: 1}", "mapping"),
        ("[x, y]", "sequence"),
        ("{a: {b: 1}}", "mapping"),  # nested: the loader cannot hash it, before positions are read
        ("[x, [y]]", "sequence"),
    ],
)
def test_a_complex_key_is_refused_where_it_is(key, kind):
    with pytest.raises(yamlpos.InputError) as caught:
        yamlpos.load_text(f"a: 1\nb:\n  ? {key}\n  : c\n", "x.yaml")
    assert str(caught.value).startswith(f"x.yaml:3:5: error: a {kind} is used as a key; keys must be strings\n  hint: ")


@pytest.mark.parametrize(
    "text, where, message",
    [
        ("a: !!int '12x'\n", "1:4", "YAML value '12x' does not match its tag !!int: "),
        ("a: 1\nb: [1, !!float abc]\n", "2:8", "YAML value 'abc' does not match its tag !!float: "),
        ("%YAML 1.3\n---\na: 1\n", "1:1", "YAML version '1.3' is not supported"),
    ],
)
def test_values_the_round_trip_loader_cannot_build_are_located(text, where, message):
    with pytest.raises(yamlpos.InputError) as caught:
        yamlpos.load_text(text, "x.yaml")
    assert str(caught.value).startswith(f"x.yaml:{where}: error: {message}"), caught.value
    assert "\n  hint: " in str(caught.value)


def test_deep_block_nesting_after_what_libyaml_refuses_is_located():
    """libyaml stops at the empty key; ruamel reads on and runs out of stack in the nesting."""
    text = ": 1\ndeep:\n" + "".join(f"{'  ' * i}  a:\n" for i in range(400)) + "  " * 401 + "b: 1\n"
    with pytest.raises(yamlpos.InputError) as caught:
        yamlpos.load_text(text, "x.yaml")
    assert str(caught.value).startswith("x.yaml:66:129: error: YAML nesting is deeper than 64 levels\n  hint: ")


@pytest.mark.parametrize("text, where", [("a: *x\n", "1:4"), ("a:\n  b: *x\nc: &x 1\n", "2:6")])
def test_an_alias_before_its_anchor_is_a_located_error(text, where):
    with pytest.raises(yamlpos.InputError) as caught:
        yamlpos.load_text(text, "x.yaml")
    assert str(caught.value).startswith(f"x.yaml:{where}: error: "), caught.value


def test_deep_block_nesting_is_refused_however_deep_the_stack_allows():
    """Whether the round-trip loader runs out of stack depends on the caller's stack: the bound
    must not."""
    import sys

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(100_000)
    try:
        text = ": 1\ndeep:\n" + "".join(f"{'  ' * i}  a:\n" for i in range(400)) + "  " * 401 + "b: 1\n"
        with pytest.raises(yamlpos.InputError) as caught:
            yamlpos.load_text(text, "x.yaml")
    finally:
        sys.setrecursionlimit(limit)
    assert str(caught.value).startswith("x.yaml:66:129: error: YAML nesting is deeper than 64 levels")


def test_a_self_referring_alias_is_not_nesting_without_end():
    located = yamlpos.load_text("a: &x [1, 2]\nb: *x\n", "x.yaml")
    assert located.data == {"a": [1, 2], "b": [1, 2]}


def test_an_input_is_read_once_and_its_positions_only_when_asked(monkeypatch):
    """The one reader builds the data; the positions come from reading it again, only when an
    error (or anything else) asks where something is written."""
    located = record_position_reads(monkeypatch)
    doc = yamlpos.load_text("a:\n  b: [1, 2]\n", "x.yaml")
    assert doc.data == {"a": {"b": [1, 2]}} and located == []
    assert doc.position(("a", "b", 1)) == (2, 10) and doc.value_position(("a", "b")) == (2, 6)
    assert located and set(located) == {"a:\n  b: [1, 2]\n"}


@pytest.mark.parametrize(
    "text, path, where",
    [
        ("a: 1\nt: !!map {b: 1}\n", ("t", "b"), (2, 11)),
        ("a: !!seq [x]\n", ("a", 0), (1, 11)),
        ("m: {<<: {x: 1}}\n", ("m", "x"), (1, 10)),
        ("b: &b {x: 1, y: 2}\nm: {<<: *b, y: 3}\n", ("m", "x"), (1, 8)),  # a merged key the mapping also sets
        ("b: &b {x: 1}\nc: &c {<<: *b, z: 1}\nm:\n  <<: [*c]\n  w: 2\n", ("m", "x"), (1, 8)),
    ],
)
def test_tags_and_merge_keys_have_positions(text, path, where):
    """Merged keys are where the mapping they come from writes them."""
    doc = yamlpos.load_text(text, "x.yaml")
    assert doc.position(path) == where
    assert doc.positions  # every path has one


def test_a_merge_key_overriding_a_merged_key_keeps_the_mapping_own_value():
    doc = yamlpos.load_text("b: &b {x: 1, y: 2}\nm: {<<: *b, y: 3}\n", "x.yaml")
    assert doc.data["m"] == {"x": 1, "y": 3} and doc.position(("m", "y")) == (2, 13)


@pytest.mark.parametrize(
    "text, where, tag",
    [
        ("a: 1\nt: !!omap [b: 1]\n", "2:4", "!!omap"),
        ("provider: !!omap aks\n", "1:11", "!!omap"),
        ("a: !!python/object/apply:os.system [ls]\n", "1:4", "!!python/object/apply:os.system"),
        ("a:\n  b: !!set {x, y}\n", "2:6", "!!set"),
        ("a: !!binary aGk=\n", "1:4", "!!binary"),
        ("a: !custom x\n", "1:4", "!custom"),
    ],
)
def test_a_tag_that_builds_no_json_value_is_refused_where_it_is(text, where, tag):
    with pytest.raises(yamlpos.InputError) as caught:
        yamlpos.load_text(text, "x.yaml")
    assert str(caught.value).startswith(f"x.yaml:{where}: error: YAML tag {tag} is not supported in inputs\n  hint: ")


def _keys(count: int, first: str = "") -> str:
    return first + "".join(f"k{i:06d}: {i}\n" for i in range(count))


@pytest.mark.parametrize("last", ["", "k000001: dup\n", "x: [\n", "y: !!str z\n"])
def test_an_input_past_the_value_bound_is_refused_before_the_round_trip_loader_reads_it(monkeypatch, last):
    """50,000 keys in 780 KB: ruamel's round-trip loader, which words a duplicate key, a
    syntax error or reads a tag, would scan them in Python for half a minute; the compiled
    reader builds what it can (the first case) in milliseconds, and the bound is named where
    it is passed all the same."""
    monkeypatch.setattr(yamlpos, "_ruamel_load", lambda *_: pytest.fail("the round-trip loader ran"))
    with pytest.raises(InputError) as raised:
        yamlpos.load_text(_keys(50_000) + last, "in")
    bound = yamlread.INPUTS.values
    assert f"more than {bound} values" in str(raised.value)
    # the first node past the bound (the root mapping, then a key and a value per line): the
    # value on line bound / 2
    where = raised.value.diagnostic.location
    assert (where.line, where.col) == (bound // 2, 10)


def test_the_value_bound_counts_what_the_bundled_libyaml_stops_before():
    """libyaml 0.1.7 stops at `{u: http://h:1}`; ruamel would read the 50,000 keys after it."""
    with pytest.raises(InputError, match="more than 3000 values"):
        yamlpos.load_text(_keys(50_000, "a: {u: http://h:1}\n"), "in")


@pytest.mark.parametrize(
    "text",
    [
        "a: 1\n",
        "a: {b: [1, 2, {c: }], d: []}\ne: {}\nf:\n- - x\n  - y\n- ''\n",
        "- 1\n- [a, {b: c}]\n",
        "plain",
        "---\n",
        "? a\n: b\n",
        "{a, b: }\n",
    ],
)
def test_the_nodes_the_reader_built_are_counted_as_libyamls_events_count_them(text):
    from ruamel.yaml.events import AliasEvent, MappingStartEvent, ScalarEvent, SequenceStartEvent

    built = yamlpos._fast_load(text, "in")
    assert built is not None  # built by the compiled reader, not handed over
    from ruamel.yaml import YAML

    kinds = (ScalarEvent, MappingStartEvent, SequenceStartEvent, AliasEvent)
    events = [e for e in YAML().parse(text) if isinstance(e, kinds)]
    assert yamlpos._written_nodes(built.data) == len(events)


def test_an_input_the_reader_built_under_the_bound_is_not_counted_again_from_its_events(monkeypatch):
    """Counting libyaml's events through ruamel's parser was four fifths of loading a cluster's file."""
    monkeypatch.setattr(yamlpos, "_check_values", lambda *_: pytest.fail("the events were counted"))
    for path in (REPO / "clusters").rglob("*.yaml"):
        yamlpos.load_text(path.read_text(encoding="utf-8"), "in")


def test_a_built_input_past_the_value_bound_is_refused_where_the_bound_is_passed():
    """A flow list the compiled reader builds: counted from its values, located by libyaml's events."""
    text = "a: 1\nb: [" + ", ".join(["x"] * yamlread.INPUTS.values) + "]\n"
    with pytest.raises(InputError, match=f"more than {yamlread.INPUTS.values} values") as raised:
        yamlpos.load_text(text, "in")
    assert raised.value.diagnostic.location.line == 2


def test_inputs_up_to_the_value_bound_are_read_by_any_loader():
    keys = yamlread.INPUTS.values // 2 - 2  # with the root and `a`: just under the bound
    assert yamlpos.load_text(_keys(keys, "a: !!str x\n"), "in").data["a"] == "x"  # the round-trip loader
    examples = [p.read_text(encoding="utf-8") for p in (REPO / "clusters").rglob("*.yaml")]
    assert max(len(yamlpos.load_text(t, "in").positions) for t in examples) * 5 < yamlread.INPUTS.values
