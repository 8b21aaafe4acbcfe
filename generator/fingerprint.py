"""``rendered/<cluster>/.gpu-gitops.sum``: hashes of what went into a tree and what came out.

Render writes it with the tree; ``check`` and ``render`` read it first and skip a cluster
(no Jsonnet, no validation) when every input hash matches what it records and every file of
the tree matches its output hash, with no file missing or extra. So an unchanged fleet is
checked by hashing files, and a hand edit to a rendered file or any change to an input still
sends the cluster down the full path. One line per hash, sorted, in this form::

    tool      <sha256>  gpu-gitops 0.1.0       the version and the package's Python code
    library   <sha256>  libsonnet/             every file of the Jsonnet library
    schemas   <sha256>  schemas/               the input and config schemas (defaults)
    settings  <sha256>  .gpu-gitops.yaml       the config file, or "none" when there is none
    input     <sha256>  cluster.yaml           each file of clusters/<cluster>/
    output    <sha256>  <path>                 each file of rendered/<cluster>/ but this one

The file is deterministic and machine-independent, so it is committed and reviewed with the
tree. Only the standard library is imported here: an up-to-date check must not pay for
Jsonnet, YAML or JSON Schema.
"""

from __future__ import annotations

import functools
import hashlib
import os
import stat
from pathlib import Path

from generator import __version__
from generator.paths import Project

SUM_FILE = ".gpu-gitops.sum"
NOT_A_FILE = "not-a-file"
HEADER = ("# gpu-gitops: hashes of what went into this tree and what came out. `gpu-gitops render` writes\n"
          "# this file; `render` and `check` compare it first and skip clusters whose hashes all match.\n")


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _folder_files(folder: Path) -> list[tuple[str, int]]:
    """Sorted (relative path, mode) of every entry under ``folder``, folders with a trailing
    ``/``; symlinks are listed, never followed."""
    found = []
    stack = [(folder, "")]
    while stack:
        path, prefix = stack.pop()
        with os.scandir(path) as entries:
            for entry in entries:
                st = entry.stat(follow_symlinks=False)
                rel = prefix + entry.name
                if stat.S_ISDIR(st.st_mode):
                    stack.append((Path(entry.path), rel + "/"))
                    found.append((rel + "/", st.st_mode))
                else:
                    found.append((rel, st.st_mode))
    return sorted(found)


def _plain(files: list[tuple[str, int]]) -> bool:
    """Only regular files and folders: anything else sends a cluster down the full path."""
    return all(stat.S_ISREG(mode) or stat.S_ISDIR(mode) for _rel, mode in files)


def _folder_digest(folder: Path) -> str:
    """One hash over every file's path and content (symlinks followed: the library may be
    installed through links)."""
    digest = hashlib.sha256()
    for dirpath, dirs, files in os.walk(folder, followlinks=True):
        dirs.sort()
        for name in sorted(files):
            path = Path(dirpath) / name
            digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
            digest.update(_sha(path.read_bytes()).encode())
    return digest.hexdigest()


@functools.cache
def _tool_line() -> str:
    code = Path(__file__).resolve().parent
    digest = hashlib.sha256(__version__.encode())
    for dirpath, dirs, files in os.walk(code):
        dirs[:] = sorted(d for d in dirs if d not in ("_data", "__pycache__"))
        for name in sorted(f for f in files if f.endswith(".py")):
            path = Path(dirpath) / name
            digest.update(path.relative_to(code).as_posix().encode() + b"\0" + _sha(path.read_bytes()).encode())
    return f"tool {digest.hexdigest()}  gpu-gitops {__version__}"


def shared_lines(project: Project, config_file: Path | None) -> tuple[str, ...]:
    """The lines every cluster shares: hash them once per run and pass them on."""
    settings = (f"settings {_sha(config_file.read_bytes())}  .gpu-gitops.yaml"
                if config_file and config_file.is_file() else "settings none")
    return (_tool_line(), f"library {_folder_digest(project.libsonnet)}  libsonnet/",
            f"schemas {_folder_digest(project.schemas)}  schemas/", settings)


def input_lines(project: Project, cluster: str, shared: tuple[str, ...]) -> list[str]:
    """The input half of the cluster's sum file: ``shared`` and the cluster folder's files. A
    symlink or special file there is recorded as ``not-a-file`` (never read: it could be
    /dev/zero), and a cluster with one is never fresh."""
    folder = project.clusters / cluster
    try:
        files = _folder_files(folder)
    except OSError:
        files = []
    own = [f"input {_sha((folder / rel).read_bytes()) if stat.S_ISREG(mode) else NOT_A_FILE}  {rel}"
           for rel, mode in files if not stat.S_ISDIR(mode)]
    return [*shared, *own]


def sum_file(inputs: list[str], files: dict[str, bytes]) -> bytes:
    """The sum file for a tree of ``files`` rendered from ``inputs``."""
    outputs = [f"output {_sha(content)}  {rel}" for rel, content in sorted(files.items()) if rel != SUM_FILE]
    return (HEADER + "\n".join(inputs + outputs) + "\n").encode()


def is_fresh(project: Project, cluster: str, shared: tuple[str, ...], modes: bool = False) -> bool:
    """True when ``rendered/<cluster>`` is exactly what render would write: recorded input hashes
    equal today's, every file matches its recorded hash, nothing missing or extra, no leftover
    of an interrupted render (and, with ``modes``, files 0644 and folders 0755)."""
    rendered = project.rendered
    target = rendered / cluster
    try:
        if rendered.is_symlink() or target.is_symlink() or any(
                n.startswith((f".tmp.{cluster}.", f".old.{cluster}.")) for n in os.listdir(rendered)):
            return False
        files = _folder_files(target)
        recorded = (target / SUM_FILE).read_bytes().decode()
    except (OSError, UnicodeDecodeError):
        return False
    expected = input_lines(project, cluster, shared)
    if not _plain(files) or any(f" {NOT_A_FILE}  " in line for line in expected) or not recorded.startswith(HEADER):
        return False
    lines = recorded[len(HEADER):].splitlines()
    if lines[:len(expected)] != expected:
        return False
    outputs = {}
    for line in lines[len(expected):]:
        kind, _, rest = line.partition(" ")
        sha, _, rel = rest.partition("  ")
        if kind != "output":
            return False
        outputs[rel] = sha
    if modes and any(stat.S_IMODE(mode) != (0o755 if rel.endswith("/") else 0o644) for rel, mode in files):
        return False
    on_disk = [rel for rel, _mode in files if not rel.endswith("/") and rel != SUM_FILE]
    if sorted(on_disk) != sorted(outputs):
        return False
    try:
        return all(_sha((target / rel).read_bytes()) == outputs[rel] for rel in on_disk)
    except OSError:
        return False


def fresh(project: Project, clusters: list[str], config_file: Path | None, modes: bool = False) -> list[str]:
    """The clusters, of ``clusters``, that need neither rendering nor checking (with ``modes``,
    for render: files 0644 and folders 0755 too)."""
    shared = shared_lines(project, config_file)
    return [c for c in clusters if is_fresh(project, c, shared, modes)]
