"""The chart cache: packages by the sha256 of their bytes, in the user cache folder
(``<cache>/charts/sha256/<hex>.tgz``, the folder ``schemas sync`` uses for its set).

Content-addressed, so one package serves every cluster and project that locks it, two
projects never clash, and a package is verified by its name each time it is read.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from generator.paths import cache_root


def folder() -> Path:
    return cache_root() / "charts" / "sha256"


def digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def read(hex_digest: str) -> bytes | None:
    """The package with this digest, or None when it is not cached (or its bytes no longer
    match its name: a damaged file counts as missing)."""
    try:
        data = (folder() / f"{hex_digest}.tgz").read_bytes()
    except OSError:
        return None
    return data if hashlib.sha256(data).hexdigest() == hex_digest else None


def add(data: bytes) -> Path:
    """Store a package under its digest (one rename: a reader never sees half a file)."""
    target = folder() / f"{hashlib.sha256(data).hexdigest()}.tgz"
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f"{target.name}.{os.getpid()}.part")
    partial.write_bytes(data)
    partial.replace(target)
    return target
