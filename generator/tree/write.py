"""Read, compare, diff and replace ``rendered/<cluster>/``, so that a reader or a crash only ever
sees the old tree or the new one.

The new tree is built in ``rendered/.tmp.<cluster>.<owner>`` and swapped in:

- on Linux with one ``renameat2(RENAME_EXCHANGE)``: the target is never missing;
- elsewhere with two renames (target → ``.old.<cluster>.<owner>``, staging → target): a
  crash between them leaves no target, so every reader (``current``) and the next render
  (``recover``) fall back to the ``.old`` tree.

``<owner>`` is ``<pid>-<process start time>``: recovery only touches leftovers whose process is
gone, and only while holding the project's write lock (``generator.tree.lock``), so it never
deletes a tree another render is still filling. Files are written 0644 and folders 0755
whatever the umask, so a re-render never mixes modes.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import Any, NoReturn

from generator.errors import InputError
from generator.record import Record

# difflib and shutil are imported where a diff is printed or a tree removed: a no-op check
# imports this module for its names only

FILE_MODE, DIR_MODE = 0o644, 0o755


class LeftoverError(InputError):
    """The new tree is in place, but the previous one could not be removed: ``changes`` were made."""

    def __init__(self, message: str, changes: Changes, **kwargs: Any):
        super().__init__(message, **kwargs)
        self.changes = changes


def _step(name: str) -> None:
    """A point between two writes; the crash-safety tests kill the process here. Does nothing."""


# --- owners of staging folders ---------------------------------------------------------------


def _start_time(pid: int) -> int:
    """The process's start time in clock ticks since boot (Linux), 0 where unknown: with the
    pid it names a process uniquely, even after the pid is reused."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return int(fh.read().rsplit(b")", 1)[1].split()[19])
    except (OSError, ValueError, IndexError):
        return 0


def owner_tag() -> str:
    pid = os.getpid()
    return f"{pid}-{_start_time(pid)}"


def _owner_alive(tag: str) -> bool:
    pid_text, _, start_text = tag.partition("-")
    if not (pid_text.isdigit() and start_text.isdigit()):
        return False  # not a name this module writes: an old-style or foreign leftover
    pid, start = int(pid_text), int(start_text)
    if pid == os.getpid():
        return False  # our own earlier, finished attempt
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # exists, owned by someone else
    return start == 0 or _start_time(pid) in (0, start)


def _scratch(rendered: Path, kind: str, cluster: str, tag: str) -> Path:
    # "." cannot occur in a cluster name, so ".old.<cluster>." never matches another cluster
    return rendered / f".{kind}.{cluster}.{tag}"


def _leftovers(rendered: Path, kind: str, cluster: str) -> list[Path]:
    """Staging (``tmp``) or previous (``old``) trees of ``cluster`` left by dead processes."""
    prefix = f".{kind}.{cluster}."
    try:
        names = sorted(n for n in os.listdir(rendered) if n.startswith(prefix))
    except FileNotFoundError:
        return []
    return [rendered / n for n in names if not _owner_alive(n[len(prefix) :])]


def _refuse_links(paths: list[Path], shown: str) -> None:
    for path in paths:
        if path.is_symlink() or not path.is_dir():
            raise InputError(
                f"{path.name} is not a folder gpu-gitops left behind (a symlink or a file); "
                "refusing to use or remove it",
                path=shown,
                hint=f"inspect and remove rendered/{path.name} by hand",
            )


# --- reading and comparing -------------------------------------------------------------------


# Stands in for a symlink or special file found in a rendered tree: never equal to what
# render produces, so check reports it and render replaces it, without following it.
NOT_A_REGULAR_FILE = b"\0not a regular file\0"


def read_tree(folder: Path, shown: str = "") -> dict[str, bytes]:
    """Every file under ``folder`` (relative POSIX path → bytes); {} if absent.

    Symlinks and special files are not followed or read (a link to /dev/zero must not hang
    check); they map to ``NOT_A_REGULAR_FILE``. A file or folder this user cannot read is an
    ``InputError`` naming it (``shown``: how ``folder`` is shown), never a tree that reads as
    stale or a traceback.
    """
    if not folder.is_dir() or folder.is_symlink():
        return {}
    found = {}
    top = str(folder)

    def refused(exc: OSError) -> NoReturn:
        raise exc

    try:
        for dirpath, dirs, files in os.walk(top, onerror=refused):
            prefix = os.path.relpath(dirpath, top).replace(os.sep, "/") + "/" if dirpath != top else ""
            for name in files + [d for d in dirs if os.path.islink(os.path.join(dirpath, d))]:
                path = os.path.join(dirpath, name)
                if stat.S_ISREG(os.lstat(path).st_mode):
                    with open(path, "rb") as fh:
                        found[prefix + name] = fh.read()
                else:
                    found[prefix + name] = NOT_A_REGULAR_FILE
    except OSError as exc:
        raise unreadable(exc, folder, shown) from None
    return found


