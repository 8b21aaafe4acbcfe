"""Find values that occur more than once, for the "used twice" input checks."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator


def repeats(indexed: Iterable[tuple[int, Hashable]]) -> Iterator[tuple[int, int, Hashable]]:
    """``(index, first index, value)`` for every ``(index, value)`` whose value came before."""
    first: dict[Hashable, int] = {}
    for index, value in indexed:
        if value in first:
            yield index, first[value], value
        else:
            first[value] = index
