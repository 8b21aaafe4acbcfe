"""Canonical YAML: stable order, safe for YAML 1.1 readers, and a faithful round trip."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from generator.yamlio import emit, read
from generator.yamlio.emit import to_yaml
from tests.fuzz.budget import fuzz_settings

_SAFE = YAML(typ="safe", pure=True)


def _load_yaml11(text: str):
    """Read as kubectl's YAML 1.1 decoder would (on/off/yes/no are booleans there)."""
    yaml = YAML(typ="safe", pure=True)
    return yaml.load("%YAML 1.1\n---\n" + text)


def test_kubernetes_key_order_then_sorted():
    obj = {
        "zeta": 1,
        "spec": {"b": 1, "a": 2},
        "data": {},
        "metadata": {"labels": {}, "namespace": "ns", "name": "x"},
        "kind": "K",
        "apiVersion": "v1",
    }
    lines = [line for line in to_yaml(obj).splitlines() if not line.startswith(" ")]
    assert lines == ["apiVersion: v1", "kind: K", "metadata:", "spec:", "data: {}", "zeta: 1"]
    meta = to_yaml(obj).split("metadata:\n")[1].splitlines()[:3]
    assert meta == ["  name: x", "  namespace: ns", "  labels: {}"]
    assert to_yaml(obj).split("spec:\n")[1].splitlines()[:2] == ["  a: 2", "  b: 1"]


def test_multiline_strings_are_literal_blocks():
    text = to_yaml({"apiVersion": "v1", "kind": "ConfigMap", "data": {"run.sh": "#!/bin/sh\necho hi\n"}})
    assert "run.sh: |\n    #!/bin/sh\n    echo hi\n" in text


@given(
    st.sampled_from(
        [
            "on",
            "off",
            "yes",
            "no",
            "y",
            "n",
            "true",
            "False",
            "null",
            "~",
            "0x1f",
            "0777",
            "1:30",
            "1e3",
            "2024-01-02",
            ".inf",
            "123",
            "0.5",
            "+1",
            "-7",
            "",
        ]
    )
)
def test_strings_a_yaml11_reader_would_misread_are_quoted(value):
    text = to_yaml({"apiVersion": "v1", "kind": "ConfigMap", "data": {"k": value}})
    assert _load_yaml11(text)["data"]["k"] == value


_scalars = st.one_of(
    st.text(max_size=30),
    st.integers(min_value=-(2**53), max_value=2**53),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
)
_data = st.recursive(
    _scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(st.text(min_size=1, max_size=10), children, max_size=4)
    ),
    max_leaves=20,
)


@fuzz_settings(default=100)
@given(_data)
def test_round_trip_is_exact_and_deterministic(value):
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "data": {"v": value}}
    text = to_yaml(obj)
    assert text == to_yaml(obj)
    assert text.endswith("\n") and "\r" not in text
    assert _SAFE.load(text) == obj
    assert _load_yaml11(text) == obj


# --- the fast emitter writes exactly the reference dumper's bytes --------------------------------

REPO = Path(__file__).resolve().parents[2]


def _committed_objects():
    """Every committed file's data, as lint reads it (the compiled reader: a pure-Python loader
    spends seventy times as long; a reader that misread a value would make the bytes differ)."""
    for path in sorted((REPO / "rendered").rglob("*.yaml")):
        yield path.relative_to(REPO).as_posix(), read.load(path.read_text(encoding="utf-8"), read.GO_YAML, 64)


def test_fast_emitter_writes_every_committed_file_itself_byte_for_byte():
    checked = 0
    for name, data in _committed_objects():
        ordered = emit._ordered(data, emit._TOP) if isinstance(data, dict) and "apiVersion" in data else data
        assert emit._fast(ordered) == emit._ruamel_dump(ordered), name
        committed = "".join(
            line for line in (REPO / name).read_text(encoding="utf-8").splitlines(True) if not line.startswith("# ")
        )
        assert committed == emit._fast(ordered), name
        if ordered is not data:  # an object: written in _ordered's order from any key order
            assert emit.to_yaml(_reversed_keys(data)) == committed, name
        checked += 1
    assert checked > 100


