"""A large JSON file of the installed schemas decoded once into the user cache, then read from there.

Why: the Kubernetes definitions every built-in kind's schema refers to (``_definitions.json``,
1.3 MB per version) took JSON's decoder 42 M instructions in every lint that checks a built-in
kind, a lint after an edit among them; ``marshal`` reads the same data in half that. A kind's
compiled check reaches a fraction of the definitions: ``load_members`` keeps each definition as
a dump of its own behind an index, so a lint reads and decodes those its kinds reach and no others.

The copy is named by the file's path, size, modification and change times, inode and device,
and marshal's format: an edited, replaced or reinstalled file is another name, so a copy is only
ever read for the bytes it was made from. It is the file's data as JSON decodes it, before any
change a caller makes to its own copy. A copy is written whole (``replace.replace_file``) or not
at all; one that cannot be read, does not load or is of another type is decoded again from the
file; a cache that cannot be written only costs speed. Copies live in ``decoded/`` of the user
cache folder (``paths.cache_folder``), one a file and member: a new copy removes the ones it
replaces, so upgrades do not pile up copies no run reads.

May import: generator.paths, generator.replace, generator.sha.
"""

from __future__ import annotations

import marshal
import os
from collections.abc import Callable, Iterator, Mapping

from generator import jsontext
from generator.paths import cache_folder
from generator.sha import sha256

TYPE_CHECKING = False  # typing's flag without importing typing (PEP 781; mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any


FOLDER = "decoded"


def load(given: str | os.PathLike[str]) -> Any:
    """``json.loads`` of the file's text (UTF-8), from the user cache when a copy of these bytes is there."""
    path = os.fspath(given)
    copy = _copy(path, None)
    data = _read(copy)
    if isinstance(data, dict):
        return data
    data = _decode(path)
    if isinstance(data, dict):
        _write(copy, marshal.dumps(data))
    return data


def load_members(given: str | os.PathLike[str], member: str) -> Members:
    """The entries of the file's top-level object ``member`` (JSON's ``data[member]``), each
    decoded when first asked for, from the user cache when a copy of these bytes is there: a
    caller that needs a few of many entries (a kind's schema reaches a fraction of the
    definitions) reads and decodes those alone. Empty when the file has no such object."""
    path = os.fspath(given)
    copy = _copy(path, member)
    found = Members.open(copy, path, member)
    if found is not None:
        return found
    table = _table(_decode(path), member)
    _write(copy, table)
    return Members(path, member, table)


class Members(Mapping[str, object]):
    """One top-level object of a JSON file by entry name, each lookup reading and decoding its
    entry alone (callers keep what they use).

    Why not the whole copy: it is 1.3 MB for the Kubernetes definitions, and reading it and
    decoding every entry faulted in 635 pages more of a lint after an edit (4,646 → 4,011:
    ``bench/bench_edit_steps.py 58ec0f40 c150b9f4``), to use the few dozen definitions one
    object reaches. The copy (``_table``) is an index (entry name → offset and length) followed
    by each entry's own ``marshal`` dump, and a lookup reads just its entry (``os.pread``) from
    the copy held open: a copy replaced meanwhile is another file, so the one opened is read
    consistently to the end. An entry that cannot be read or does not load decodes the source
    file again, once, and is served from that."""

    def __init__(self, source: str, member: str, table: bytes, fd: int | None = None):
        self._source, self._member = source, member
        self._fd: int | None = None
        self._take(table, fd)

    def _take(self, table: bytes, fd: int | None) -> None:
        """Serve from ``table``: the whole copy, or its head (the index) when ``fd`` holds the copy open."""
        self._close()
        head = int.from_bytes(table[:8], "little")
        self._index: dict[str, tuple[int, int]] = marshal.loads(table[8 : 8 + head])
        self._base = 8 + head
        self._table, self._fd = table, fd

    @classmethod
    def open(cls, copy: str, source: str, member: str) -> Members | None:
        """The members of a copy in the cache, its index read and checked against the file's
        size; None when there is none, or it cannot be read or is not one."""
        try:
            fd = os.open(copy, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return None
        found = None
        try:
            size = os.fstat(fd).st_size
            head = int.from_bytes(os.pread(fd, 8, 0), "little")
            found = cls(source, member, os.pread(fd, 8 + head, 0), fd)  # holds ``fd`` from here
            index = found._index
            if not isinstance(index, dict) or found._base + sum(n for _, n in index.values()) != size:
                raise ValueError("not a copy of members")
            return found
        except (OSError, ValueError, EOFError, TypeError):
            if found is None:
                os.close(fd)
            else:
                found._close()
            return None

    def __getitem__(self, name: str) -> object:
        offset, length = self._index[name]
        try:
            if self._fd is None:
                return marshal.loads(self._table[self._base + offset : self._base + offset + length])
            return marshal.loads(os.pread(self._fd, length, self._base + offset))
        except (OSError, ValueError, EOFError, TypeError):
            if self._fd is None:
                raise  # decoded from the source already: a bug, not a damaged copy
            self._take(_table(_decode(self._source), self._member), None)
            return self[name]

    def __contains__(self, name: object) -> bool:
        return name in self._index

    def __iter__(self) -> Iterator[str]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)

    def _close(self, close: Callable[[int], None] = os.close) -> None:
        if self._fd is not None:
            close(self._fd)
            self._fd = None

    def __del__(self) -> None:
        self._close()


