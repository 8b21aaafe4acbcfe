"""Kubernetes resource quantities (``500m``, ``2Gi``, ``1e3``): as the API server's validation
compares them (``nanos``), and as exact fractions for arithmetic and display (``parse``).

The API server compares quantities by value, not by spelling (``1Gi`` equals ``1024Mi``),
so the rules that mirror its checks need the same arithmetic. ``ParseQuantity``
(k8s.io/apimachinery pkg/api/resource/quantity.go) keeps a value as a whole number of nano-units,
a finer one rounded up away from zero ("if you want some resources, you should get some"), and
its validation compares those (``Cmp``): ``nanos`` is that number, in ``int`` arithmetic, for the
lint rules that mirror a check. ``parse`` is the exact value as a ``Fraction``, for sums, quotas
and the amounts shown in messages (``fractions`` imports ``decimal``: ~2.5 ms a run that never needs
it, ``bench/bench_import_cost.py fractions``, so it is imported on first use). Infinities, NaN and exponents past any real quantity are
not quantities (None) to either: the API server rejects them, and ``Fraction(10) ** 10**9``
would never end.
"""

from __future__ import annotations

import functools
import math

TYPE_CHECKING = False  # typing's flag without importing typing (PEP 781; mypy reads it as True)
if TYPE_CHECKING:
    from fractions import Fraction


_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
# the decimal suffixes as powers of ten
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
# the API server's quantities fit in an int64 scaled by 10^-9; anything far outside is not one
MAX_EXPONENT = 64
NANO = 10**9  # nano-units in one unit


def nanos(value: object) -> int | None:
    """The quantity as the API server holds it once parsed: a whole number of nano-units (10^-9),
    a finer value rounded up away from zero; None when it is not a quantity (``parse``'s None)."""
    spelt = _spelling(value)
    if spelt is None or isinstance(spelt, int):
        return spelt if spelt is None else spelt * NANO
    return _nanos_text(spelt)


def _spelling(value: object) -> int | str | None:
    """A quantity's value as written (an integer, or a string to parse; a float as its shortest
    repr), None for what is no quantity (a boolean, a non-finite float, any other type)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | str):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return str(value)
    return None


@functools.lru_cache(maxsize=4096)
def _nanos_text(value: str) -> int | None:
    """``nanos`` of a string, kept: the same few spellings recur in every container of a tree."""
    parts = _parts(value)
    if parts is None:
        return None
    digits, exponent, factor = parts
    exponent += 9  # in nano-units
    if exponent >= 0:
        return digits * factor * 10**exponent
    whole, rest = divmod(abs(digits) * factor, 10**-exponent)
    whole += rest > 0  # rounded up, away from zero (inf.RoundUp)
    return whole if digits >= 0 else -whole


def _parts(value: str) -> tuple[int, int, int] | None:
    """A quantity's value as ``digits * 10**exponent * factor`` (``factor`` a binary suffix's
    power of two), or None when it is not a quantity."""
    split = _split(value.strip())
    if split is None:
        return None
    number, suffix = split
    whole, _, fraction = number.partition(".")
    digits = int(whole.lstrip("+-") + fraction or "0")
    if number.startswith("-"):
        digits = -digits
    if suffix in _BINARY:
        return digits, -len(fraction), _BINARY[suffix]
    if suffix in _DECIMAL:
        return digits, _DECIMAL[suffix] - len(fraction), 1
    exponent = suffix[1:].lstrip("+-").lstrip("0")
    if len(exponent) > 3 or int(exponent or 0) > MAX_EXPONENT:
        return None
    return digits, int(suffix[1:]) - len(fraction), 1


def _split(text: str) -> tuple[str, str] | None:
    """``(number, suffix)`` of ``[+-]?(\\d+\\.?\\d*|\\.\\d+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\\d+)?``,
    the whole text (``\\d``: Unicode's decimal digits, as ``re`` reads them and ``int`` takes them),
    None when it does not match. Read by hand: ``re`` compiles the pattern in Python, ~0.3 ms of
    a lint after an edit (``tests/kube/test_quantity.py`` holds the two readings equal)."""
    if text[-2:] in _BINARY:
        number, suffix = text[:-2], text[-2:]
    elif text and text[-1] in _DECIMAL:
        number, suffix = text[:-1], text[-1]
    else:
        at = max(text.rfind("e"), text.rfind("E"))
        power = text[at + 1 :]
        power = power[1:] if power[:1] in ("+", "-") else power
        number, suffix = (text[:at], text[at:]) if at >= 0 and power.isdecimal() else (text, "")
    body = number[1:] if number[:1] in ("+", "-") else number
    whole, dot, fraction = body.partition(".")
    if whole:  # \d+\.?\d*
        valid = whole.isdecimal() and (not fraction or fraction.isdecimal())
    else:  # \.\d+
        valid = bool(dot) and fraction.isdecimal()
    return (number, suffix) if valid else None


def parse(value: object) -> Fraction | None:
    """The exact value of a quantity, or None when it is not one (the schema reports that)."""
    from fractions import Fraction

    spelt = _spelling(value)
    if spelt is None or isinstance(spelt, int):
        return spelt if spelt is None else Fraction(spelt)
    return _parse_text(spelt)


@functools.lru_cache(maxsize=4096)
def _parse_text(value: str) -> Fraction | None:
    """``parse`` of a string, kept: the same few spellings (``1``, ``500m``, ``2Gi``) recur in
    every container of a tree, and a ``Fraction`` is immutable."""
    from fractions import Fraction

    parts = _parts(value)
    if parts is None:
        return None
    digits, exponent, factor = parts
    return Fraction(digits * factor) * Fraction(10) ** exponent


def show_binary(value: Fraction | int) -> str:
    """Bytes in the largest binary unit that keeps them whole (``64Gi``, ``3072Mi``)."""
    for unit, factor in (("Ti", 2**40), ("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10)):
        if value and value % factor == 0:
            return f"{value // factor}{unit}"
    return str(value)
