"""A large JSON file of the installed schemas decoded once into the user cache, then read from there.

Why: the Kubernetes definitions every built-in kind's schema refers to (``_definitions.json``,
1.3 MB per version) took JSON's decoder 42 M instructions in every lint that checks a built-in
kind, a lint after an edit among them; ``marshal`` reads the same data in half that. A kind's
compiled check reaches a fraction of the definitions: ``load_members`` keeps each definition as
a dump of its own, so a lint decodes those its kinds reach and no others.

The copy is named by the file's path, size, modification and change times, inode and device,
and marshal's format: an edited, replaced or reinstalled file is another name, so a copy is only
ever read for the bytes it was made from. It is the file's data as JSON decodes it, before any
change a caller makes to its own copy. A copy is written whole (``replace.replace_file``) or not
at all; one that cannot be read, does not load or is of another type is decoded again from the
file; a cache that cannot be written only costs speed. Copies live in ``decoded/`` of the user
cache folder (``paths.cache_root``).

May import: generator.paths, generator.replace, generator.sha.
"""

from __future__ import annotations

import json
import marshal
import os
from pathlib import Path
from typing import Any

from generator.paths import cache_root
from generator.sha import sha256

FOLDER = "decoded"


def load(path: Path) -> Any:
    """``json.loads`` of the file's text (UTF-8), from the user cache when a copy of these bytes is there."""
    copy = _copy(path, None)
    data = _read(copy)
    if isinstance(data, dict):
        return data
    data = _decode(path)
    if isinstance(data, dict):
        _write(copy, data)
    return data


def load_members(path: Path, member: str) -> dict[str, bytes]:
    """The entries of the file's top-level object ``member`` (JSON's ``data[member]``), each as
    its own ``marshal`` dump, from the user cache when a copy of these bytes is there: a caller
    that needs a few of many entries (a kind's schema reaches a fraction of the definitions)
    decodes those alone. Empty when the file has no such object."""
    copy = _copy(path, member)
    found = _read(copy)
    if isinstance(found, dict) and all(isinstance(v, bytes) for v in found.values()):
        return found
    data = _decode(path)
    members = data.get(member) if isinstance(data, dict) else None
    dumps = {name: marshal.dumps(value) for name, value in members.items()} if isinstance(members, dict) else {}
    _write(copy, dumps)
    return dumps


def _copy(path: Path, member: str | None) -> Path:
    """The copy's name: the file's identity, marshal's format and the member kept (None: all)."""
    info = os.stat(path)
    key: list = [str(path), info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev, marshal.version]
    if member is not None:
        key.append(member)
    return cache_root() / FOLDER / f"{sha256(json.dumps(key).encode()).hexdigest()[:32]}.marshal"


def _read(copy: Path) -> object:
    """The copy's data, or None when it cannot be read or does not load."""
    try:
        with open(copy, "rb") as handle:
            return marshal.loads(handle.read())
    except (OSError, ValueError, EOFError, TypeError):
        return None


def _decode(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _write(copy: Path, data: Any) -> None:
    """Keep a copy; a cache that cannot be written only costs speed."""
    try:
        from generator.replace import replace_file

        copy.parent.mkdir(parents=True, exist_ok=True)
        replace_file(copy, marshal.dumps(data))
    except (OSError, ValueError):
        pass
