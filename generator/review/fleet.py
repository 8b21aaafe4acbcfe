"""Every cluster's review against a base revision: the rendered trees at the base (from git) and
in the work tree (from disk), compared object by object, each change classified, the cluster's
acknowledgement found, and the ``cluster.yaml`` line a change comes from where it is known.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field

from generator.paths import Project
from generator.review import acknowledge, revision
from generator.review.acknowledge import Acknowledgement
from generator.review.compare import Change, Side, compare
from generator.review.danger import DANGER, Finding, classify
from generator.tree import write as tree

INPUT = "cluster.yaml"


@dataclass
class Reviewed:
    change: Change
    findings: list[Finding]

    @property
    def dangerous(self) -> bool:
        return any(f.level == DANGER for f in self.findings)


@dataclass
class ClusterReview:
    name: str
    changes: list[Reviewed] = field(default_factory=list)
    acknowledged: Acknowledgement | None = None
    input_file: str = ""  # clusters/<name>/cluster.yaml as shown
    input_line: int = 0  # the first line of cluster.yaml that changed, 0 when the input did not change
    state: str = ""  # "new" (no tree at the base), "deleted" (no tree now), "" otherwise

    @property
    def dangers(self) -> list[tuple[Reviewed, Finding]]:
        return [(r, f) for r in self.changes for f in r.findings if f.level == DANGER]

    @property
    def blocking(self) -> bool:
        """Dangerous and not acknowledged: ``check --base`` fails."""
        return bool(self.dangers) and self.acknowledged is None

    def count(self, action: str) -> int:
        return sum(1 for r in self.changes if r.change.action == action)


def review(project: Project, base: str, flags: list[Acknowledgement] | None = None) -> list[ClusterReview]:
    """The review of every cluster with a tree at ``base`` or now, in name order."""
    root = project.root
    rev = revision.commit(root, base)
    before = revision.blobs(root, rev, "rendered")
    inputs = revision.blobs(root, rev, "clusters")
    acks = list(flags or []) + acknowledge.from_commits(revision.messages(root, rev))
    by_cluster: dict[str, dict[str, str]] = {}
    for path, blob in before.items():
        name, _, rel = path.partition("/")
        if rel:
            by_cluster.setdefault(name, {})[rel] = blob
    names = sorted(set(by_cluster) | set(_current_names(project)))
    reviews = []
    for name in names:
        now = _work_tree(project, name)
        old = by_cluster.get(name, {})
        shown = project.display(project.rendered / name)
        changes = compare(
            Side(old, functools.partial(revision.contents, root), shown),
            Side({p: i for p, (i, _) in now.items()}, functools.partial(_by_id, now), shown),
        )
        found = ClusterReview(name, [Reviewed(c, classify(c)) for c in changes])
        found.state = "new" if not old else "deleted" if not now else ""
        found.input_file = project.display(project.clusters / name / INPUT)
        if found.changes:
            found.input_line = _changed_line(project, name, inputs.get(f"{name}/{INPUT}"))
            found.acknowledged = acknowledge.covering(acks, name)
        reviews.append(found)
    return reviews


def _current_names(project: Project) -> list[str]:
    folder = project.rendered
    if not folder.is_dir() or folder.is_symlink():
        return []
    return [n for n in os.listdir(folder) if not n.startswith(".") and (folder / n).is_dir()]


def _work_tree(project: Project, name: str) -> dict[str, tuple[str, bytes]]:
    """The cluster's tree on disk: path → (blob id, bytes); empty when it has none."""
    folder = tree.current(project.rendered, name)
    if not folder.is_dir():
        return {}
    return {rel: (revision.blob_id(data), data) for rel, data in tree.read_tree(folder).items()}


def _by_id(files: dict[str, tuple[str, bytes]], ids: list[str]) -> dict[str, bytes]:
    wanted = set(ids)
    return {blob: data for blob, data in files.values() if blob in wanted}


def _changed_line(project: Project, name: str, base_blob: str | None) -> int:
    """The line of the first key of ``cluster.yaml`` that differs from the base (1 for a new input),
    0 when the input is unchanged or cannot be read (the change came from the library)."""
    from generator.errors import InputError
    from generator.review.compare import diff
    from generator.yamlio.positions import load_text

    path = project.clusters / name / INPUT
    try:
        now = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return 0
    if base_blob is None:
        return 1
    old = revision.contents(project.root, [base_blob])[base_blob].decode("utf-8", errors="replace")
    if old == now:
        return 0
    try:
        before, after = load_text(old, "base"), load_text(now, project.display(path))
    except InputError:
        return 1
    fields = diff(before.data, after.data)
    if not fields:
        return 0  # comments or layout only
    return after.position(_indexed(fields[0].path, after.data))[0]


def _indexed(path: tuple, data) -> tuple:
    """A diff path with ``[name=x]`` items turned back into list indexes, as far as ``data`` has them."""
    out: list = []
    for part in path:
        if isinstance(part, str) and part.startswith("[name=") and isinstance(data, list):
            wanted = part[len("[name=") : -1]
            index = next(
                (i for i, item in enumerate(data) if isinstance(item, dict) and item.get("name") == wanted), None
            )
            if index is None:
                break
            out.append(index)
            data = data[index]
        elif (
            isinstance(data, dict)
            and part in data
            or isinstance(data, list)
            and isinstance(part, int)
            and part < len(data)
        ):
            out.append(part)
            data = data[part]
        else:
            out.append(part)
            break
    return tuple(out)
