"""The terms every read path of the YAML reader speaks, below both of them: how plain scalars
resolve (``Resolution``), where a node is written (``Mark``), and the two ways a read stops
(``Fallback``: the document needs the full loader; ``TooDeep``: nesting past the bound).
``read`` (the compiled path and the facade) and ``events`` (the event path, which ``read``
imports only when a document needs it) both build on these, so neither imports the other's
module for them; ``read`` re-exports them as the reader's public names, with the two records
of its facade (``Handover``, ``Written``)."""

from __future__ import annotations

from collections.abc import Callable

from generator.record import Frozen

TYPE_CHECKING = False  # typing's flag without importing typing (PEP 781; mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any, NamedTuple
else:
    from generator.record import NamedTuple


class Fallback(Exception):
    """The document needs the full loader (raised inside the reader; ``build`` hands it over)."""


class Resolution(Frozen):
    """How plain (unquoted, untagged) scalars become values: the YAML version is the reader's
    one parameter. ``hinted`` holds the first characters a scalar that is not a string can start
    with (any other plain scalar is its text, unresolved); ``scalar`` resolves the others and
    ``key`` turns a plain map key into the key; both may raise ``Fallback``."""

    __slots__ = _fields = ("hinted", "scalar", "key")

    hinted: frozenset[str]
    scalar: Callable[[str], Any]
    key: Callable[[str], str]

    def __init__(self, hinted: frozenset[str], scalar: Callable[[str], Any], key: Callable[[str], str]):
        put = object.__setattr__
        put(self, "hinted", hinted)
        put(self, "scalar", scalar)
        put(self, "key", key)


class TooDeep(Exception):
    """A collection nested deeper than the reader was asked to allow; 0-based line and column."""

    def __init__(self, line: int, col: int):
        super().__init__(line, col)
        self.line, self.col = line, col


class Mark(NamedTuple):
    """A 0-based line and column, as libyaml's marks give them."""

    line: int
    column: int


class Handover(NamedTuple):
    """What ``build`` returns for a document the backends leave to the caller's full loader:
    ``why``, an anchor, a tag, a repeated key, ... (``Fallback``) or the parser's problem."""

    why: str


class Written(NamedTuple):
    """Where a node is written, in a position map built from something other than parser events
    (the compiled path, ruamel's round-trip data): it stands where ``locate``'s map holds an
    event, with a scalar's ``value`` (its text) and ``style`` (``""`` plain) where the map
    records them, as an event does."""

    start_mark: Mark
    value: str | None = None
    style: str | None = None
