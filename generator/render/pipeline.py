"""What the render/check/diff commands do, as library calls the CLI only wraps.

Each cluster is handled on its own: a bad input stops that cluster (its rendered tree is left
as it was) and is reported, while the others still render.
"""

from __future__ import annotations

import functools
import gc
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from generator.errors import InputError
from generator.paths import Project
from generator.record import Record
from generator.tree import fingerprint, lock
from generator.tree import write as tree

if TYPE_CHECKING:
    from generator.diagnostic import Diagnostic
    from generator.render.cluster import Rendered
    from generator.validate import SchemaValidator

# Only the standard library is imported at the top: a run whose clusters are all up to date
# (``fingerprint.fresh``) never loads Jsonnet, YAML or JSON Schema.


class Options(Record):
    """How the clusters are rendered and validated."""

    __slots__ = _fields = ("schema_locations", "require_schemas", "config", "config_file", "flags")

    def __init__(
        self,
        schema_locations: list[str] | None = None,
        require_schemas: bool = False,
        config: dict | None = None,  # the config file's data, for the lint rules' settings
        config_file: Path | None = None,  # hashed into every cluster's sum file
        flags: str = "",  # the command line's validation flags (``fingerprint.validation_flags``)
    ):
        self.schema_locations = [] if schema_locations is None else schema_locations
        self.require_schemas = require_schemas
        self.config = {} if config is None else config
        self.config_file = config_file
        self.flags = flags


class Outcome(Record):
    """The result for one cluster: rendered output, or the input error that stopped it.

    A tree once written is not kept (``rendered`` becomes None): only what is reported about
    it, so a fleet's memory does not grow with its size."""

    __slots__ = _fields = ("name", "rendered", "error", "changes", "leftovers", "problems")

    def __init__(
        self,
        name: str,
        rendered: Rendered | None = None,
        error: InputError | None = None,
        changes: tree.Tally | None = None,  # of the tree written: counts, not paths, for a fleet's memory
        leftovers: list[str] | None = None,  # of interrupted renders, removed before writing
        problems: list[Diagnostic] | None = None,  # the rendered tree's, kept once it is written
    ):
        self.name, self.rendered, self.error, self.changes = name, rendered, error, changes
        self.leftovers = [] if leftovers is None else leftovers
        self.problems = [] if problems is None else problems


def select(project: Project, names: tuple[str, ...] | list[str]) -> list[str]:
    """The clusters a command acts on: those named, else every cluster under clusters/."""
    if names:
        from generator.inputs.load import check_cluster_name

        return [check_cluster_name(n) for n in names]
    found = project.cluster_names()
    if not found:
        raise InputError(
            "no clusters found", path=project.display(project.clusters), hint="create one with `gpu-gitops init NAME`"
        )
    return found


class Selection(Record):
    """The clusters a run acts on, and whether trees of deleted clusters are its business
    (only a run over the whole fleet, or the first CI shard, prunes or reports them)."""

    __slots__ = _fields = ("names", "covers_orphans")

    def __init__(self, names: list[str], covers_orphans: bool):
        self.names, self.covers_orphans = names, covers_orphans


def choose(
    project: Project,
    names: tuple[str, ...] | list[str],
    changed_only: bool = False,
    base: str = "HEAD",
    shard: str | None = None,
) -> Selection:
    """Clusters named, else all of them narrowed by ``--changed-only`` and ``--shard``."""
    if names and (changed_only or shard):
        raise InputError(
            "name clusters, or use --changed-only/--shard, not both",
            hint="drop the cluster names to let --changed-only or --shard choose",
        )
    chosen = select(project, names)
    covers_orphans = not names
    if changed_only or shard:
        from generator.render import selection
    if changed_only:
        from generator.inputs import bases

        everyone = chosen
        chosen = selection.affected(
            selection.changed_files(project.root, base), chosen, lambda: bases.users(project, everyone)
        )
    if shard:
        index, total = selection.parse_shard(shard)
        chosen = selection.shard(chosen, index, total)
        covers_orphans = covers_orphans and index == 1
    return Selection(chosen, covers_orphans)


