"""What this machine last saw of each file a freshness check hashes, so that a no-op ``check``
reads only the files that changed since, as git's index spares ``git status`` from reading
the work tree.

For each file: its size, modification and change times (ns), inode and device, and the sha256
of its bytes. A file whose five fields are all as recorded is not read again: its recorded hash
is its hash. Any write to a file gives it a new change time, which no program can set back
(``os.utime`` and ``touch -d`` set the modification time, and in doing so change the change
time too), and replacing a file gives it a new inode; so an edit that keeps the size and
restores the modification time, the one git misses (it compares the times to the second by
default), is still read.

A file whose modification or change time is less than ``SETTLED_NS`` before the moment the run
began is hashed but not recorded (git's rule for "racily clean" entries): a second write within
the same tick of the file system's clock would leave its times as they are. A file changed in
the last few seconds is therefore read by every run until it is older than that.

Where it is kept: in the user cache folder (``$GPU_GITOPS_CACHE_DIR``, else the platform's),
``stat/<sha256 of the project root's real path>``, never in the project: ``check`` writes
nothing but its caches, works on a read-only checkout, and a new clone (CI's) starts without a
record, so its first check reads every file. The record is written only when it changed, whole
(a temporary file renamed into place). A record that is missing, unreadable, truncated,
corrupted (a CRC-32 of its body is in its header), of another format version or of another
root is ignored and rebuilt: it only ever costs speed, never changes a verdict. Records not
rewritten for ``MAX_AGE_DAYS`` are removed when another is written. ``check --full`` renders
every cluster and reads no record.

What it cannot see, as git cannot: a file system that reports no change times or inodes (some
FUSE and network file systems give zeros; there an edit that keeps the size and restores the
modification time is missed), or a system clock set back between two runs by more than the
time since the file's last change.

May import: generator.paths, generator.replace (see generator.tree).
"""

from __future__ import annotations

import hashlib
import marshal
import os
import stat
import struct
import time
import zlib
from pathlib import Path

FORMAT = b"gpu-gitops stat cache 3 marshal %d\n" % marshal.version
SETTLED_NS = 3_000_000_000  # older changes than this are past any file system's clock tick
MAX_AGE_DAYS = 30
READ_SIZE = 1 << 20

STAT = struct.Struct("<qqqQQ")  # size, mtime_ns, ctime_ns, inode, device
ENTRY = struct.Struct("<qqqQQ32s")  # and the sha256


def file_sha256(path: str, dir_fd: int | None = None, follow: bool = False) -> str:
    """The sha256 of a file's bytes (a symlink refused unless ``follow``), read in 1 MiB chunks;
    a file shorter than that is read in one call (a regular file's read is short only at its end)."""
    flags = os.O_RDONLY | (0 if follow else getattr(os, "O_NOFOLLOW", 0))
    fd = os.open(path, flags, dir_fd=dir_fd)
    try:
        chunk = os.read(fd, READ_SIZE)
        digest = hashlib.sha256(chunk)
        while len(chunk) == READ_SIZE:
            chunk = os.read(fd, READ_SIZE)
            digest.update(chunk)
    finally:
        os.close(fd)
    return digest.hexdigest()


def now_ns() -> int:
    """The clock a run's start is read from (a test sets it forward to make files settled)."""
    return time.time_ns()


def record_path(root: Path) -> Path:
    from generator.paths import cache_root

    key = hashlib.sha256(os.fsencode(os.path.realpath(root))).hexdigest()
    return cache_root() / "stat" / key


