"""What the render/check/diff commands do, as library calls the CLI only wraps.

Each cluster is handled on its own: a bad input stops that cluster (its rendered tree is left
as it was) and is reported, while the others still render.
"""

from __future__ import annotations

import functools
import shutil
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

from generator import inputs, output, selection
from generator.errors import InputError
from generator.paths import Project
from generator.render import Problem, Rendered, render
from generator.validate import SchemaValidator
from generator.validate.locations import SchemaLocation


@dataclass
class Options:
    schema_locations: list[str] = field(default_factory=list)
    require_schemas: bool = False
    config: dict = field(default_factory=dict)  # the config file's data, for the lint rules' settings


@dataclass
class Outcome:
    """The result for one cluster: rendered output, or the input error that stopped it."""

    name: str
    rendered: Rendered | None = None
    error: InputError | None = None
    changes: output.Changes | None = None

    @property
    def problems(self) -> list[Problem]:
        return self.rendered.problems if self.rendered else []


def select(project: Project, names: tuple[str, ...] | list[str]) -> list[str]:
    """The clusters a command acts on: those named, else every cluster under clusters/."""
    if names:
        return [inputs.check_cluster_name(n) for n in names]
    found = inputs.discover(project)
    if not found:
        raise InputError("no clusters found", path=project.display(project.clusters),
                         hint="create one with `gpu-gitops init NAME`")
    return found


@dataclass
class Selection:
    """The clusters a run acts on, and whether trees of deleted clusters are its business
    (only a run over the whole fleet, or the first CI shard, prunes or reports them)."""

    names: list[str]
    covers_orphans: bool


def choose(project: Project, names: tuple[str, ...] | list[str], changed_only: bool = False, base: str = "HEAD",
           shard: str | None = None) -> Selection:
    """Clusters named, else all of them narrowed by ``--changed-only`` and ``--shard``."""
    if names and (changed_only or shard):
        raise InputError("name clusters, or use --changed-only/--shard, not both",
                         hint="drop the cluster names to let --changed-only or --shard choose")
    chosen = select(project, names)
    covers_orphans = not names
    if changed_only:
        chosen = selection.affected(selection.changed_files(project.root, base), chosen)
    if shard:
        index, total = selection.parse_shard(shard)
        chosen = selection.shard(chosen, index, total)
        covers_orphans = covers_orphans and index == 1
    return Selection(chosen, covers_orphans)


@functools.lru_cache(maxsize=16)
def validator(version: str, locations: tuple[str, ...]) -> SchemaValidator:
    """One validator per (version, locations): its compiled schemas are reused by every
    cluster and every command run in this process."""
    return SchemaValidator(version, [SchemaLocation(t) for t in locations])


def _validators(options: Options):
    locations = tuple(options.schema_locations)
    for template in locations:
        SchemaLocation(template)  # report a bad template before any cluster is loaded
    return lambda version: validator(version, locations)


def render_one(project: Project, name: str, validator_for, options: Options) -> Outcome:
    try:
        cluster = inputs.load_cluster(project, name)
        rendered = render(project, cluster, validator_for(cluster.spec["kubernetesVersion"]), options.require_schemas,
                          options.config)
    except InputError as exc:
        return Outcome(name, error=exc)
    return Outcome(name, rendered=rendered)


def render_many(project: Project, names: list[str], options: Options, jobs: int = 1,
                on_done: Callable[[Outcome], None] | None = None) -> list[Outcome]:
    """Render ``names``, in ``jobs`` processes when more than one; outcomes in ``names`` order.

    Clusters are independent, so a process pool renders them in parallel; each worker compiles
    the schemas it needs once. The result does not depend on ``jobs``. ``on_done`` is called
    as each cluster finishes (for a progress bar).
    """
    validator_for = _validators(options)  # a bad schema location is reported before any work
    if jobs <= 1 or len(names) <= 1:
        outcomes = []
        for name in names:
            outcomes.append(render_one(project, name, validator_for, options))
            if on_done:
                on_done(outcomes[-1])
        return outcomes
    by_name: dict[str, Outcome] = {}
    with ProcessPoolExecutor(max_workers=min(jobs, len(names))) as pool:
        futures = [pool.submit(_render_in_worker, project, name, options) for name in names]
        for future in as_completed(futures):
            outcome = future.result()
            by_name[outcome.name] = outcome
            if on_done:
                on_done(outcome)
    return [by_name[name] for name in names]


def _render_in_worker(project: Project, name: str, options: Options) -> Outcome:
    """One pool task; ``validator``'s cache keeps compiled schemas across a worker's tasks."""
    return render_one(project, name, _validators(options), options)


def write(project: Project, outcomes: list[Outcome]) -> None:
    """Write every cluster that rendered without errors."""
    for outcome in outcomes:
        if outcome.rendered and not outcome.rendered.errors:
            shown = project.display(project.rendered / outcome.name)
            try:
                if project.rendered.exists() and not project.rendered.is_dir():
                    raise InputError("is not a folder", path=project.display(project.rendered),
                                     hint="rendered/ holds the rendered clusters; move the file away")
                outcome.changes = output.write_tree(project.rendered, outcome.rendered.tree, shown)
            except InputError as exc:
                outcome.error = exc
            except OSError as exc:
                outcome.error = InputError(f"cannot write the rendered tree: {exc.strerror or exc}", path=shown,
                                           hint="check free space and permissions; the previous tree is unchanged")


def orphans(project: Project) -> list[Path]:
    """Rendered trees we own whose cluster input is gone."""
    if not project.rendered.is_dir():
        return []
    known = set(inputs.discover(project))
    return sorted(
        p for p in project.rendered.iterdir()
        if p.is_dir() and not p.name.startswith(".") and p.name not in known and output.is_owned(p)
    )


def prune_orphans(project: Project) -> list[Path]:
    gone = orphans(project)
    for path in gone:
        shutil.rmtree(path)
    return gone


def drift(project: Project, outcome: Outcome) -> output.Changes:
    """How the committed tree differs from what render would write now."""
    assert outcome.rendered is not None
    return output.compare(_committed(project, outcome.name), outcome.rendered.tree.files)


def _committed(project: Project, name: str) -> dict[str, bytes]:
    """The tree render would replace; a folder render refuses to touch is an input error."""
    target = project.rendered / name
    if not output.is_owned(target):
        raise InputError("exists but was not written by gpu-gitops", path=project.display(target),
                         hint="move it away; render refuses to replace it")
    return output.read_tree(target)


def diff_text(project: Project, outcome: Outcome) -> str:
    assert outcome.rendered is not None
    current = _committed(project, outcome.name)
    prefix = project.display(project.rendered / outcome.name)
    return output.unified_diff(prefix, current, outcome.rendered.tree.files)