def _table(data: Any, member: str) -> bytes:
    """The copy of ``data[member]``: the length of the index, the index (entry name → offset
    and length after it), then each entry's ``marshal`` dump in the file's order."""
    members = data.get(member) if isinstance(data, dict) else None
    dumps = {name: marshal.dumps(value) for name, value in members.items()} if isinstance(members, dict) else {}
    index, offset = {}, 0
    for name, dump in dumps.items():
        index[name] = (offset, len(dump))
        offset += len(dump)
    head = marshal.dumps(index)
    return b"".join([len(head).to_bytes(8, "little"), head, *dumps.values()])


def _copy(path: str, member: str | None) -> str:
    """The copy's name: which file and member it keeps (None: all), then that file's identity,
    marshal's format and the copy's layout. The first part is shared by every copy ever made of
    the same file and member, so a new one can replace the others (``_write``)."""
    info = os.stat(path)
    which = [path, member]
    identity: list = [info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev, marshal.version]
    if member is not None:
        identity.append("index")  # the layout of ``_table``: a copy of another layout is another name
    return os.path.join(cache_folder(), FOLDER, f"{_digest(which)}-{_digest(identity)}.marshal")


def _digest(key: list) -> str:
    return sha256(jsontext.dumps(key).encode()).hexdigest()[:16]


def _stale(name: str, copy: str) -> bool:
    """Whether a file of the copies' folder is a copy ``copy`` replaces: of the same file and
    member (the same first part), or named as copies were before the name had two parts (one
    digest of 32 characters), which no run reads again."""
    own = os.path.basename(copy)
    if name == own or not name.endswith(".marshal"):
        return False
    stem = name[: -len(".marshal")]
    return stem.startswith(own.split("-", 1)[0] + "-") or (len(stem) == 32 and "-" not in stem)


def _read(copy: str) -> object:
    """The copy's data, or None when it cannot be read or does not load."""
    try:
        with open(copy, "rb") as handle:
            return marshal.loads(handle.read())
    except (OSError, ValueError, EOFError, TypeError):
        return None


def _decode(path: str) -> Any:
    import json  # a file without a copy: json's decoder, with re, only then

    with open(path, encoding="utf-8") as handle:
        return json.loads(handle.read())


def _write(copy: str, content: bytes) -> None:
    """Keep a copy, and remove the copies it replaces (``_stale``: an upgrade's or a reinstall's
    bundled schemas are other files' bytes, 1.3 MB of definitions a version, which no run would
    read again). A run holding a removed copy open reads on to its end. A cache that cannot be
    written only costs speed."""
    try:
        from generator.replace import replace_file

        folder = os.path.dirname(copy)
        os.makedirs(folder, exist_ok=True)
        replace_file(copy, content)
        stale = [name for name in os.listdir(folder) if _stale(name, copy)]
    except (OSError, ValueError):
        return
    for name in stale:
        try:
            os.unlink(os.path.join(folder, name))
        except OSError:
            pass  # removed by another run meanwhile, or not ours to remove: only space
