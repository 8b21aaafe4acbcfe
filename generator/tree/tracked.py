"""Whether git tracks every file of the chosen trees, remembered, so that a no-op ``check``
starts no git process (``git ls-files --others`` lists the untracked files of ``rendered/``:
about 8% of such a check's CPU, walking every folder of the fleet again).

What git answers there depends on its index and on which files the trees hold, nothing else
(ignored files are listed too, so no ignore rule counts) and, rarely, its configuration
(``core.worktree``, ``core.ignoreCase``). When every chosen tree is up to date
(``fingerprint.fresh``), it holds exactly the files its sum file lists, so the answer is fixed
by the index and the sum files: a clean answer is remembered with their stat fields, and the
repository's config file's (size,
modification and change times, inode, device, as ``statcache`` keeps them), and is taken again
while all are as recorded. Writing the index (``git add``, a commit, a checkout) gives it a new
inode, as a render does to a sum file. As for the stat record, a file changed in the last
``statcache.SETTLED_NS`` leaves nothing remembered, and git is always asked where the
environment may point it elsewhere (``ENVIRONMENT``). What it cannot see: a user's or the
system's git configuration changed in a way that changes which files count as tracked. Outside
any repository (``outside_git``: no ``.git`` or ``HEAD`` from the root up, no environment
pointing elsewhere) git is not started at all: it could only fail, which says nothing is untracked.

Where it is kept: ``untracked/<sha256 of the project root's real path>`` of the user cache,
the stat fields of the last clean answer; a missing or other file only means git is asked.

May import: generator.paths, generator.replace, generator.tree.statcache.
"""

from __future__ import annotations

import hashlib
import os
import struct
from pathlib import Path

from generator.paths import cache_root
from generator.tree import statcache

# what makes git use another repository, index, work tree or configuration than found from the folder
ENVIRONMENT = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_COMMON_DIR",
    "GIT_CEILING_DIRECTORIES",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM",
    "GIT_CONFIG",
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG_NOSYSTEM",
)


def _repository(root: Path) -> list[str] | None:
    """The index file git uses for ``root`` and the repository's config file: those of the
    nearest folder upward that holds ``.git`` (a folder, or a file naming one: a linked work
    tree, whose config is its main repository's); None where the environment could point git
    elsewhere, or none is found."""
    if any(name in os.environ for name in ENVIRONMENT):
        return None
    folder = os.path.realpath(root)
    while True:
        dot_git = os.path.join(folder, ".git")
        if os.path.isdir(dot_git):
            return [os.path.join(dot_git, "index"), os.path.join(dot_git, "config")]
        if os.path.isfile(dot_git):
            try:
                with open(dot_git, encoding="utf-8") as fh:
                    line = fh.readline().strip()
                if not line.startswith("gitdir: "):
                    return None
                gitdir = os.path.join(folder, line[len("gitdir: ") :])
                with open(os.path.join(gitdir, "commondir"), encoding="utf-8") as fh:
                    common = os.path.join(gitdir, fh.readline().strip())
            except (OSError, UnicodeDecodeError):
                return None
            return [os.path.join(gitdir, "index"), os.path.join(common, "config")]
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def outside_git(root: Path) -> bool:
    """Whether git finds no repository for ``root``, so that there is nothing to ask it: nothing
    in the environment points it elsewhere, and neither ``root`` nor a folder above it holds a
    ``.git`` or a ``HEAD`` (a bare repository), which is all its discovery looks for."""
    if any(name in os.environ for name in ENVIRONMENT):
        return False
    folder = os.path.realpath(root)
    while True:
        if os.path.lexists(os.path.join(folder, ".git")) or os.path.lexists(os.path.join(folder, "HEAD")):
            return False
        parent = os.path.dirname(folder)
        if parent == folder:
            return True
        folder = parent


def state(root: Path, sum_files: list[str]) -> bytes | None:
    """The stat fields of git's index, its config and each sum file (paths in a fixed order),
    or None when one is missing, out of range or changed in the last seconds: nothing to
    remember by."""
    repository = _repository(root)
    if repository is None:
        return None
    settled = statcache.now_ns() - statcache.SETTLED_NS
    fields = []
    try:
        for path in [*repository, *sum_files]:
            st = os.stat(path)
            if max(st.st_mtime_ns, st.st_ctime_ns) >= settled:
                return None
            fields.append(statcache.STAT.pack(st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev))
    except (OSError, struct.error):  # gone, or a field out of range
        return None
    return os.fsencode(repository[0]) + b"\0" + b"".join(fields)


def _marker(root: Path) -> Path:
    return cache_root() / "untracked" / hashlib.sha256(os.fsencode(os.path.realpath(root))).hexdigest()


def known_clean(root: Path, now: bytes | None) -> bool:
    """Whether git found nothing untracked the last time the index and sum files were as ``now``."""
    if now is None:
        return False
    try:
        return _marker(root).read_bytes() == now
    except OSError:
        return False


def remember_clean(root: Path, now: bytes | None) -> None:
    """Keep ``now`` as the state in which git found nothing untracked; only costs speed if it fails."""
    if now is None:
        return
    from generator.replace import replace_file

    marker = _marker(root)
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        replace_file(marker, now)
    except (OSError, ValueError):
        pass
