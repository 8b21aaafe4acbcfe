"""JSON text of plain data, byte for byte as ``json.dumps`` writes it, without importing ``json``.

Why: ``json`` imports ``re`` (and ``re`` imports ``enum``) for its decoder's and encoder's
patterns: 5.9 ms and 146 pages of a lint after an edit, which writes JSON (its report, the keys
of its caches) and reads none (``python bench/bench_import_cost.py --after collections,functools
json``). The strings are escaped by the C function ``json`` itself uses (``_json``, a module
of its own); the rest follows ``json.encoder``: ``ensure_ascii``, the default separators,
``allow_nan``, ``sort_keys`` and ``default`` as ``json.dumps`` takes them. A test holds the two
equal. Reading JSON is ``json``'s: a run that reads any imports it.

May import: nothing of generator.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's flag without importing typing (PEP 781; mypy reads it as True)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    def string(text: str) -> str: ...

else:
    try:
        from _json import encode_basestring_ascii as string  # json.encoder's own
    except ImportError:  # an interpreter without the accelerator
        from json.encoder import encode_basestring_ascii as string

__all__ = ["dumps", "string"]


def dumps(value: Any, *, sort_keys: bool = False, default: Callable[[Any], Any] | None = None) -> str:
    """``json.dumps(value, sort_keys=sort_keys, default=default)``."""
    parts: list[str] = []
    _write(value, parts, sort_keys, default)
    return "".join(parts)


def _write(value: Any, out: list[str], sort_keys: bool, default: Callable[[Any], Any] | None) -> None:
    if isinstance(value, str):
        out.append(string(value))
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        out.append(int.__repr__(value))
    elif isinstance(value, float):
        out.append(_float(value))
    elif isinstance(value, list | tuple):
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(", ")
            _write(item, out, sort_keys, default)
        out.append("]")
    elif isinstance(value, dict):
        out.append("{")
        items = sorted(value.items()) if sort_keys else value.items()
        for i, (key, item) in enumerate(items):
            if i:
                out.append(", ")
            out.append(string(_key(key)))
            out.append(": ")
            _write(item, out, sort_keys, default)
        out.append("}")
    elif default is not None:
        _write(default(value), out, sort_keys, default)
    else:
        raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _float(value: float) -> str:
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    return float.__repr__(value)


def _key(key: object) -> str:
    """A mapping key as ``json`` writes it: a string as it is, a number or constant as its text."""
    if isinstance(key, str):
        return key
    if key is True:
        return "true"
    if key is False:
        return "false"
    if key is None:
        return "null"
    if isinstance(key, int):
        return int.__repr__(key)
    if isinstance(key, float):
        return _float(key)
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")
