"""Canonical YAML: stable order, safe for YAML 1.1 readers, and a faithful round trip."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from generator.emit import to_yaml

_SAFE = YAML(typ="safe", pure=True)


def _load_yaml11(text: str):
    """Read as kubectl's YAML 1.1 decoder would (on/off/yes/no are booleans there)."""
    yaml = YAML(typ="safe", pure=True)
    return yaml.load("%YAML 1.1\n---\n" + text)


def test_kubernetes_key_order_then_sorted():
    obj = {"zeta": 1, "spec": {"b": 1, "a": 2}, "data": {}, "metadata": {"labels": {}, "namespace": "ns", "name": "x"},
           "kind": "K", "apiVersion": "v1"}
    lines = [line for line in to_yaml(obj).splitlines() if not line.startswith(" ")]
    assert lines == ["apiVersion: v1", "kind: K", "metadata:", "spec:", "data: {}", "zeta: 1"]
    meta = to_yaml(obj).split("metadata:\n")[1].splitlines()[:3]
    assert meta == ["  name: x", "  namespace: ns", "  labels: {}"]
    assert to_yaml(obj).split("spec:\n")[1].splitlines()[:2] == ["  a: 2", "  b: 1"]


def test_multiline_strings_are_literal_blocks():
    text = to_yaml({"apiVersion": "v1", "kind": "ConfigMap", "data": {"run.sh": "#!/bin/sh\necho hi\n"}})
    assert "run.sh: |\n    #!/bin/sh\n    echo hi\n" in text


@given(st.sampled_from(["on", "off", "yes", "no", "y", "n", "true", "False", "null", "~", "0x1f", "0777", "1:30",
                        "1e3", "2024-01-02", ".inf", "123", "0.5", "+1", "-7", ""]))
def test_strings_a_yaml11_reader_would_misread_are_quoted(value):
    text = to_yaml({"apiVersion": "v1", "kind": "ConfigMap", "data": {"k": value}})
    assert _load_yaml11(text)["data"]["k"] == value


_scalars = st.one_of(st.text(max_size=30), st.integers(min_value=-(2**53), max_value=2**53), st.booleans(), st.none(),
                     st.floats(allow_nan=False, allow_infinity=False, width=32))
_data = st.recursive(_scalars, lambda children: st.one_of(st.lists(children, max_size=4),
                                                          st.dictionaries(st.text(min_size=1, max_size=10), children, max_size=4)),
                     max_leaves=20)


@settings(max_examples=200, deadline=None)
@given(_data)
def test_round_trip_is_exact_and_deterministic(value):
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "data": {"v": value}}
    text = to_yaml(obj)
    assert text == to_yaml(obj)
    assert text.endswith("\n") and "\r" not in text
    assert _SAFE.load(text) == obj
    assert _load_yaml11(text) == obj
