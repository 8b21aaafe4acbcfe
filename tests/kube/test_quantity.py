"""Quantities as the API server's validation compares them (``nanos``) and as exact values (``parse``)."""

from __future__ import annotations

import math
import re
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from generator.kube import quantity

SPELLINGS = [
    "0", "1", "-1", "+2", "007", "1.", ".5", "+.5", "-.5", "1.5", "0.1", "100m", "50m", "1m", "0.5m", "1n",
    "0.5n", "-0.5n", "0.0000000001", "1.0000000001", "1u", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "2Mi",
    "1.5Gi", "0.001Ki", "1Ti", "1Pi", "1Ei", "1e3", "1E3", "2e-3", "1e-9", "1e-10", "-1e-10", "1e+2", "1e064",
    "1e-64", " 2Gi ", "12345678901234567890.123456789012", "1e65", "1e-65", "1e0000", "Gi", "1Z", "1.2.3",
    "", "--1", "1 Gi", "1e", "m",
]  # fmt: skip


def _rounded_up(value: Fraction) -> int:
    """ParseQuantity's rounding to nano-units: up, away from zero (inf.RoundUp)."""
    scaled = abs(value) * quantity.NANO
    whole = math.ceil(scaled)
    return whole if value >= 0 else -whole


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_nanos_are_the_exact_value_rounded_up_to_nano_units(spelling):
    exact = quantity.parse(spelling)
    if exact is None:
        assert quantity.nanos(spelling) is None
    else:
        assert quantity.nanos(spelling) == _rounded_up(exact)


def test_a_finer_value_counts_as_one_nano_unit_as_the_api_server_keeps_it():
    """``0.5n`` is held as ``1n``: equal to a limit of ``1n``, as the API server compares them."""
    assert quantity.nanos("0.5n") == quantity.nanos("1n") == 1 and quantity.parse("0.5n") == Fraction(1, 2 * 10**9)
    assert quantity.nanos("-0.1n") == -1 and quantity.nanos("1Gi") == quantity.nanos("1024Mi") == 2**30 * 10**9


@pytest.mark.parametrize("value", [2, -3, 0, 1.5, 0.1, 1e-12, float("inf"), float("nan"), True, None, [1]])
def test_numbers_and_other_values_are_read_as_parse_reads_them(value):
    exact = quantity.parse(value)
    assert quantity.nanos(value) == (None if exact is None else _rounded_up(exact))


_PIECES = st.sampled_from(
    ["1", "0", "25", ".", "+", "-", "e", "E", "e-", "E+", "Ki", "Mi", "i", "m", "n", "k", "M", "٣", "²", " "]
)


@given(st.lists(_PIECES, max_size=8).map("".join))
def test_a_quantity_is_split_as_its_pattern_reads_it(text):
    """``_split`` reads by hand what ParseQuantity's grammar (as the pattern writes it) accepts."""
    pattern = r"([+-]?(?:\d+\.?\d*|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?"
    match = re.fullmatch(pattern, text)
    assert quantity._split(text) == ((match[1], match[2] or "") if match else None)
