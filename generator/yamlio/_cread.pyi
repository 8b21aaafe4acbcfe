"""The YAML reader's compiled path (generator/yamlio/_cread.c)."""

from collections.abc import Callable
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
        path: tuple[str | int, ...] | list[str | int],
        at_value: bool,
        node: Callable[[int, int, str | None, str | None], Any],
    ) -> tuple[Any, int, int]: ...

def libyaml_version() -> str: ...
