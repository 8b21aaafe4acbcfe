"""The JSON tables a Jsonnet library carries beside its code (``registry.json``,
``providers.json``, ``versions.json``): read once per version of the file, and a malformed one, in a customised
library, is an input error naming the file and the shape it should have."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable

from generator.errors import InputError

TYPE_CHECKING = False  # typing's flag without importing typing (PEP 781; mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any, TypeVar

    T = TypeVar("T")


def load(path: str | os.PathLike[str], build: Callable[[Any], T], what: str, shape: str) -> T:
    """``build`` applied to the file's JSON; cached until the file's size or mtime changes."""
    path = os.fspath(path)  # one cache entry a file, given as text or as a path
    try:
        stat = os.stat(path)
    except OSError as exc:
        raise _malformed(path, exc, what, shape) from None
    return _built(path, stat.st_mtime_ns, stat.st_size, build, what, shape)


@functools.cache
def _built(path: str, mtime_ns: int, size: int, build: Callable[[Any], T], what: str, shape: str) -> T:
    import json  # a table to read (a custom provider's, the library's): json's decoder, with re

    try:
        with open(path, encoding="utf-8") as handle:
            return build(json.loads(handle.read()))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise _malformed(path, exc, what, shape) from None


def _malformed(path: str, exc: Exception, what: str, shape: str) -> InputError:
    return InputError(f"malformed {what}: {exc}", path=path, hint=f"{os.path.basename(path)} holds {shape}")
