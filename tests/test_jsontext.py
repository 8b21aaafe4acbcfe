"""JSON text written without ``json``: the bytes ``json.dumps`` writes."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from generator import jsontext

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(alphabet=st.characters(codec="utf-8") | st.sampled_from(['"', "\\", "\n", "\x00", "é", "😀"]))
)
_KEYS = st.text(max_size=4) | st.integers() | st.booleans() | st.none() | st.floats(allow_nan=False)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.lists(inner, max_size=4).map(tuple)
        | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=20,
)


@given(_VALUES)
def test_plain_data_is_written_as_json_writes_it(value):
    assert jsontext.dumps(value) == json.dumps(value)
    assert jsontext.dumps(value, sort_keys=True) == json.dumps(value, sort_keys=True)


@given(st.dictionaries(_KEYS, _SCALARS, max_size=5))
def test_keys_of_every_kind_json_takes_are_written_as_it_writes_them(value):
    assert jsontext.dumps(value) == json.dumps(value)


def test_other_objects_go_through_default_or_are_refused_as_json_refuses_them():
    value = {"b": frozenset({3}), "a": [complex(1, 2)], "n": math.inf}
    assert jsontext.dumps(value, sort_keys=True, default=str) == json.dumps(value, sort_keys=True, default=str)
    with pytest.raises(TypeError, match="not JSON serializable"):
        jsontext.dumps({"x": object()})
    with pytest.raises(TypeError):
        jsontext.dumps({(1, 2): "tuple key"})
