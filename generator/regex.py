"""Regular expressions a module defines at import, compiled when first used.

Why: ``re`` compiles in Python, 50 to 900 µs a pattern; the package's modules define 74 at
import, and a lint after an edit imported 36 of them and used 20 (the YAML resolver's octal
and hexadecimal forms, the address grammars of rules whose fields the edited file lacked, ...):
4.1 M instructions of compiling for nothing (``bench/bench_edit_steps.py 5132479a 2d6ee658``). Every pattern compiled at import goes through ``compile`` here
(a test holds it).

A deferred pattern is the compiled one to its callers: the first lookup of an attribute
(``match``, ``sub``, ``pattern``, ...) compiles it (``re``'s own cache shares the compiled
pattern between lookups) and keeps the attribute on the instance, so every later lookup is a
plain instance attribute and calls cost what the compiled pattern's do.

May import: nothing of generator.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's flag without importing typing (PEP 781; mypy reads it as True)
if TYPE_CHECKING:
    import re


class _Deferred:
    """A pattern and its flags, compiled on the first attribute looked up (``re`` imported then:
    with ``enum``, 4.3 ms of a lint after an edit that uses no pattern, ``python
    bench/bench_import_cost.py --after collections,functools re``). Flags are given inline
    (``(?s)``), so a module that defines patterns needs no ``re`` either."""

    def __init__(self, pattern: str, flags: int):
        self._source = (pattern, flags)

    def __getattr__(self, name: str) -> object:
        import re

        value = getattr(re.compile(*self._source), name)
        setattr(self, name, value)
        return value

    def __repr__(self) -> str:
        import re

        return repr(re.compile(*self._source))


def compile(pattern: str, flags: int = 0) -> re.Pattern[str]:  # noqa: A001 (re's name, for a drop-in)
    """``re.compile``, deferred until the pattern is first used."""
    return _Deferred(pattern, flags)  # type: ignore[return-value]
