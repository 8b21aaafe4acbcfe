"""The rendered files at a git revision, read from git's object store (nothing is checked out,
nothing re-rendered), and what git knows of the work tree: untracked files, the index, the
commit messages of a change.

Files are named by their git blob id, so the review parses only the files whose bytes differ
between the two sides (``blob_id`` of a work-tree file is what ``git hash-object`` prints).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from generator import git


def _git(root: Path, *args: str, stdin: bytes | None = None) -> bytes:
    hint = "run inside a git checkout with git installed; --base must name a commit, e.g. origin/main (fetch it first)"
    return git.run(root, args, hint, stdin)


def prefix(root: Path) -> str:
    """The project root's path inside the repository, '' or ending in ``/``."""
    return _git(root, "rev-parse", "--show-prefix").decode().strip()


def commit(root: Path, rev: str) -> str:
    """The full id of the commit ``rev`` names."""
    return git.commit(root, rev, "--base must name a commit, e.g. origin/main")


def blobs(root: Path, rev: str, folder: str) -> dict[str, str]:
    """Every file under the project's ``folder`` at ``rev``: path relative to ``folder`` → blob id."""
    base = prefix(root) + folder.rstrip("/") + "/"
    listing = _git(root, "ls-tree", "-r", "-z", "--full-tree", rev, "--", base)
    out = {}
    for entry in listing.split(b"\0"):
        if not entry:
            continue
        meta, path = entry.split(b"\t", 1)
        _mode, kind, sha = meta.split()
        name = os.fsdecode(path)
        if kind == b"blob" and name.startswith(base):
            out[name[len(base) :]] = sha.decode()
    return out


def contents(root: Path, ids: list[str]) -> dict[str, bytes]:
    """The bytes of each blob id, in one ``git cat-file --batch``."""
    wanted = sorted(set(ids))
    if not wanted:
        return {}
    raw = _git(root, "cat-file", "--batch", stdin="".join(f"{i}\n" for i in wanted).encode())
    out, at = {}, 0
    for sha in wanted:
        end = raw.index(b"\n", at)
        header = raw[at:end].split()
        size = int(header[2])
        out[sha] = raw[end + 1 : end + 1 + size]
        at = end + 1 + size + 1
    return out


def blob_id(data: bytes) -> str:
    """Git's id of a blob of these bytes (SHA-1 repositories)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def merge_base(root: Path, rev: str) -> str:
    return _git(root, "merge-base", rev, "HEAD").decode().strip()


def messages(root: Path, rev: str) -> list[tuple[str, str]]:
    """(commit id, message) of the commits a change adds: from the merge base of ``rev`` to HEAD."""
    raw = _git(root, "log", "--format=%H%n%B%x00", f"{merge_base(root, rev)}..HEAD").decode(errors="replace")
    out = []
    for entry in raw.split("\0"):
        sha, _, message = entry.strip().partition("\n")
        if sha:
            out.append((sha, message))
    return out


def changed(root: Path, rev: str, folder: str) -> list[str]:
    """Files under the project's ``folder`` that differ between ``rev`` and the work tree
    (changed, added, deleted, or not tracked), relative to ``folder``."""
    raw = _git(root, "diff", "-z", "--no-renames", "--name-only", "--relative", rev, "--", folder)
    base = folder.rstrip("/") + "/"
    tracked = [os.fsdecode(p)[len(base) :] for p in raw.split(b"\0") if p and os.fsdecode(p).startswith(base)]
    return sorted(set(tracked) | set(untracked(root, folder)))


def untracked(root: Path, folder: str) -> list[str]:
    """Files under the project's ``folder`` that git does not track, ignored ones included,
    relative to ``folder``."""
    raw = _git(root, "ls-files", "-z", "--others", "--", folder)
    base = folder.rstrip("/") + "/"
    return sorted(os.fsdecode(p)[len(base) :] for p in raw.split(b"\0") if p and os.fsdecode(p).startswith(base))


def export_index(root: Path, dest: Path, folders: tuple[str, ...]) -> None:
    """The staged version of the project's ``folders`` (and files), written under ``dest``:
    what a commit made now would hold."""
    listing = _git(root, "ls-files", "-z", "--", *folders)
    paths = [p for p in listing.split(b"\0") if p]
    if paths:
        _git(root, "checkout-index", "--force", f"--prefix={dest}{os.sep}", "-z", "--stdin", stdin=b"\0".join(paths))


def export(root: Path, rev: str, dest: Path, names: tuple[str, ...]) -> None:
    """The project's files and folders ``names`` as committed at ``rev``, written under ``dest``."""
    import io
    import tarfile

    tree = f"{rev}:{prefix(root)}"
    present = set(os.fsdecode(n) for n in _git(root, "ls-tree", "-z", "--name-only", tree).split(b"\0") if n)
    chosen = [n for n in names if n in present]
    if not chosen:
        return
    archive = _git(root, "archive", "--format=tar", tree, "--", *chosen)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(dest, filter="data")
