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

FORMAT = b"gpu-gitops stat cache 4 marshal %d\n" % marshal.version
SETTLED_NS = 3_000_000_000  # older changes than this are past any file system's clock tick
MAX_AGE_DAYS = 30
READ_SIZE = 1 << 20

STAT = struct.Struct("<qqqQQ")  # size, mtime_ns, ctime_ns, inode, device
SHA = 32  # bytes of a sha256


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
    leave the record. A group is kept as its names (one string), their stat fields (one bytes
    string of ``STAT.size`` bytes per file) and their sha256 (``SHA`` bytes each): a group
    whose files' stat is all as recorded is vouched for by one comparison, and a record of tens
    of thousands of files loads in a few milliseconds. The record also keeps the listing of
    each tree ``listing`` walked: see there. ``root`` None: nothing is read or written (a
    scratch copy of git's index)."""

    def __init__(self, root: Path | None):
        self.started = now_ns()
        self.header = FORMAT + os.fsencode(os.path.realpath(root)) + b"\n" if root is not None else b""
        self.path = record_path(root) if root is not None else None
        self._inside = os.path.join(os.path.abspath(root), "") if root is not None else ""
        self._old: dict[str, tuple[str, bytes, bytes]] | None = None
        self._old_listings: dict[str, tuple[str, bytes, str, str]] = {}
        self._groups: dict[str, str] = {}  # folder as looked up -> its group
        self._same: set[str] = set()  # groups seen whole and exactly as recorded
        self._seen: dict[str, dict[str, bytes]] = {}  # other groups looked at: name -> entry
        self._recorded: dict[str, dict[str, bytes]] = {}  # groups of the record, name -> entry, as needed
        self._listed: dict[str, tuple[str, bytes, str, str] | None] = {}  # trees listed: None if not to record

    def _group(self, folder: str) -> str:
        group = os.path.abspath(folder)
        if self._inside and group.startswith(self._inside):
            group = group[len(self._inside) :]
        self._groups[folder] = group
        return group

    def _load(self) -> dict[str, tuple[str, bytes, bytes]]:
        self._old = {}
        if self.path is None:
            return self._old
        try:
            data = self.path.read_bytes()
        except OSError:
            return self._old
        header = self.header
        body = data[len(header) + 9 :]
        if not data.startswith(header) or data[len(header) : len(header) + 9] != _checksum(body):
            return self._old
        try:
            record = marshal.loads(body)
        except (EOFError, ValueError, TypeError):
            return self._old
        if not (isinstance(record, tuple) and len(record) == 2 and all(isinstance(r, dict) for r in record)):
            return self._old
        groups, listings = record
        if all(_well_formed(g) for g in groups.values()) and all(_well_listed(t) for t in listings.values()):
            self._old, self._old_listings = groups, listings
        return self._old

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
        old = self._old if self._old is not None else self._load()
        group = self._groups.get(folder) or self._group(folder)
        joined, keys_blob, shas_blob = old.get(group, ("", b"", b""))
        paths = names if dir_fd is not None else [os.path.join(folder, name) for name in names]
        stats = [os.stat(path, dir_fd=dir_fd, follow_symlinks=follow) for path in paths]
        keys = _keys(stats)
        in_order = group not in self._seen and "\0".join(names) == joined
        if in_order and b"".join(keys) == keys_blob:  # the common case: nothing changed
            self._same.add(group)
            hexed = shas_blob.hex()
            return [hexed[i : i + 2 * SHA] for i in range(0, len(hexed), 2 * SHA)]
        recorded = self._recorded.get(group)
        if recorded is None:
            recorded = self._recorded[group] = dict(_split(joined, keys_blob, shas_blob)) if joined else {}
        settled = self.started - SETTLED_NS
        shas: list[str] = []
        found: list[bytes] = []
        for name, path, st, key in zip(names, paths, stats, keys, strict=True):
            old_entry = recorded.get(name, b"")
            if key and old_entry[: STAT.size] == key:
                shas.append(old_entry[STAT.size :].hex())
                found.append(old_entry)
                continue
            sha = file_sha256(path, dir_fd, follow)
            shas.append(sha)
            if key and stat.S_ISREG(st.st_mode) and max(st.st_mtime_ns, st.st_ctime_ns) < settled:
                found.append(key + bytes.fromhex(sha))
            else:
                found.append(b"")  # racy, or not a regular file: not recorded
        entries = self._entries(group)
        for name, entry in zip(names, found, strict=True):
            if entry:
                entries[name] = entry
            else:
                entries.pop(name, None)
        return shas

    def listing(self, folder: str) -> tuple[list[str], list[str], list[str]]:
        """What ``walk`` gives for ``folder``, taken from the record where the stat of the folder
        and of each folder under it is as recorded, as git's untracked cache does: adding,
        removing or renaming an entry of a folder gives the folder a new modification and change
        time (an edit inside a file does not, and is caught by ``digests``). A folder changed in
        the last ``SETTLED_NS`` is listed and not recorded, as a racy file. Raises OSError as
        listing would."""
        if self._old is None:
            self._load()
        group = self._groups.get(folder) or self._group(folder)
        old = self._old_listings.get(group)
        if old is not None and group not in self._listed:
            dirs_joined, keys_blob, files_joined, others_joined = old
            dirs = dirs_joined.split("\0") if dirs_joined else []
            inside = os.path.join(folder, "")
            try:
                keys = _keys(
                    [
                        os.stat(folder, follow_symlinks=False),
                        *(os.stat(inside + d, follow_symlinks=False) for d in dirs),
                    ]
                )
            except OSError:
                keys = []
            if keys and b"".join(keys) == keys_blob:
                self._listed[group] = old
                return (
                    files_joined.split("\0") if files_joined else [],
                    dirs,
                    others_joined.split("\0") if others_joined else [],
                )
        stats: list[os.stat_result] = []
        files, dirs, others = walk(folder, stats)
        keys = _keys(stats)
        settled = self.started - SETTLED_NS
        if all(keys) and all(max(st.st_mtime_ns, st.st_ctime_ns) < settled for st in stats):
            self._listed[group] = ("\0".join(dirs), b"".join(keys), "\0".join(files), "\0".join(others))
        else:
            self._listed[group] = None
        return files, dirs, others

    def save(self) -> None:
        """Write the record if this run saw anything it did not hold; a record that cannot be
        written only costs speed."""
        if self.path is None or self._old is None:
            return
        old = self._old
        touched = {g: _join(entries) for g, entries in self._seen.items()}
        listed = self._listed
        if all(old.get(g, ("", b"", b"")) == entry for g, entry in touched.items()) and all(
            self._old_listings.get(g) == t for g, t in listed.items()
        ):
            return
        groups = {
            g: entry
            for g, entry in old.items()
            if g in self._same or (g not in touched and os.path.isdir(os.path.join(self._inside, g)))
        }
        groups.update((g, entry) for g, entry in touched.items() if entry[0])
        listings = {
            g: t
            for g, t in self._old_listings.items()
            if g not in listed and os.path.isdir(os.path.join(self._inside, g))
        }
        listings.update((g, t) for g, t in listed.items() if t is not None)
        body = marshal.dumps((groups, listings))
        data = self.header + _checksum(body) + body
        from generator.replace import replace_file

        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            replace_file(self.path, data)
        except (OSError, ValueError):
            return
        _prune(self.path.parent, self.started)


def walk(folder: str, stats: list[os.stat_result] | None = None) -> tuple[list[str], list[str], list[str]]:
    """Relative paths under ``folder``: regular files, folders, and anything else (symlinks,
    sockets...), which is listed, never followed or read. Uses the directory entries' types,
    so no file is stat'ed: this runs over every file of a fleet on each check. ``stats``
    collects the stat of ``folder`` and of each folder under it (in the order of the folders
    returned), each taken before the folder is listed: a change made while it is listed shows
    in the next run's stat."""
    files, dirs, others = [], [], []
    stack = [(folder, "")]
    while stack:
        path, prefix = stack.pop()
        if prefix:
            dirs.append(prefix[:-1])
        if stats is not None:
            stats.append(os.stat(path, follow_symlinks=False))
        with os.scandir(path) as entries:
            for entry in entries:  # most are files: asked first
                if entry.is_file(follow_symlinks=False):
                    files.append(prefix + entry.name)
                elif entry.is_dir(follow_symlinks=False):
                    stack.append((entry.path, prefix + entry.name + "/"))
                else:
                    others.append(prefix + entry.name)
    files.sort()
    others.sort()
    return files, dirs, others


def _keys(stats: list[os.stat_result]) -> list[bytes]:
    """``_key`` of each, packed in one pass where every field is in range (the common case)."""
    pack = STAT.pack
    try:
        return [pack(st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev) for st in stats]
    except struct.error:
        return [_key(st) for st in stats]


def _key(st: os.stat_result) -> bytes:
    """A file's stat fields as recorded; empty (never equal to a recorded key) when one is out of range."""
    try:
        return STAT.pack(st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)
    except struct.error:
        return b""


def _checksum(body: bytes) -> bytes:
    """The CRC-32 of the record's body, as gzip and PNG guard theirs against a torn or damaged file."""
    return b"%08x\n" % zlib.crc32(body)


def _well_formed(group: object) -> bool:
    """A group of as many names as stat fields and hashes (the names are counted once: they
    are most of the record, which every no-op check reads)."""
    if not (
        isinstance(group, tuple)
        and len(group) == 3
        and isinstance(group[0], str)
        and isinstance(group[1], bytes)
        and isinstance(group[2], bytes)
    ):
        return False
    files = group[0].count("\0") + 1
    return len(group[1]) == files * STAT.size and len(group[2]) == files * SHA


def _well_listed(tree: object) -> bool:
    return (
        isinstance(tree, tuple)
        and len(tree) == 4
        and all(isinstance(tree[i], str) for i in (0, 2, 3))
        and isinstance(tree[1], bytes)
        and len(tree[1]) == (tree[0].count("\0") + 1 + bool(tree[0])) * STAT.size
    )


def _split(joined: str, keys: bytes, shas: bytes) -> list[tuple[str, bytes]]:
    """The record's group as (name, stat fields + sha256) pairs."""
    k, h = STAT.size, SHA
    return [(name, keys[i * k : (i + 1) * k] + shas[i * h : (i + 1) * h]) for i, name in enumerate(joined.split("\0"))]


def _join(entries: dict[str, bytes]) -> tuple[str, bytes, bytes]:
    names = sorted(entries)
    return (
        "\0".join(names),
        b"".join(entries[n][: STAT.size] for n in names),
        b"".join(entries[n][STAT.size :] for n in names),
    )


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
