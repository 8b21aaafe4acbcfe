"""What the render/check/diff commands do, as library calls the CLI only wraps.

Each cluster is handled on its own: a bad input stops that cluster (its rendered tree is left
as it was) and is reported, while the others still render.
"""

from __future__ import annotations

import functools
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from generator import inputs, output
from generator.errors import InputError
from generator.paths import Project
from generator.render import Problem, Rendered, render
from generator.validate import SchemaValidator
from generator.validate.locations import SchemaLocation


@dataclass
class Options:
    schema_locations: list[str] = field(default_factory=list)
    require_schemas: bool = False


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
        rendered = render(project, cluster, validator_for(cluster.spec["kubernetesVersion"]), options.require_schemas)
    except InputError as exc:
        return Outcome(name, error=exc)
    return Outcome(name, rendered=rendered)


def render_many(project: Project, names: list[str], options: Options) -> list[Outcome]:
    validator_for = _validators(options)
    return [render_one(project, name, validator_for, options) for name in names]


def write(project: Project, outcomes: list[Outcome]) -> None:
    """Write every cluster that rendered without errors."""
    for outcome in outcomes:
        if outcome.rendered and not outcome.rendered.errors:
            try:
                outcome.changes = output.write_tree(project.rendered, outcome.rendered.tree)
            except InputError as exc:
                outcome.error = exc


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
    current = output.read_tree(project.rendered / outcome.name)
    return output.compare(current, outcome.rendered.tree.files)


def diff_text(project: Project, outcome: Outcome) -> str:
    assert outcome.rendered is not None
    current = output.read_tree(project.rendered / outcome.name)
    prefix = project.display(project.rendered / outcome.name)
    return output.unified_diff(prefix, current, outcome.rendered.tree.files)