def unreadable(exc: OSError, folder: Path, shown: str) -> InputError:
    """The error for a file or folder of a rendered tree that cannot be read."""
    where = os.fspath(exc.filename or folder)
    if shown:
        rel = os.path.relpath(where, folder)
        where = shown if rel == "." else f"{shown}/{rel.replace(os.sep, '/')}"
    kind = "folder" if os.path.isdir(exc.filename or folder) else "file"
    return InputError(
        f"cannot read {kind}: {exc.strerror or exc}",
        path=where,
        hint="check that this user may read the rendered tree (and list its folders)",
    )


class Changes(Record):
    """The paths a tree gains, changes and loses."""

    __slots__ = _fields = ("added", "changed", "removed")

    def __init__(self, added: list[str], changed: list[str], removed: list[str]):
        self.added, self.changed, self.removed = added, changed, removed

    @property
    def empty(self) -> bool:
        return not (self.added or self.changed or self.removed)

    def tally(self) -> Tally:
        """The counts alone: what a render reports of each tree it wrote, kept for a whole fleet."""
        return Tally(len(self.added), len(self.changed), len(self.removed))


class Tally(Record):
    """How many paths a tree gained, changed and lost."""

    __slots__ = _fields = ("added", "changed", "removed")

    def __init__(self, added: int, changed: int, removed: int):
        self.added, self.changed, self.removed = added, changed, removed

    @property
    def empty(self) -> bool:
        return not (self.added or self.changed or self.removed)


def compare(current: dict[str, bytes], desired: dict[str, bytes]) -> Changes:
    return Changes(
        added=sorted(set(desired) - set(current)),
        changed=sorted(p for p in desired if p in current and current[p] != desired[p]),
        removed=sorted(set(current) - set(desired)),
    )


def unified_diff(prefix: str, current: dict[str, bytes], desired: dict[str, bytes]) -> str:
    """A git-style diff from the current tree to the desired one."""
    import difflib

    out: list[str] = []
    changes = compare(current, desired)
    for rel in sorted(changes.added + changes.changed + changes.removed):
        old = current.get(rel, b"").decode(errors="replace").splitlines(keepends=True)
        new = desired.get(rel, b"").decode(errors="replace").splitlines(keepends=True)
        fromfile = f"a/{prefix}/{rel}" if rel in current else "/dev/null"
        tofile = f"b/{prefix}/{rel}" if rel in desired else "/dev/null"
        out.extend(difflib.unified_diff(old, new, fromfile, tofile))
    return "".join(out)


def is_owned(folder: Path, shown: str = "") -> bool:
    """A folder we may replace: absent, or a real folder with our marker on its kustomization."""
    if not folder.exists() and not folder.is_symlink():
        return True
    kustomization = folder / "kustomization.yaml"
    try:
        if (
            folder.is_symlink()
            or not folder.is_dir()
            or not stat.S_ISREG(kustomization.lstat().st_mode if kustomization.exists() else 0)
        ):
            return False
        with kustomization.open("rb") as fh:
            return fh.readline().startswith(b"# Rendered by gpu-gitops")
    except OSError as exc:
        raise unreadable(exc, folder, shown) from None


def require_owned(folder: Path, shown: str) -> None:
    """Refuse a ``rendered/<cluster>`` render may not replace (``is_owned``), saying what it is."""
    if is_owned(folder, shown):
        return
    if folder.is_symlink():
        raise InputError(
            "is a symlink; refusing to read or replace it",
            path=shown,
            hint="a rendered tree is a real folder render writes; remove the link, then render again",
        )
    raise InputError(
        "exists but was not written by gpu-gitops; refusing to replace it",
        path=shown,
        hint="move it away, or delete it if it is an old render",
    )


def make_folder(path: Path) -> None:
    """``path`` as a folder, made with ``DIR_MODE`` whatever the umask when it is missing."""
    if not path.is_dir():
        path.mkdir(parents=True, exist_ok=True)
        os.chmod(path, DIR_MODE)