class StatCache:
    """The record of one project root, read when first needed, written by ``save`` if this run
    saw anything it does not hold. Files are grouped by folder (relative to the root inside it,
    else absolute); a group this run looked at is replaced by what it saw, so deleted files
    leave the record. A group is kept as its names (one string) and one bytes string of
    ``ENTRY.size`` bytes per file: stat fields and sha256, so a record of tens of thousands of
    files loads in a few milliseconds. ``root`` None: nothing is read or written (a scratch
    copy of git's index)."""

    def __init__(self, root: Path | None):
        self.started = now_ns()
        self.header = FORMAT + os.fsencode(os.path.realpath(root)) + b"\n" if root is not None else b""
        self.path = record_path(root) if root is not None else None
        self._inside = os.path.join(os.path.abspath(root), "") if root is not None else ""
        self._old: dict[str, tuple[str, bytes]] | None = None
        self._groups: dict[str, str] = {}  # folder as looked up -> its group
        self._same: set[str] = set()  # groups seen whole and exactly as recorded
        self._seen: dict[str, dict[str, bytes]] = {}  # other groups looked at: name -> entry
        self._recorded: dict[str, dict[str, bytes]] = {}  # groups of the record, name -> entry, as needed

    def _group(self, folder: str) -> str:
        group = os.path.abspath(folder)
        if self._inside and group.startswith(self._inside):
            group = group[len(self._inside) :]
        self._groups[folder] = group
        return group

    def _load(self) -> dict[str, tuple[str, bytes]]:
        if self.path is None:
            return {}
        try:
            data = self.path.read_bytes()
        except OSError:
            return {}
        header = self.header
        body = data[len(header) + 9 :]
        if not data.startswith(header) or data[len(header) : len(header) + 9] != _checksum(body):
            return {}
        try:
            groups = marshal.loads(body)
        except (EOFError, ValueError, TypeError):
            return {}
        if not isinstance(groups, dict) or not all(_well_formed(g) for g in groups.values()):
            return {}
        return groups

    def _entries(self, group: str) -> dict[str, bytes]:
        """What this run records of ``group``, name by name (from the record where it was seen whole)."""
        seen = self._seen.get(group)
        if seen is None:
            seen = self._seen[group] = {}
            if group in self._same:
                self._same.discard(group)
                seen.update(_split(*self._old[group]))  # type: ignore[index]
        return seen

    def digests(self, folder: str, names: list[str], dir_fd: int | None = None, follow: bool = False) -> list[str]:
        """The sha256 of each file ``names`` of ``folder`` (opened relative to ``dir_fd``, the
        folder's descriptor, when given): the recorded one when its stat is as recorded, else
        read. Raises OSError as reading a file would (a symlink, without ``follow``)."""
        if self._old is None:
            self._old = self._load()
        group = self._groups.get(folder) or self._group(folder)
        joined, blob = self._old.get(group, ("", b""))
        in_order = group not in self._seen and "\0".join(names) == joined
        recorded = (
            {}
            if in_order
            else self._recorded.get(group)
            or self._recorded.setdefault(group, dict(_split(joined, blob)) if joined else {})
        )
        size, pack, settled = ENTRY.size, STAT.pack, self.started - SETTLED_NS
        shas, found, same = [], [], in_order
        for i, name in enumerate(names):
            path = name if dir_fd is not None else os.path.join(folder, name)
            st = os.stat(path, dir_fd=dir_fd, follow_symlinks=follow)
            try:
                key = pack(st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)
            except struct.error:  # a field out of range: never recorded
                key = b""
            old = blob[i * size : (i + 1) * size] if in_order else recorded.get(name, b"")
            if key and old[: STAT.size] == key:
                shas.append(old[STAT.size :].hex())
                found.append(old)
                continue
            same = False
            sha = file_sha256(path, dir_fd, follow)
            shas.append(sha)
            if key and stat.S_ISREG(st.st_mode) and max(st.st_mtime_ns, st.st_ctime_ns) < settled:
                found.append(key + bytes.fromhex(sha))
            else:
                found.append(b"")  # racy, or not a regular file: not recorded
        if same and group not in self._same:
            self._same.add(group)
        else:
            entries = self._entries(group)
            for name, entry in zip(names, found, strict=True):
                if entry:
                    entries[name] = entry
                else:
                    entries.pop(name, None)
        return shas

    def save(self) -> None:
        """Write the record if this run saw anything it did not hold; a record that cannot be
        written only costs speed."""
        if self.path is None or self._old is None:
            return
        old = self._old
        touched = {g: _join(entries) for g, entries in self._seen.items()}
        if all(old.get(g, ("", b"")) == entry for g, entry in touched.items()):
            return
        groups = {
            g: entry
            for g, entry in old.items()
            if g in self._same or (g not in touched and os.path.isdir(os.path.join(self._inside, g)))
        }
        groups.update((g, entry) for g, entry in touched.items() if entry[0])
        body = marshal.dumps(groups)
        data = self.header + _checksum(body) + body
        from generator.replace import replace_file

        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            replace_file(self.path, data)
        except (OSError, ValueError):
            return
        _prune(self.path.parent, self.started)


def _checksum(body: bytes) -> bytes:
    """The CRC-32 of the record's body, as gzip and PNG guard theirs against a torn or damaged file."""
    return b"%08x\n" % zlib.crc32(body)


def _well_formed(group: object) -> bool:
    return (
        isinstance(group, tuple)
        and len(group) == 2
        and isinstance(group[0], str)
        and isinstance(group[1], bytes)
        and len(group[1]) == (group[0].count("\0") + 1) * ENTRY.size
    )


def _split(joined: str, blob: bytes) -> list[tuple[str, bytes]]:
    size = ENTRY.size
    return [(name, blob[i * size : (i + 1) * size]) for i, name in enumerate(joined.split("\0"))]


def _join(entries: dict[str, bytes]) -> tuple[str, bytes]:
    names = sorted(entries)
    return "\0".join(names), b"".join(entries[n] for n in names)


def _prune(folder: Path, now: int) -> None:
    """Remove the records of roots not checked for ``MAX_AGE_DAYS`` (temporary clones, moved projects)."""
    limit = now - MAX_AGE_DAYS * 86_400 * 1_000_000_000
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.stat(follow_symlinks=False).st_mtime_ns < limit:
                    os.unlink(entry.path)
    except OSError:
        pass
