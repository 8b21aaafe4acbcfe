"""The one way the project runs git: a command in the project root, its output as bytes, and
one located error (``InputError``, exit 2) when git is missing or refuses, with the caller's
hint for what the command it serves needs (a checkout, a commit to compare with).

The repository may not be the user's own (a pull request's checkout in CI), and its local
config can name programs git runs while it reads: ``core.fsmonitor`` (a hook run by every
command that reads the index), ``filter.<driver>.clean/smudge/process`` (run on files by
``diff`` against the work tree, ``checkout-index`` and ``archive``), ``diff.<driver>.textconv``
and ``diff.external``. The tool only reads, so every command runs with them off, as tools that
read untrusted checkouts do: the config is overridden on the command line (``-c``, which wins
over every config file), each filter driver the config names is emptied (an empty command is
no filter; ``required`` off, or git refuses the file), and ``diff`` runs with
``--no-ext-diff --no-textconv``. Files come out as the repository stores them.

May import: generator.errors.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from generator.errors import InputError

# off whatever the repository's config says: hooks and the fsmonitor hook run programs
_OFF = ("-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null")


def run(root: Path, args: tuple[str, ...], hint: str, stdin: bytes | None = None) -> bytes:
    """git's standard output; its last line of complaint, or its absence, as an InputError."""
    if args[:1] == ("diff",):
        args = ("diff", "--no-ext-diff", "--no-textconv", *args[1:])
    done = _git(root, (*_OFF, *_no_filters(root), *args), hint, stdin)
    if done.returncode != 0:
        message = (done.stderr.decode(errors="replace").strip().splitlines() or ["git failed"])[-1]
        raise InputError(f"git {' '.join(args[:3])}: {message}", path=str(root), hint=hint)
    return done.stdout


def _git(root: Path, args: tuple[str, ...], hint: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(["git", *args], cwd=root, input=stdin, capture_output=True, check=False)
    except FileNotFoundError:
        raise InputError("git is not installed", hint=hint) from None


def _no_filters(root: Path) -> tuple[str, ...]:
    """``-c`` options that empty every filter driver the repository's config names (reading
    the config runs nothing)."""
    done = _git(root, (*_OFF, "config", "--null", "--name-only", "--get-regexp", r"^filter\."), "")
    drivers = {name.rsplit(".", 1)[0] for name in done.stdout.decode(errors="surrogateescape").split("\0") if name}
    return tuple(
        option
        for driver in sorted(drivers)
        for setting in ("clean=", "smudge=", "process=", "required=false")
        for option in ("-c", f"{driver}.{setting}")
    )


def commit(root: Path, rev: str, hint: str) -> str:
    """The full id of the commit ``rev`` (a ``--base``) names; one that names none is an error
    that says so, naming it."""
    if rev.startswith("-"):
        raise InputError(f"--base {rev}: not a revision (it reads as an option)", hint=hint)
    done = _git(root, (*_OFF, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"), hint)
    if done.returncode != 0:
        complaint = done.stderr.decode(errors="replace").strip().splitlines()
        if complaint:  # not a repository, or git cannot read it
            raise InputError(f"--base {rev}: {complaint[-1]}", path=str(root), hint=hint)
        raise InputError(
            f"--base {rev}: no commit of that name in this repository",
            path=str(root),
            hint="fetch it first (`git fetch origin main` for origin/main), or name a branch, tag or commit id",
        )
    return done.stdout.decode().strip()


# git's answers to ``prefix``, by the folder and what git's discovery reads as it walks up from
# it: in the folder and each ancestor, a ``.git`` (or a bare repository's ``HEAD``), by identity
# and mtime; and git's environment (``_ENVIRONMENT``). A fleet's render asks for every cluster (IN111): a git
# process each time.
_PREFIXES: dict[tuple, str | None] = {}


def _stamp(path: str) -> tuple[int, int, int] | None:
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino, st.st_mtime_ns


def _discovery_key(root: Path) -> tuple:
    path = os.path.realpath(root)  # git runs there, and walks up from where it really is
    found: list[object] = [path]
    while True:
        found += (_stamp(os.path.join(path, ".git")), _stamp(os.path.join(path, "HEAD")))
        parent = os.path.dirname(path)
        if parent == path:
            break
        path = parent
    return (*found, *(os.environ.get(name) for name in _ENVIRONMENT))


# What else decides git's answer: where the repository is (GIT_DIR and the rest), how far up it
# looks, the configuration it reads (``safe.directory``), and which git runs.
_ENVIRONMENT = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_CEILING_DIRECTORIES",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM",
    "GIT_CONFIG",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG_NOSYSTEM",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "HOME",
    "XDG_CONFIG_HOME",
    "PATH",
)


def prefix(root: Path) -> str | None:
    """Where ``root`` sits in its git work tree (``platform/``, or empty at the top), as git
    spells it; None where ``root`` is in no work tree or git cannot say (not installed, a
    repository it refuses to read): there is then nothing to check a path against. Asked
    again while nothing git reads to find the work tree changed, the answer is remembered."""
    key = _discovery_key(root)
    if key not in _PREFIXES:
        if len(_PREFIXES) >= 64:
            _PREFIXES.clear()
        _PREFIXES[key] = _ask_prefix(root)
    return _PREFIXES[key]


def _ask_prefix(root: Path) -> str | None:
    try:
        done = _git(root, (*_OFF, "rev-parse", "--is-inside-work-tree", "--show-prefix"), "")
    except InputError:
        return None
    lines = done.stdout.decode(errors="surrogateescape").splitlines()
    if done.returncode != 0 or not lines or lines[0] != "true":
        return None
    return lines[1] if len(lines) > 1 else ""
