"""The package's own modules by name, size and modification time: what an answer kept between
runs of this code depends on (lint's results, the checks render keeps, a validated config file).
An edited module, or an upgraded package whatever its version number, is another fingerprint.

Listed once a process (367 ``stat`` calls), with one ``scandir`` a folder, in the order
``os.walk`` visits them (parents first, names sorted, links to folders not followed,
``__pycache__`` left out), without importing the linter's modules: ``check`` and ``render``
ask for it too.

May import: nothing of generator.
"""

from __future__ import annotations

import functools
import os

import generator


@functools.cache
def fingerprint() -> tuple[tuple[str, int, int], ...]:
    """``(path relative to the package, size, modification time in ns)`` of each ``.py`` file."""
    found: list[tuple[str, int, int]] = []
    _listed(os.path.dirname(generator.__file__), "", found)
    return tuple(found)


def _listed(folder: str, relative: str, found: list[tuple[str, int, int]]) -> None:
    try:
        with os.scandir(folder) as listing:
            entries = sorted(listing, key=lambda entry: entry.name)
    except OSError:
        return  # a folder that cannot be listed holds no module the run can import
    folders = []
    for entry in entries:
        try:
            is_folder = entry.is_dir()
        except OSError:
            is_folder = False
        if not is_folder:
            if entry.name.endswith(".py"):
                info = entry.stat()
                found.append((relative + entry.name, info.st_size, info.st_mtime_ns))
        elif entry.name != "__pycache__" and not entry.is_symlink():
            folders.append(entry)
    for entry in folders:
        _listed(entry.path, f"{relative}{entry.name}/", found)