@functools.lru_cache(maxsize=16)
def validator(version: str, locations: tuple[str, ...]) -> SchemaValidator:
    """One validator per (version, locations): its compiled schemas are reused by every
    cluster and every command run in this process."""
    from generator.validate import SchemaValidator
    from generator.validate.locations import SchemaLocation

    return SchemaValidator(version, [SchemaLocation(t) for t in locations])


def _validators(options: Options) -> Callable[[str], SchemaValidator]:
    from generator.validate.locations import SchemaLocation

    locations = tuple(options.schema_locations)
    for template in locations:
        SchemaLocation(template)  # report a bad template before any cluster is loaded
    return lambda version: validator(version, locations)


def render_some(
    project: Project,
    names: list[str],
    validator_for: Callable[[str], SchemaValidator],
    options: Options,
    shared: tuple[str, ...],
) -> list[Outcome]:
    """Render ``names``, evaluated together where the library allows (``evaluation.evaluate_many``).

    Each tree includes the sum file of the inputs it was rendered from (hashed before they
    are read, so an input edited meanwhile reads as changed next time; ``shared`` holds the
    hashes every cluster shares, taken once per run)."""
    from generator.inputs import load as inputs
    from generator.render import cluster as one
    from generator.render.evaluation import evaluate_many

    loaded: list[tuple[str, list[str], inputs.Cluster | InputError]] = []
    for name in names:
        hashes = fingerprint.input_lines(project, name, shared)
        try:
            loaded.append((name, hashes, inputs.load_cluster(project, name)))
        except InputError as exc:
            loaded.append((name, hashes, exc))
    clusters = [c for _, _, c in loaded if isinstance(c, inputs.Cluster)]
    evaluated = dict(zip(map(id, clusters), evaluate_many(project, clusters), strict=True))
    ok = [(c, e) for c in clusters if not isinstance(e := evaluated[id(c)], InputError)]
    syncs = dict(zip((id(c) for c, _ in ok), one.gitops_many(project, ok), strict=True))
    outcomes = []
    for name, hashes, cluster in loaded:
        try:
            if isinstance(cluster, InputError):
                raise cluster
            components = evaluated[id(cluster)]
            if isinstance(components, InputError):
                raise components
            rendered = one.render_evaluated(
                project,
                cluster,
                components,
                validator_for(cluster.spec["kubernetesVersion"]),
                options.require_schemas,
                options.config,
                syncs[id(cluster)],
            )
        except InputError as exc:
            outcomes.append(Outcome(name, error=exc))
            continue
        inputs_used = (
            hashes
            + fingerprint.base_lines(cluster.bases)
            + fingerprint.chart_lines(
                [(e.digest, e.repository, e.chart, e.version) for e in rendered.charts.entries],
                rendered.charts.unlocked,
            )
        )
        rendered.tree.files[fingerprint.SUM_FILE] = fingerprint.sum_file(inputs_used, rendered.tree.files)
        if not rendered.problems:  # a warning is printed again by every run, so never skipped
            kinds = {(str(p.obj.get("apiVersion")), str(p.obj.get("kind"))) for p in rendered.tree.placed}
            consulted = validator_for(cluster.spec["kubernetesVersion"]).consulted(kinds)
            fingerprint.record_validated(rendered.tree.files[fingerprint.SUM_FILE], options.flags, consulted)
        outcomes.append(Outcome(name, rendered=rendered, problems=rendered.problems))
    return outcomes


