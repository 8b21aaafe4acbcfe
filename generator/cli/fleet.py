"""``render``, ``check`` and ``diff``: the commands that render a fleet's clusters.

Exit codes: ``render`` 0, or 2 when an input or a rendered object has an error; ``check`` 1
when ``rendered/`` is stale or invalid; ``diff`` 1 when render would change something.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import click

from generator import __version__
from generator.cli.common import (
    EXIT_FINDINGS,
    EXIT_INPUT,
    EXIT_OK,
    Context,
    clusters_argument,
    finish,
    fleet_options,
    jobs_option,
    reports_input_errors,
    schema_location_option,
    unchecked_summary,
)

if TYPE_CHECKING:
    from generator.render import pipeline


@dataclass
class FleetArgs:
    """What render and check act on: the clusters (default: all), validation and selection."""

    ctx: Context
    clusters: tuple[str, ...] = ()
    schema_locations: tuple[str, ...] = ()
    require_schemas: bool = False
    jobs: int | None = None  # default: the CPUs this process may use
    changed_only: bool = False
    base: str = "HEAD"
    shard: str | None = None  # "I/N"


class RenderArgs(FleetArgs):
    """``gpu-gitops render``'s arguments."""


class CheckArgs(FleetArgs):
    """``gpu-gitops check``'s arguments."""


@dataclass
class DiffArgs:
    """``gpu-gitops diff``'s arguments (all clusters are compared: no selection)."""

    ctx: Context
    clusters: tuple[str, ...] = ()
    schema_locations: tuple[str, ...] = ()
    jobs: int | None = None
    fmt: str = "text"  # or "markdown"


def _render_all(ctx: Context, names: list[str], options: pipeline.Options, jobs: int | None) -> list[pipeline.Outcome]:
    """Render with a progress bar on a terminal, on every available CPU unless ``jobs`` says."""
    from generator import cpus
    from generator.progress import Progress, wanted
    from generator.render import pipeline

    jobs = jobs or cpus.available()
    show = wanted(ctx.ui.quiet, len(names))
    with Progress(len(names), "rendering", show, ctx.ui.color) as progress:
        return pipeline.render_many(ctx.project, names, options, jobs=jobs, on_done=progress)


def _report(ctx: Context, outcomes: list[pipeline.Outcome]) -> bool:
    """Print every input error and rendered-object problem; True when any is an error."""
    if not outcomes:
        return False  # nothing was rendered: a clean no-op run imports nothing more
    from generator.inputs.bases import once_per_base
    from generator.validate import schemaset

    found = [(o.name, d) for o in outcomes for d in [*(o.error.diagnostics if o.error else []), *o.problems]]
    failed = any(o.error for o in outcomes)
    unchecked: set[str] = set()
    for problem in once_per_base(found):  # a problem in a base shared by many clusters: once
        failed |= problem.severity == "error"
        if problem.rule == "K8S004" and problem.severity == "warning" and not ctx.ui.verbose:
            unchecked.add(f"{problem.ref.kind} ({problem.ref.api_version})")  # summed up below, once a run
        elif problem.severity == "error" or not ctx.ui.quiet:
            ctx.ui.diagnostic(problem)
    if unchecked and not ctx.ui.quiet:
        ctx.ui.diagnostic(unchecked_summary(sorted(unchecked)))
    synced = schemaset.installed()
    if synced is not None and not ctx.ui.quiet:
        click.echo(f"custom resources checked against schema set {synced.version} ({synced.folder})", err=True)
    return failed


@reports_input_errors
def render(args: RenderArgs) -> int:
    """Render the clusters into ``rendered/<cluster>/``; a cluster with errors keeps its old tree."""
    ctx = args.ctx
    ctx.require_project()
    from generator.inputs.scaffold import stale_editor_schema, write_editor_schema
    from generator.render import pipeline

    chosen = pipeline.choose(ctx.project, args.clusters, args.changed_only, args.base, args.shard)
    fresh = ctx.fresh(chosen.names, args.schema_locations, args.require_schemas, for_render=True)
    todo = [n for n in chosen.names if n not in fresh]
    outcomes = (
        _render_all(ctx, todo, ctx.options(args.schema_locations, args.require_schemas), args.jobs) if todo else []
    )
    pipeline.write(ctx.project, outcomes)
    failed = _report(ctx, outcomes)
    for name in fresh:
        ctx.ui.out(f"{name}: up to date")
    for outcome in outcomes:
        for leftover in outcome.leftovers:
            ctx.ui.out(f"{outcome.name}: removed rendered/{leftover}, left by an interrupted render")
        if outcome.changes is not None:
            c = outcome.changes
            if c.empty:
                ctx.ui.out(f"{outcome.name}: up to date")
            else:
                ctx.ui.out(f"{outcome.name}: {len(c.added)} added, {len(c.changed)} changed, {len(c.removed)} removed")
    if chosen.covers_orphans and not failed:
        for path in pipeline.prune_orphans(ctx.project):
            ctx.ui.out(f"removed {ctx.project.display(path)}: its cluster input is gone")
    if stale_editor_schema(ctx.project):
        path = write_editor_schema(ctx.project)
        ctx.ui.out(f"updated {ctx.project.display(path)}: the input schema of this gpu-gitops, for editors")
    return EXIT_INPUT if failed else EXIT_OK


