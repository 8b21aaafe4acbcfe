"""Bases: partial inputs a cluster's file names, so a fleet writes what it shares once.

``bases: [fleet, aks-h100]`` in ``clusters/<name>/cluster.yaml`` names ``clusters/_bases/fleet.yaml``
and ``clusters/_bases/aks-h100.yaml``: bases sit beside the clusters (``_bases`` is no cluster
name), so whatever copies or watches ``clusters/`` has them too. A base is a partial input (``kind:
ClusterBase``), and may name bases of its own. The order applied: each named base after the
bases it names, in the order written, each base once (where first reached), then the cluster's
file; ``merge`` says how each layer merges into the ones before. A base that names itself,
directly or through others, is an error at the name that closes the circle.

Bases are read from ``clusters/_bases/`` only, by the rules Jsonnet imports follow: a name is
lower-case words joined by ``-`` and ``/`` (no absolute paths, no ``..``, no dots), and a symlink
may not lead out of ``clusters/_bases/``.

May import: generator.diagnostic, generator.errors, generator.paths, generator.yamlio.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from generator import regex
from generator.errors import InputError
from generator.paths import CLUSTER_FILE, Project

if TYPE_CHECKING:
    from generator.diagnostic import Diagnostic
    from generator.yamlio.positions import Located

FOLDER = "clusters/_bases"  # under the project root
KEY = "bases"
NAME = regex.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(/[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
NAME_HINT = (
    "a base is named by its path under clusters/_bases/ without `.yaml`: lower-case words, `-` and `/` (e.g. aks/h100)"
)


@dataclass(frozen=True)
class Layer:
    """One input file as read: its document, its file, and the sha256 of the bytes read (for
    the sum file)."""

    doc: Located
    source: Path
    sha: str


def path_of(project: Project, name: str) -> Path:
    return project.root / FOLDER / f"{name}.yaml"


def read(project: Project, path: Path) -> Layer:
    """One input file, hashed before it is parsed (an edit meanwhile reads as a change next time)."""
    from generator.yamlio.positions import load_file
    from generator.yamlio.read import INPUTS

    display = project.display(path)
    digest = ""  # load_file words why a file cannot be read (a FIFO is never opened, a huge file never read)
    try:
        if path.is_file() and path.stat().st_size <= INPUTS.file_bytes:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        pass
    return Layer(load_file(path, display), path, digest)


def names(doc: Located) -> list[tuple[int, str]]:
    """The bases a file names (index, name), each checked to be a name; ``[]`` when none."""
    data = doc.data if isinstance(doc.data, dict) else {}
    listed = data.get(KEY)
    if listed is None:
        return []
    if not isinstance(listed, list):
        raise doc.error(f"{KEY}: expected a list of base names", (KEY,), NAME_HINT, at_value=True)
    for i, name in enumerate(listed):
        if not isinstance(name, str) or not NAME.match(name):
            raise doc.error(f"{KEY}[{i}]: {name!r} is not a base name", (KEY, i), NAME_HINT, at_value=True)
    return list(enumerate(listed))


def chain(project: Project, top: Layer) -> list[Layer]:
    """The bases ``top`` uses, in the order they are applied (``top`` not included)."""
    applied: dict[str, Layer] = {}
    _expand(project, top, [], applied)
    return list(applied.values())


def _expand(project: Project, layer: Layer, stack: list[str], applied: dict[str, Layer]) -> None:
    for i, name in names(layer.doc):
        if name in stack:
            circle = " → ".join([*stack[stack.index(name) :], name])
            raise layer.doc.error(
                f"base {name!r} names itself: {circle}",
                (KEY, i),
                "remove one of the names from the circle; bases apply in order, so none needs to name the other",
                at_value=True,
            )
        if name in applied:
            continue
        base = _read_base(project, layer.doc, i, name)
        _expand(project, base, [*stack, name], applied)
        applied[name] = base


def _read_base(project: Project, referrer: Located, index: int, name: str) -> Layer:
    folder = project.root / FOLDER
    path = path_of(project, name)
    what = _not_a_file(path)
    if what:
        raise referrer.error(
            f"base {name!r} {what}: {project.display(path)}",
            (KEY, index),
            f"create {project.display(path)} as a YAML file, or fix the name (bases are files under {FOLDER}/)",
            at_value=True,
        )
    if not path.resolve().is_relative_to(folder.resolve()):
        raise referrer.error(
            f"base {name!r} links outside {FOLDER}/",
            (KEY, index),
            "replace the symlink by the file: bases are read from the project only",
            at_value=True,
        )
    return read(project, path)


_KINDS = {stat.S_IFDIR: "a folder", stat.S_IFIFO: "a FIFO", stat.S_IFSOCK: "a socket"}


def _not_a_file(path: Path) -> str:
    """What stands at ``path`` when it is not a regular file ('' when it is one)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "not found"
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    if stat.S_ISREG(mode):
        return ""
    return f"is {_KINDS.get(stat.S_IFMT(mode), 'a device')}, not a file"


def users(project: Project, clusters: list[str]) -> dict[str, set[str]]:
    """For each cluster, the base files (as shown, ``clusters/_bases/x.yaml``) it uses; a cluster whose
    bases cannot be read uses every base (its render reports why)."""

    everything = {project.display(p) for p in (project.root / FOLDER).rglob("*.yaml")}
    found = {}
    for name in clusters:
        try:
            top = read(project, project.clusters / name / CLUSTER_FILE)
            found[name] = {project.display(layer.source) for layer in chain(project, top)}
        except InputError:
            found[name] = everything
    return found


def once_per_base(found: list[tuple[str, Diagnostic]]) -> list[Diagnostic]:
    """``found`` (each cluster's diagnostics, in order) with each one located in a base kept
    once, where it first occurs, its note naming every cluster it was found in: a mistake in a
    base shared by 200 clusters is one line to fix, not 200 reports."""

    clusters: dict[tuple, list[str]] = {}
    first: list[tuple[tuple | None, Diagnostic]] = []
    for cluster, diagnostic in found:
        if not diagnostic.location.path.startswith(f"{FOLDER}/"):
            first.append((None, diagnostic))
            continue
        d = diagnostic
        same = (d.location, d.severity, d.message, d.hint, d.rule)
        if same not in clusters:
            clusters[same] = []
            first.append((same, diagnostic))
        if cluster not in clusters[same]:
            clusters[same].append(cluster)
    out = []
    for key, diagnostic in first:
        if key is not None:
            setters = diagnostic.note.split("; layers: ", 1)[0] if diagnostic.note.startswith("set by") else ""
            users = clusters[key]
            named = f"in {len(users)} cluster(s) using it: {', '.join(users)}"
            diagnostic = diagnostic.replace(note=f"{setters}; {named}" if setters else named)
        out.append(diagnostic)
    return out