def _reversed_keys(value):
    if isinstance(value, dict):
        return {k: _reversed_keys(value[k]) for k in reversed(value)}
    if isinstance(value, list):
        return [_reversed_keys(v) for v in value]
    return value


# text that exercises libyaml's style choices: indicators, quotes, spaces, breaks, YAML 1.1 words
_tricky_text = st.text(
    alphabet=st.sampled_from(list("ab1 -:#'\\\"\n\t{}[],?&*!|>%@`.~=<+_/é\u00a0\u2028\x85\x07")), max_size=12
) | st.sampled_from(
    [
        "on",
        "yes",
        "n",
        "1.32",
        "0x1f",
        "2024-01-02",
        "<<",
        "=",
        "---",
        "...",
        "- x",
        "a: b",
        "a #b",
        "a\n",
        "a\n\n",
        "\na",
        " a\nb",
        "a \nb",
        "x" * 5000,
        "a b" * 2000,
        "null",
        "",
    ]
)
_tricky_scalars = st.one_of(
    _tricky_text, st.integers(), st.booleans(), st.none(), st.floats(allow_nan=False, allow_infinity=False)
)
_tricky_data = st.recursive(
    _tricky_scalars,
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(_tricky_text, children, max_size=4)),
    max_leaves=25,
)


@fuzz_settings(default=150)
@given(st.one_of(st.lists(_tricky_data, max_size=4), st.dictionaries(_tricky_text, _tricky_data, max_size=4)))
def test_fast_emitter_matches_the_reference_dumper(value):
    reference = emit._ruamel_dump(value)
    try:
        fast = emit._fast(value)
    except emit._Unmodelled:
        fast = reference  # left to the reference dumper by design
    assert fast == reference
    assert emit.to_yaml_plain(value) == reference


@pytest.mark.parametrize(
    "value",
    [
        {"a": "x\ny\n", "b": {"c": "x\n\ny"}},
        {"a": ["x\ny\n", ["p\nq", {"r": "s\nt\n"}]]},
        ["x\ny", {"k": ["a\n", "b\nc"]}],
        {"a": [{"b": [{"c": "deep\nblock\n"}]}]},
        {"k": "#!/bin/sh\necho 'hi' # comment\n  indented\n"},
    ],
)
def test_fast_emitter_writes_literal_blocks_at_every_depth(value):
    assert emit._fast(value) == emit._ruamel_dump(value)


@settings(max_examples=500, deadline=None)
@given(
    st.text(alphabet=st.sampled_from(list("0123456789.-+_:eExobB~ntrufalsTFNYy ")), max_size=8)
    | st.sampled_from(["1.32", "2001-12-14t21:59:43.10-05:00", "0o17", ".NaN", "1:30", "<<", "="])
)
def test_the_resolver_table_agrees_with_ruamels_resolver(text):
    from ruamel.yaml.nodes import ScalarNode

    tag = str(emit._ruamel().resolver.resolve(ScalarNode, text, (True, False)))
    assert emit._resolves_to_other_than_str(text) == (tag != "tag:yaml.org,2002:str")


@pytest.mark.parametrize(
    "value",
    [
        # a chart's config file with empty values: a space before a line break (Cilium's hubble-relay-config)
        {"data": {"config.yaml": "cluster-name: default\nretry-timeout: \nsort-buffer-len-max: \ngops: true\n"}},
        # a CRD's field description with a tab (Kueue's workloads CRD)
        {"description": "For example\n- Kubeflow: training.kubeflow.org/replica-index\n\tThis is limited to 31"},
        {"k": "tab\tin one line", "q": 'say "hi" \\ bye \n', "list": ["a \n b", "x\n y\tz", "2024-01-02\tx"]},
        {"k": "a\n b \n", "deep": [{"d": ["x \ny"]}]},
    ],
)
def test_fast_emitter_writes_double_quoted_strings_itself(value):
    assert emit._fast(value) == emit._ruamel_dump(value)