def render_many(
    project: Project,
    names: list[str],
    options: Options,
    jobs: int = 1,
    on_done: Callable[[Outcome], None] | None = None,
    write_trees: bool = False,
) -> list[Outcome]:
    """Render ``names``, in ``jobs`` processes when more than one; outcomes in ``names`` order.

    Clusters are independent, so a process pool renders them in parallel, a few clusters per
    task (evaluated together, ``evaluation.MANY`` at most); each worker compiles the schemas it
    needs once. The result does not depend on ``jobs``. ``on_done`` is called as each cluster
    finishes (for a progress bar). ``write_trees``: each task's clusters are written (``write``)
    as soon as they are rendered, and their trees dropped, so memory stays flat whatever the
    fleet's size.
    """
    validator_for = _validators(options)  # a bad schema location is reported before any work
    shared = fingerprint.shared_lines(project, options.config_file)
    if not names:
        return []
    # Rendering allocates millions of containers that live until their cluster is written;
    # the cycle collector's default thresholds (700, 10, 10) walk them over and over and find
    # no garbage: ~4% of a render of 100 clusters (bench/bench_render.py).
    thresholds = gc.get_threshold()
    gc.set_threshold(20_000, 50, 1000)
    try:
        if jobs <= 1 or len(names) <= 1:
            return _render_here(project, names, validator_for, options, shared, on_done, write_trees)
        return _render_in_pool(project, names, options, shared, jobs, on_done, write_trees)
    finally:
        gc.set_threshold(*thresholds)


def _render_here(
    project: Project,
    names: list[str],
    validator_for: Callable[[str], SchemaValidator],
    options: Options,
    shared: tuple[str, ...],
    on_done: Callable[[Outcome], None] | None,
    write_trees: bool,
) -> list[Outcome]:
    from generator.render.evaluation import MANY

    outcomes = []
    for start in range(0, len(names), MANY):
        some = render_some(project, names[start : start + MANY], validator_for, options, shared)
        if write_trees:
            write(project, some)
        for outcome in some:
            outcomes.append(outcome)
            if on_done:
                on_done(outcome)
    from generator.render import checkcache  # here: a no-op check never renders

    checkcache.save()
    return outcomes