@reports_input_errors
def check(args: CheckArgs) -> int:
    """1 when ``rendered/`` is not what render produces now, or does not pass its checks."""
    ctx = args.ctx
    ctx.require_project()
    from generator.inputs.scaffold import EDITOR_SCHEMA, stale_editor_schema
    from generator.render import pipeline

    chosen = pipeline.choose(ctx.project, args.clusters, args.changed_only, args.base, args.shard)
    fresh = ctx.fresh(chosen.names, args.schema_locations, args.require_schemas)
    todo = [n for n in chosen.names if n not in fresh]
    outcomes = (
        _render_all(ctx, todo, ctx.options(args.schema_locations, args.require_schemas), args.jobs) if todo else []
    )
    if _report(ctx, [o for o in outcomes if o.error]):
        return EXIT_INPUT
    invalid = _report(ctx, outcomes)
    stale = False
    for outcome in outcomes:
        changes = pipeline.drift(ctx.project, outcome)
        prefix = ctx.project.display(ctx.project.rendered / outcome.name)
        for rel in changes.changed:
            click.echo(f"{prefix}/{rel}: stale: differs from what render produces", err=True)
        for rel in changes.added:
            click.echo(f"{prefix}/{rel}: stale: missing, render would create it", err=True)
        for rel in changes.removed:
            click.echo(f"{prefix}/{rel}: stale: not produced by render any more", err=True)
        stale |= not changes.empty
    if chosen.covers_orphans:
        for path in pipeline.orphans(ctx.project):
            click.echo(f"{ctx.project.display(path)}: stale: its cluster input is gone", err=True)
            stale = True
    if stale_editor_schema(ctx.project):
        click.echo(
            f"{ctx.project.display(ctx.project.root / EDITOR_SCHEMA)}: stale: not the input schema of "
            f"this gpu-gitops ({__version__})",
            err=True,
        )
        stale = True
    if stale:
        click.echo(
            "rendered/ is out of date: run `gpu-gitops render` and commit the result "
            "(`gpu-gitops diff` shows the changes)",
            err=True,
        )
    if invalid:
        click.echo("rendered/ does not pass its checks: fix the errors above", err=True)
    if stale or invalid:
        return EXIT_FINDINGS
    ctx.ui.out(f"{len(chosen.names)} cluster(s) up to date")
    return EXIT_OK


@reports_input_errors
def diff(args: DiffArgs) -> int:
    """Print what render would change (a unified diff, or a Markdown summary); 1 when it would."""
    ctx = args.ctx
    ctx.require_project()
    from generator.render import pipeline
    from generator.tree.diffsummary import ClusterDiff, markdown

    options = ctx.options(args.schema_locations, False)
    names = pipeline.select(ctx.project, args.clusters)
    outcomes = _render_all(ctx, names, options, args.jobs)
    if _report(ctx, [o for o in outcomes if o.error]):
        return EXIT_INPUT
    found = [
        ClusterDiff(
            o.name, pipeline.drift(ctx.project, o), pipeline.diff_text(ctx.project, o), pipeline.sources(ctx.project, o)
        )
        for o in outcomes
    ]
    changed = any(not c.changes.empty for c in found)
    if args.fmt == "markdown":
        click.echo(markdown(found), nl=False)
    elif not changed:
        ctx.ui.out(f"no changes: rendered/ matches the inputs of {len(found)} cluster(s)")
    else:
        for cluster in found:
            if cluster.inputs and not cluster.changes.empty:
                ctx.ui.out(f"{cluster.name}: from changes to {', '.join(cluster.inputs)}", bold=True)
            for line in cluster.diff.splitlines():
                style = {"+": "green", "-": "red", "@": "cyan"}.get(line[:1])
                click.secho(line, fg=None if line.startswith(("+++", "---")) else style, color=ctx.ui.color)
    return EXIT_FINDINGS if changed else EXIT_OK


# --- parsing ---------------------------------------------------------------------------------


@click.command(name="render")
@fleet_options
@click.pass_obj
def render_command(ctx: Context, **options):
    """Render clusters (default: all) into rendered/<cluster>/.

    Every object is schema-validated before anything is written; a cluster with errors keeps
    its previous tree.

    \b
    Examples:
      gpu-gitops render aks-h100-training
      gpu-gitops render --jobs 8
    """
    finish(render(RenderArgs(ctx, **options)))


@click.command(name="check")
@fleet_options
@click.pass_obj
def check_command(ctx: Context, **options):
    """Fail (exit 1) if rendered/ is stale or invalid; for CI and pre-commit.

    \b
    Examples:
      gpu-gitops check || gpu-gitops diff
      gpu-gitops check --changed-only --base origin/main
      gpu-gitops check --shard 2/4 --jobs 2
    """
    finish(check(CheckArgs(ctx, **options)))


@click.command(name="diff")
@clusters_argument
@schema_location_option
@jobs_option
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "markdown"]),
    default="text",
    show_default=True,
    help="text: a unified diff; markdown: per cluster and layer, the added, changed and removed "
    "files, then the diff in fenced blocks (a pull-request comment or GitHub step summary).",
)
@click.pass_obj
def diff_command(ctx: Context, **options):
    """Show what render would change, without writing. Exit 1 when there are changes.

    \b
    Examples:
      gpu-gitops diff aks-h100-training
      gpu-gitops diff --format markdown >> "$GITHUB_STEP_SUMMARY"
    """
    finish(diff(DiffArgs(ctx, **options)))


COMMANDS = (render_command, check_command, diff_command)
