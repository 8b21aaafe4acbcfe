"""Files and folders this user may not read, for a suite that may run as root (whom permissions
do not stop): the calls a ``chmod 000`` would refuse raise EACCES, as they do for a user."""

from __future__ import annotations

import builtins
import errno
import io
import os
from pathlib import Path

# the calls that take a path and would be refused
_LISTING = ("scandir", "listdir")
_INSIDE = ("stat", "lstat", "open", "scandir", "listdir")


def deny(monkeypatch, *paths: Path) -> None:
    """Make ``paths`` unreadable: a file cannot be opened, a folder cannot be listed and nothing
    in it reached; their own metadata stays readable (``stat``), as after ``chmod 000``."""
    denied = [os.path.abspath(p) for p in paths]

    def refused(path, call: str) -> bool:
        if isinstance(path, int):
            return False
        where = os.path.abspath(os.fsdecode(os.fspath(path)))
        for p in denied:
            if where.startswith(p + os.sep) and call in _INSIDE:
                return True
            if where == p and (call in _LISTING or (call == "open" and not os.path.isdir(p)) or call == "opendir"):
                return True
        return False

    def guard(module, name: str, call: str) -> None:
        original = getattr(module, name)

        def guarded(path, *args, **kwargs):
            if refused(path, call):
                raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
            return original(path, *args, **kwargs)

        monkeypatch.setattr(module, name, guarded)

    for name in ("stat", "lstat", "scandir", "listdir", "open"):
        guard(os, name, name)
    guard(builtins, "open", "open")
    guard(io, "open", "open")