def _render_in_pool(
    project: Project,
    names: list[str],
    options: Options,
    shared: tuple[str, ...],
    jobs: int,
    on_done: Callable[[Outcome], None] | None,
    write_trees: bool,
) -> list[Outcome]:
    from concurrent.futures import ProcessPoolExecutor, as_completed

    from generator.render.evaluation import MANY

    _import_render_modules()  # once here, not once per worker: the workers fork from this process
    # The workers never collect what exists now: a collection there writes to every object it
    # walks, copying the parent's pages one by one (Python's gc.freeze docs); ~6% of the CPU
    # of a parallel render of 100 clusters (bench/bench_render.py).
    gc.freeze()
    size = min(MANY, -(-len(names) // (2 * jobs)))  # two tasks per worker at least, to even out
    by_name: dict[str, Outcome] = {}
    try:
        with ProcessPoolExecutor(max_workers=min(jobs, len(names))) as pool:
            futures = [
                pool.submit(_render_in_worker, project, names[start : start + size], options, shared)
                for start in range(0, len(names), size)
            ]
            for future in as_completed(futures):
                some = future.result()
                if write_trees:  # here, not in the workers: one writer
                    write(project, some)
                for outcome in some:
                    by_name[outcome.name] = outcome
                    if on_done:
                        on_done(outcome)
    finally:
        gc.unfreeze()
    return [by_name[name] for name in names]


def _import_render_modules() -> None:
    """Import what rendering a cluster uses (the Jsonnet client, YAML, JSON Schema, the lint rules)."""
    from generator.lint import engine  # noqa: F401
    from generator.lint.rules import REGISTRY  # noqa: F401
    from generator.render import cluster  # noqa: F401
    from generator.validate import validator  # noqa: F401


def _render_in_worker(project: Project, names: list[str], options: Options, shared: tuple[str, ...]) -> list[Outcome]:
    """One pool task; ``validator``'s cache keeps compiled schemas across a worker's tasks, and
    what it checked is kept for the next runs as the task ends (a worker is never told it ends)."""
    from generator.render import checkcache

    outcomes = render_some(project, names, _validators(options), options, shared)
    checkcache.save()
    return outcomes


def write(project: Project, outcomes: list[Outcome], timeout: float = lock.DEFAULT_TIMEOUT) -> None:
    """Write every cluster that rendered without errors, holding the project's write lock."""
    todo = [o for o in outcomes if o.rendered and not o.rendered.errors]
    if not todo:
        return
    with lock.project_lock(project.rendered, project.display(project.rendered), timeout):
        for outcome in todo:
            _write_one(project, outcome)


def _write_one(project: Project, outcome: Outcome) -> None:
    """Write the cluster's tree, then let it go (``Outcome``)."""
    shown = project.display(project.rendered / outcome.name)
    rendered, outcome.rendered = outcome.rendered, None
    assert rendered is not None  # only clusters that rendered are written
    try:
        changes, outcome.leftovers = tree.write_tree(
            project.rendered, rendered.tree.cluster, rendered.tree.files, shown
        )
        outcome.changes = changes.tally()
    except tree.LeftoverError as exc:
        outcome.changes, outcome.error = exc.changes.tally(), exc
    except InputError as exc:
        outcome.error = exc
    except OSError as exc:
        # write_tree raises OSError only before its swap, and puts a moved tree back first
        outcome.error = InputError(
            f"cannot write the rendered tree: {exc.strerror or exc}",
            path=shown,
            hint="check free space and permissions; the previous tree is unchanged",
        )


def orphans(project: Project) -> list[Path]:
    """Rendered trees we own whose cluster input is gone."""
    if not project.rendered.is_dir() or project.rendered.is_symlink():
        return []
    known = set(project.cluster_names())
    unknown = [name for name in os.listdir(project.rendered) if not name.startswith(".") and name not in known]
    return sorted(p for p in (project.rendered / name for name in unknown) if p.is_dir() and tree.is_owned(p))


def prune_orphans(project: Project, timeout: float = lock.DEFAULT_TIMEOUT) -> list[Path]:
    if not orphans(project):
        return []
    import shutil

    with lock.project_lock(project.rendered, project.display(project.rendered), timeout):
        gone = orphans(project)
        for path in gone:
            shutil.rmtree(path)
    return gone


def has_tree(project: Project, name: str) -> bool:
    """Whether the cluster has a rendered tree (the one a cut swap moved aside counts)."""
    return tree.current(project.rendered, name).is_dir()


def drift(project: Project, outcome: Outcome) -> tree.Changes:
    """How the committed tree differs from what render would write now."""
    assert outcome.rendered is not None
    return tree.compare(_committed(project, outcome.name), outcome.rendered.tree.files)


def _committed(project: Project, name: str) -> dict[str, bytes]:
    """The tree render would replace (the one a cut swap moved aside, while it is missing);
    a folder render refuses to touch is an input error."""
    if project.rendered.is_symlink():
        raise InputError(
            "is a symlink; refusing to read or write through it",
            path=project.display(project.rendered),
            hint="rendered/ must be a real folder inside the project",
        )
    target = project.rendered / name
    tree.require_owned(target, project.display(target))
    current = tree.current(project.rendered, name)
    return tree.read_tree(current, project.display(current))


def sources(project: Project, outcome: Outcome) -> list[str]:
    """The input files (the cluster's, and the bases it uses) changed since its tree was
    rendered: where a diff of the tree comes from."""
    assert outcome.rendered is not None
    return fingerprint.changed_inputs(project, outcome.name, outcome.rendered.cluster.bases)


def diff_text(project: Project, outcome: Outcome) -> str:
    assert outcome.rendered is not None
    current = _committed(project, outcome.name)
    prefix = project.display(project.rendered / outcome.name)
    return tree.unified_diff(prefix, current, outcome.rendered.tree.files)
