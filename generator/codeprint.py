"""The package's own modules by name, size and modification time: what an answer kept between
runs of this code depends on (lint's results, the checks render keeps, a validated config file).
An edited module, or an upgraded package whatever its version number, is another fingerprint.

Listed once a process (367 ``stat`` calls) by ``paths.walk`` (``__pycache__`` left out),
without importing the linter's modules: ``check`` and ``render`` ask for it too.

May import: generator.paths.
"""

from __future__ import annotations

import functools
import os

import generator
from generator.paths import walk


@functools.cache
def fingerprint() -> tuple[tuple[str, int, int], ...]:
    """``(path relative to the package, size, modification time in ns)`` of each ``.py`` file."""
    found = []
    for entry, relative in walk(os.path.dirname(generator.__file__), _code_folder, _unlisted):
        if entry.name.endswith(".py"):
            info = entry.stat()
            found.append((relative, info.st_size, info.st_mtime_ns))
    return tuple(found)


def _code_folder(name: str) -> bool:
    return name != "__pycache__"


def _unlisted(_exc: OSError) -> None:
    """A package folder that cannot be listed holds no module the run can import."""
