"""Every file the tool writes outside ``rendered/`` (reports, migrated inputs, scaffolds, docs,
imported schemas, cache entries) is replaced whole: written to a temporary file in the same
folder, flushed to disk, then renamed over the target. A reader, a full disk or a kill at any
moment sees the previous file or the new one, never a truncated or an emptied one.

(``rendered/`` has its own, stronger scheme, ``tree.write``: a whole tree swapped at once.)

May import: nothing of generator.
"""

from __future__ import annotations

import os


def replace_file(path: str | os.PathLike[str], content: bytes | str, mode: int | None = None) -> None:
    """Write ``content`` (str: as UTF-8) to ``path`` atomically; raises OSError, leaving
    ``path`` as it was and no temporary file behind.

    ``mode``: the new file's permissions; by default the replaced file's, or, for a new file,
    what ``open`` would give it under the umask (0o666 minus the umask)."""
    data = content.encode("utf-8") if isinstance(content, str) else content
    if mode is None:
        try:
            mode = os.stat(path).st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o666 & ~umask()
    import tempfile  # here: with shutil, random, bz2 and lzma, it would load in every run that imports this module

    fd, temporary = tempfile.mkstemp(
        dir=os.path.dirname(os.path.abspath(path)), prefix=f".{os.path.basename(path)}.", suffix=".tmp"
    )
    try:
        try:
            os.fchmod(fd, mode)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def umask() -> int:
    """The process's umask (read by setting it, then putting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