def current(rendered: Path, cluster: str) -> Path:
    """The folder that holds the cluster's committed tree right now: ``rendered/<cluster>``, or,
    when a two-rename swap is between its renames (or died there), the ``.old`` tree it moved aside."""
    target = rendered / cluster
    if target.exists() or target.is_symlink():
        return target
    prefix = f".old.{cluster}."
    try:
        olds = [rendered / n for n in os.listdir(rendered) if n.startswith(prefix)]
    except OSError:
        return target
    olds = [p for p in olds if p.is_dir() and not p.is_symlink()]
    return max(olds, key=lambda p: p.stat().st_mtime_ns) if olds else target


# --- recovery --------------------------------------------------------------------------------


def recover(rendered: Path, cluster: str, shown: str) -> list[str]:
    """Put back a tree a crashed swap moved aside, and remove dead renders' leftovers.

    Call with the write lock held. Returns the leftovers removed (for the report). Symlinks
    are refused, never followed or renamed into place.
    """
    import shutil

    target = rendered / cluster
    olds = _leftovers(rendered, "old", cluster)
    temps = _leftovers(rendered, "tmp", cluster)
    _refuse_links(olds + temps, shown)
    olds.sort(key=lambda p: p.stat().st_mtime_ns)
    if olds and not target.exists() and not target.is_symlink():
        olds.pop().rename(target)
    removed = []
    for stale in olds + temps:
        try:
            shutil.rmtree(stale)
        except OSError as exc:
            raise InputError(
                f"cannot remove rendered/{stale.name}, left by an interrupted render: {exc.strerror or exc}",
                path=shown,
                hint="check its permissions and remove it by hand",
            ) from None
        removed.append(stale.name)
    return removed


# --- writing ---------------------------------------------------------------------------------


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically (Linux ``renameat2(RENAME_EXCHANGE)``); False where the OS,
    C library or file system has no such call, so the caller falls back to two renames."""
    import ctypes

    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2  # glibc ≥ 2.28
    except (AttributeError, OSError):
        return False
    at_fdcwd, rename_exchange = -100, 2  # <fcntl.h>, <linux/fs.h>
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def _mkdir(path: str | Path, exact: bool = False) -> None:
    """A folder with ``DIR_MODE``; ``exact``: inside a folder where ``_modes_exact`` holds, so
    that ``mkdir``'s own mode is already it."""
    os.mkdir(path, DIR_MODE)
    if not exact:
        os.chmod(path, DIR_MODE)


def _modes_exact(folder: Path) -> bool:
    """Whether what is made in ``folder`` gets exactly the mode ``mkdir`` and ``open`` ask for:
    the umask clears none of ``FILE_MODE`` and ``DIR_MODE``, and the folder has no default ACL
    (which would stand in for the umask) nor the set-group-ID bit (which new folders inherit).
    Then the ``chmod`` after each of a fleet's ~10,000 files and folders, a fifth of the kernel's
    time in writing them, can be left out."""
    from generator.replace import umask

    if umask() & (FILE_MODE | DIR_MODE) or os.lstat(folder).st_mode & stat.S_ISGID:
        return False
    try:
        os.getxattr(folder, "system.posix_acl_default", follow_symlinks=False)
    except OSError as exc:
        return exc.errno in (errno.ENODATA, errno.ENOTSUP, errno.EOPNOTSUPP)
    except AttributeError:  # no extended attributes on this OS: nor a way to ask
        return False
    return False


