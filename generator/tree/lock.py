"""One writer at a time per project: an exclusive ``flock`` on the ``rendered/`` folder itself.

Two renders of the same project would otherwise race on the same staging and ``.old``
folders. The second one says that it waits, and gives up with an error after ``timeout``
seconds. The lock is the kernel's, so it goes away with a killed process: there is never a
stale lock to delete by hand. Locking the folder rather than a lock file inside it leaves
nothing behind for git to see.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

from generator.errors import InputError

DEFAULT_TIMEOUT = 300.0
_POLL = 0.1


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


@contextlib.contextmanager
def project_lock(
    rendered: Path, shown: str, timeout: float = DEFAULT_TIMEOUT, say: Callable[[str], None] = _say
) -> Iterator[None]:
    """Hold the write lock of the project whose output folder is ``rendered`` (created if
    missing). ``shown`` names it in messages. A ``rendered`` that is a symlink is refused:
    writes through it would land outside the project."""
    import fcntl

    if rendered.is_symlink():
        raise InputError(
            "is a symlink; refusing to write through it",
            path=shown,
            hint="rendered/ must be a real folder inside the project; replace the link with a folder",
        )
    if rendered.exists() and not rendered.is_dir():
        raise InputError(
            "is not a folder", path=shown, hint="rendered/ holds the rendered clusters; move the file away"
        )
    from generator.tree.write import make_folder

    make_folder(rendered)  # 0755 whatever the umask, as the trees in it
    fd = os.open(rendered, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0))
    try:
        _acquire(fd, fcntl, shown, timeout, say)
        yield
    finally:
        os.close(fd)  # releases the lock


def _acquire(fd: int, fcntl: ModuleType, shown: str, timeout: float, say: Callable[[str], None]) -> None:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return
    except BlockingIOError:
        pass
    say(f"{shown}: waiting for another gpu-gitops render of this project to finish, at most {timeout:g} s")
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise InputError(
                    f"another gpu-gitops render of this project still holds the write lock after "
                    f"{timeout:g} s; nothing was written",
                    path=shown,
                    hint="let it finish and run again; renders of one project take turns",
                ) from None
            time.sleep(_POLL)
