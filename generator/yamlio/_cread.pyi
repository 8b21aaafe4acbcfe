"""The YAML reader's compiled path (generator/yamlio/_cread.c)."""

from collections.abc import Callable, Sequence
from typing import Any

class Slow(Exception): ...

class Reader:
    def __init__(
        self, hinted: str, resolve: Callable[[str], Any], plain_key: Callable[[str], str], max_depth: int
    ) -> None: ...
    def load(self, text: str) -> Any: ...
    def locate(self, text: str, node: Callable[[int, int, str | None, str | None], Any]) -> tuple[Any, Any]: ...
    def find(
        self,
        text: str,
        queries: Sequence[tuple[tuple[str | int, ...] | list[str | int], bool]],
        node: Callable[[int, int, str | None, str | None], Any],
        early: bool = False,
    ) -> list[tuple[Any, int, int]]: ...

def libyaml_version() -> str: ...
