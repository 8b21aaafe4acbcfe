"""A large JSON file of the installed schemas decoded once into the user cache, then read from there.

Why: the Kubernetes definitions every built-in kind's schema refers to (``_definitions.json``,
1.3 MB per version) took JSON's decoder 42 M instructions in every lint that checks a built-in
kind, a lint after an edit among them; ``marshal`` reads the same data in half that.

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
    info = os.stat(path)
    key = [str(path), info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev, marshal.version]
    copy = cache_root() / FOLDER / f"{sha256(json.dumps(key).encode()).hexdigest()[:32]}.marshal"
    try:
        with open(copy, "rb") as handle:
            data = marshal.loads(handle.read())
        if isinstance(data, dict):
            return data
    except (OSError, ValueError, EOFError, TypeError):
        pass
    data = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(data, dict):
        try:
            from generator.replace import replace_file

            copy.parent.mkdir(parents=True, exist_ok=True)
            replace_file(copy, marshal.dumps(data))
        except (OSError, ValueError):
            pass
    return data
