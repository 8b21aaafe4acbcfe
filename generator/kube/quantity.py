"""Kubernetes resource quantities (``500m``, ``2Gi``, ``1e3``) as exact fractions.

The API server compares quantities by value, not by spelling (``1Gi`` equals ``1024Mi``),
so the rules that mirror its checks need the same arithmetic. Exact ``Fraction``s keep
``0.1`` and ``100m`` equal. Infinities, NaN and exponents past any real quantity are not
quantities (None): the API server rejects them, and ``Fraction(10) ** 10**9`` would never end.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

from generator import regex

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL: dict[str, Fraction | int] = {
    "n": Fraction(1, 10**9),
    "u": Fraction(1, 10**6),
    "m": Fraction(1, 1000),
    "": 1,
    "k": 10**3,
    "M": 10**6,
    "G": 10**9,
    "T": 10**12,
    "P": 10**15,
    "E": 10**18,
}
# the API server's quantities fit in an int64 scaled by 10^-9; anything far outside is not one
MAX_EXPONENT = 64
_QUANTITY = regex.compile(r"^([+-]?(?:\d+\.?\d*|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$")


def parse(value: object) -> Fraction | None:
    """The value of a quantity, or None when it is not one (the schema reports that)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        return Fraction(str(value)) if math.isfinite(value) else None
    if not isinstance(value, str):
        return None
    return _parse_text(value)


@functools.lru_cache(maxsize=4096)
def _parse_text(value: str) -> Fraction | None:
    """``parse`` of a string, kept: the same few spellings (``1``, ``500m``, ``2Gi``) recur in
    every container of a tree, and a ``Fraction`` is immutable."""
    match = _QUANTITY.match(value.strip())
    if not match:
        return None
    number, suffix = Fraction(match.group(1)), match.group(2) or ""
    if suffix in _BINARY:
        return number * _BINARY[suffix]
    if suffix in _DECIMAL:
        return number * _DECIMAL[suffix]
    exponent = suffix[1:].lstrip("+-").lstrip("0")
    if len(exponent) > 3 or int(exponent or 0) > MAX_EXPONENT:
        return None
    return number * Fraction(10) ** int(suffix[1:])


def show_binary(value: Fraction) -> str:
    """Bytes in the largest binary unit that keeps them whole (``64Gi``, ``3072Mi``)."""
    for unit, factor in (("Ti", 2**40), ("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10)):
        if value and value % factor == 0:
            return f"{value // factor}{unit}"
    return str(value)
