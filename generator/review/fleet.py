"""Every cluster's review against a base revision: the rendered trees at the base (from git) and
in the work tree (from disk), compared object by object, each change classified, the cluster's
acknowledgement found, and the ``cluster.yaml`` line a change comes from where it is known.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field
from pathlib import Path

from generator.paths import Project
from generator.review import acknowledge, revision
from generator.review.acknowledge import Acknowledgement
from generator.review.compare import Change, Side, compare
from generator.review.danger import DANGER, Finding, classify_all
from generator.review.workloads import Pool
from generator.tree import fingerprint

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
    findings: list[Finding] = field(default_factory=list)  # about the cluster, not one object (stale, retired)

    @property
    def dangers(self) -> list[tuple[Reviewed, Finding]]:
        return [(r, f) for r in self.changes for f in r.findings if f.level == DANGER]

    @property
    def stale(self) -> bool:
        """The tree is not what the inputs render: no acknowledgement makes that pass."""
        return any(f.rule == "stale" for f in self.findings)

    @property
    def blocking(self) -> bool:
        """Stale, or dangerous and not acknowledged: ``check --base`` fails."""
        dangerous = bool(self.dangers) or any(f.level == DANGER for f in self.findings if f.rule != "stale")
        return self.stale or (dangerous and self.acknowledged is None)

    @property
    def danger_count(self) -> int:
        return len(self.dangers) + sum(1 for f in self.findings if f.level == DANGER)

    @property
    def reviewed(self) -> bool:
        """Anything to show: object changes, or a finding about the cluster."""
        return bool(self.changes or self.findings)

    def count(self, action: str) -> int:
        return sum(1 for r in self.changes if r.change.action == action)


def review(
    project: Project,
    base: str,
    flags: list[Acknowledgement] | None = None,
    rendered_base: Path | None = None,
    config_file: Path | None = None,
) -> list[ClusterReview]:
    """The review of every cluster with a tree at ``base`` or now, in name order.

    git says which files under ``rendered/`` differ from ``base`` (its index knows the
    unchanged ones without reading them); only those are read, from disk and, all clusters in
    one batch, from git's objects. ``rendered_base``: the base's inputs rendered anew (by
    today's tool, ``diff --render-base``) in this folder, compared instead of what ``base``
    committed. ``config_file``: the settings render reads (default ``.gpu-gitops.yaml``), for
    whether each tree is what its inputs render now."""
    root = project.root
    rev = revision.commit(root, base)
    inputs = revision.blobs(root, rev, "clusters")
    acks = list(flags or []) + acknowledge.from_commits(revision.messages(root, rev))
    wanted = []
    if rendered_base is None:
        before = revision.blobs(root, rev, "rendered")
        changed = _by_cluster(dict.fromkeys(revision.changed(root, rev, "rendered"), ""))
        wanted += [before[f"{n}/{p}"] for n, paths in changed.items() for p in paths if f"{n}/{p}" in before]
        stored: dict[str, bytes] = {}
    else:
        before, stored, changed = _against_folder(rendered_base, project.rendered)
    at_base = _by_cluster(before)
    now = {name: _read(project.rendered / name, paths) for name, paths in changed.items()}
    wanted += [inputs[f"{n}/{INPUT}"] for n in changed if f"{n}/{INPUT}" in inputs]
    stored.update(revision.contents(root, wanted))
    reviews = []
    inputs_now = project.cluster_names()
    fresh = set(fingerprint.fresh(project, inputs_now, config_file or root / ".gpu-gitops.yaml", validated=False))
    for name in sorted(set(at_base) | set(_current_names(project)) | set(inputs_now)):
        paths = changed.get(name, {})
        old = {p: at_base[name][p] for p in paths if p in at_base.get(name, {})}
        new = now.get(name, {})
        shown = project.display(project.rendered / name)
        changes = compare(
            Side(old, functools.partial(_pick, stored), shown),
            Side({p: i for p, (i, _) in new.items()}, functools.partial(_by_id, new), shown),
        )
        pools = _pools(project, name) if changes else ()
        found = ClusterReview(
            name,
            _once_per_cluster([Reviewed(c, f) for c, f in zip(changes, classify_all(changes, pools), strict=True)]),
        )
        found.state = "new" if name not in at_base else "deleted" if not (project.rendered / name).is_dir() else ""
        found.input_file = project.display(project.clusters / name / INPUT)
        found.findings = _cluster_findings(project, name, name in inputs_now, name in fresh, name in at_base)
        if found.reviewed:
            base_input = inputs.get(f"{name}/{INPUT}")
            found.input_line = _changed_line(project, name, stored.get(base_input) if base_input else None)
            found.acknowledged = acknowledge.covering(acks, name)
        reviews.append(found)
    return reviews


def _once_per_cluster(reviewed: list[Reviewed]) -> list[Reviewed]:
    """The version a tree is rendered for shows on every Namespace: say it once."""
    said: set[str] = set()
    for r in reviewed:
        kept = []
        for f in r.findings:
            if f.rule == "version" and f.reason in said:
                continue
            said.add(f.reason)
            kept.append(f)
        r.findings = kept
    return reviewed


def _cluster_findings(project: Project, name: str, has_input: bool, fresh: bool, committed: bool) -> list[Finding]:
    """What is wrong with the cluster as a whole: a tree that is not what its inputs render (not
    rendered again after a change, or they do not render), or a tree whose input is gone
    (the cluster retired or renamed)."""
    if has_input and not fresh:
        return [
            Finding(
                DANGER,
                f"rendered/{name} is stale or broken: its inputs (or the library, schemas, settings or tool) "
                "changed and it was not rendered again, or they do not render; the review shows the old tree, "
                f"not what the change does (`gpu-gitops render {name}`, then commit)",
                "stale",
            )
        ]
    if not has_input and committed:
        return [
            Finding(
                DANGER,
                f"clusters/{name} is gone (retired or renamed): the engine of that cluster is bootstrapped on "
                f"rendered/{name}/gitops, so it stops receiving changes, and once that tree is gone it prunes "
                "everything it applied",
                "retired",
            )
        ]
    return []


def _pools(project: Project, name: str) -> tuple[Pool, ...]:
    """The node pools ``clusters/<name>/cluster.yaml`` declares (name, nodeSelector, taints, GPU
    nodes), for the nodes a rollout reaches; none when it cannot be read (the review goes on)."""
    from generator.errors import InputError
    from generator.yamlio.positions import load_file

    try:
        data = load_file(project.clusters / name / INPUT).data
    except (InputError, OSError):
        return ()
    pools = []
    for pool in (data.get("nodePools") if isinstance(data, dict) else None) or []:
        if isinstance(pool, dict) and pool.get("name"):
            gpu = pool["gpu"] if isinstance(pool.get("gpu"), dict) else {}
            pools.append(
                Pool(
                    str(pool["name"]),
                    dict(pool.get("nodeSelector") or {}),
                    tuple(t for t in pool.get("taints") or [] if isinstance(t, dict)),
                    int(gpu.get("nodes") or 0) if str(gpu.get("nodes") or 0).isdigit() else 0,
                )
            )
    return tuple(pools)


def _against_folder(base: Path, rendered: Path) -> tuple[dict[str, str], dict[str, bytes], dict[str, dict[str, str]]]:
    """Blob ids and bytes of every file under ``base``, and the files that differ from ``rendered``."""
    from generator.tree.write import read_tree

    old, new = read_tree(base), read_tree(rendered)
    ids = {path: revision.blob_id(data) for path, data in old.items()}
    differ = {p: "" for p in old.keys() | new.keys() if old.get(p) != new.get(p)}
    return ids, {ids[p]: old[p] for p in old}, _by_cluster(differ)


def _by_cluster(paths: dict[str, str]) -> dict[str, dict[str, str]]:
    """``<cluster>/<rel>`` → value, grouped: cluster → rel → value."""
    out: dict[str, dict[str, str]] = {}
    for path, value in paths.items():
        name, _, rel = path.partition("/")
        if rel and not name.startswith("."):
            out.setdefault(name, {})[rel] = value
    return out


def _current_names(project: Project) -> list[str]:
    folder = project.rendered
    if not folder.is_dir() or folder.is_symlink():
        return []
    return [n for n in os.listdir(folder) if not n.startswith(".") and (folder / n).is_dir()]


def _read(folder: Path, paths: dict[str, str]) -> dict[str, tuple[str, bytes]]:
    """The files of ``paths`` that exist in ``folder``: path → (blob id, bytes)."""
    out = {}
    for rel in paths:
        try:
            data = (folder / rel).read_bytes()
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            continue
        out[rel] = (revision.blob_id(data), data)
    return out


def _pick(stored: dict[str, bytes], ids: list[str]) -> dict[str, bytes]:
    return {i: stored[i] for i in ids}


def _by_id(files: dict[str, tuple[str, bytes]], ids: list[str]) -> dict[str, bytes]:
    wanted = set(ids)
    return {blob: data for blob, data in files.values() if blob in wanted}


def _changed_line(project: Project, name: str, base_input: bytes | None) -> int:
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
    if base_input is None:
        return 1
    old = base_input.decode("utf-8", errors="replace")
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