def _write_file(path: str, content: bytes, mtime_ns: int | None, exact: bool = False) -> None:
    """``content`` as a new file with ``FILE_MODE`` (``exact``: as ``_mkdir``'s)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), FILE_MODE)
    try:
        if not exact:
            os.fchmod(fd, FILE_MODE)
        view = memoryview(content)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)
    if mtime_ns is not None:
        os.utime(path, ns=(mtime_ns, mtime_ns))


def _modes_ok(folder: Path) -> bool:
    for dirpath, _dirs, files in os.walk(folder):
        if stat.S_IMODE(os.lstat(dirpath).st_mode) != DIR_MODE:
            return False
        if any(stat.S_IMODE(os.lstat(os.path.join(dirpath, f)).st_mode) != FILE_MODE for f in files):
            return False
    return True


_LINKED = -1  # _link_unchanged's answer when the file is linked, not to be written


def _link_unchanged(current: str, staged: str, content: bytes) -> int | None:
    """Hard-link an unchanged file of the current tree into the staging tree: no new inode
    and no bytes written, and the file keeps its mtime. Returns ``_LINKED``, else the mtime
    the written copy is to keep: the current file's when it has another mode or the file
    system has no hard links, None when its bytes changed since ``read_tree`` read them.

    The link is kept only if it is that same regular file with the right mode, never a
    symlink swapped in meanwhile, and it still holds ``content``: a hand edit made while the
    render ran must not pass for the rendered bytes.
    """
    before = os.lstat(current)
    if not stat.S_ISREG(before.st_mode) or stat.S_IMODE(before.st_mode) != FILE_MODE:
        return before.st_mtime_ns
    try:
        os.link(current, staged, follow_symlinks=False)
    except OSError:
        return before.st_mtime_ns
    after = os.lstat(staged)
    if (after.st_dev, after.st_ino) == (before.st_dev, before.st_ino) and stat.S_ISREG(after.st_mode):
        with open(staged, "rb") as fh:
            if fh.read() == content:
                return _LINKED
        os.unlink(staged)
        return None
    os.unlink(staged)
    return before.st_mtime_ns


def _stage(staging: Path, target: Path, files: dict[str, bytes], current_files: dict[str, bytes], shown: str) -> None:
    """Build the whole new tree in ``staging``: unchanged files are hard links to the current
    tree's (same bytes, mode and mtime), the others are written."""
    _mkdir(staging)
    exact = _modes_exact(staging)
    made = {""}  # folders made, relative to staging (string paths: this runs for every file of a fleet)
    top, current = f"{staging}/", f"{target}/"
    for rel, content in sorted(files.items()):
        parts = rel.split("/")
        if ".." in parts or rel.startswith("/"):
            raise InputError(f"refusing to write {rel!r}: it leaves the cluster's folder", path=shown)
        for depth in range(1, len(parts)):
            folder = "/".join(parts[:depth])
            if folder not in made:
                _mkdir(top + folder, exact)
                made.add(folder)
        if current_files.get(rel) != content:
            _write_file(top + rel, content, None, exact)
        else:
            mtime_ns = _link_unchanged(current + rel, top + rel, content)
            if mtime_ns != _LINKED:
                _write_file(top + rel, content, mtime_ns, exact)
        _step("file")


def write_tree(rendered: Path, cluster: str, files: dict[str, bytes], shown: str) -> tuple[Changes, list[str]]:
    """Make ``rendered/<cluster>`` exactly ``files`` (relative path → bytes); unchanged files keep bytes and mtime.

    Call with the write lock held (``generator.tree.lock``, which also refuses a ``rendered`` that
    is a symlink). Returns the changes and the leftovers of earlier
    interrupted renders that were removed. Raises ``LeftoverError`` when the new tree is in
    place but the old one could not be deleted, and ``OSError`` when nothing was swapped.
    """
    import shutil

    target = rendered / cluster
    removed = recover(rendered, cluster, shown)
    require_owned(target, shown)
    current_files = read_tree(target, shown)
    changes = compare(current_files, files)
    if changes.empty and (not target.exists() or _modes_ok(target)):
        return changes, removed
    make_folder(rendered)
    tag = owner_tag()
    staging = _scratch(rendered, "tmp", cluster, tag)
    try:
        _stage(staging, target, files, current_files, shown)
        _step("staged")
        if not target.exists():
            staging.rename(target)
            _step("swapped")
            return changes, removed
        if _exchange(staging, target):
            old = staging  # now holds the previous tree
        else:
            old = _scratch(rendered, "old", cluster, tag)
            target.rename(old)
            _step("moved-aside")
            staging.rename(target)
        _step("swapped")
    except BaseException:
        moved_aside = _scratch(rendered, "old", cluster, tag)
        if moved_aside.is_dir() and not target.exists():
            moved_aside.rename(target)
        if staging.is_dir() and not staging.is_symlink():
            shutil.rmtree(staging, ignore_errors=True)
        raise
    try:
        shutil.rmtree(old)
    except OSError as exc:
        raise LeftoverError(
            f"wrote the new tree, but could not remove the previous one, left in rendered/{old.name}: "
            f"{exc.strerror or exc}",
            changes,
            path=shown,
            hint="the next `gpu-gitops render` removes it (or reports why it cannot)",
        ) from None
    _step("cleaned")
    return changes, removed
