"""``render``, ``check`` and ``diff``: the commands that render a fleet's clusters.

Exit codes: ``render`` 0, or 2 when an input or a rendered object has an error; ``check`` 1
when ``rendered/`` is stale or invalid; ``diff`` 1 when render would change something.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import click

from generator import __version__
from generator.cli.common import (
    EXIT_FINDINGS,
    EXIT_INPUT,
    EXIT_OK,
    Context,
    finish,
    reports_in_format,
    reports_input_errors,
    unchecked_summary,
)
from generator.cli.options import clusters_argument, fleet_options, jobs_option, schema_location_option
from generator.diagnostic import Diagnostic, Location
from generator.errors import InputError
from generator.record import Record

if TYPE_CHECKING:
    from generator.render import pipeline
    from generator.review.acknowledge import Acknowledgement


class FleetArgs(Record):
    """What render and check act on: the clusters (default: all), validation and selection."""

    _fields: tuple[str, ...] = (
        "ctx",
        "clusters",
        "schema_locations",
        "require_schemas",
        "jobs",
        "full",
        "changed_only",
        "base",
        "shard",
        "fmt",
    )

    def __init__(
        self,
        ctx: Context,
        clusters: tuple[str, ...] = (),
        schema_locations: tuple[str, ...] = (),
        require_schemas: bool = False,
        jobs: int | None = None,  # default: the CPUs this process may use
        full: bool = False,  # evaluate every chosen cluster, fresh or not
        changed_only: bool = False,
        base: str | None = None,  # --changed-only's base (default HEAD); check: the revision to review against
        shard: str | None = None,  # "I/N"
        fmt: str = "text",  # or "github", "sarif", "json": how errors are reported
    ):
        self.ctx, self.clusters, self.schema_locations = ctx, clusters, schema_locations
        self.require_schemas, self.jobs, self.full = require_schemas, jobs, full
        self.changed_only, self.base, self.shard, self.fmt = changed_only, base, shard, fmt


class RenderArgs(FleetArgs):
    """``gpu-gitops render``'s arguments."""

    command: ClassVar[str] = "render"
    _fields = (*FleetArgs._fields, "prune")

    def __init__(
        self,
        ctx: Context,
        clusters: tuple[str, ...] = (),
        schema_locations: tuple[str, ...] = (),
        require_schemas: bool = False,
        jobs: int | None = None,
        full: bool = False,
        changed_only: bool = False,
        base: str | None = None,
        shard: str | None = None,
        fmt: str = "text",
        prune: bool = False,
    ):
        super().__init__(ctx, clusters, schema_locations, require_schemas, jobs, full, changed_only, base, shard, fmt)
        self.prune = prune  # remove the trees of deleted clusters (else only with `prune: true` in the config)


class CheckArgs(FleetArgs):
    """``gpu-gitops check``'s arguments."""

    command: ClassVar[str] = "check"
    _fields = (*FleetArgs._fields, "staged", "allow_destroy")

    def __init__(
        self,
        ctx: Context,
        clusters: tuple[str, ...] = (),
        schema_locations: tuple[str, ...] = (),
        require_schemas: bool = False,
        jobs: int | None = None,
        full: bool = False,
        changed_only: bool = False,
        base: str | None = None,
        shard: str | None = None,
        fmt: str = "text",
        staged: bool = False,
        allow_destroy: tuple[str, ...] = (),
    ):
        super().__init__(ctx, clusters, schema_locations, require_schemas, jobs, full, changed_only, base, shard, fmt)
        self.staged = staged  # check what git's index holds, not the work tree
        self.allow_destroy = allow_destroy  # "CLUSTER: REASON" acknowledgements, with --base


class DiffArgs(Record):
    """``gpu-gitops diff``'s arguments (all clusters are compared: no selection)."""

    _fields = ("ctx", "clusters", "schema_locations", "jobs", "fmt", "base", "allow_destroy", "render_base")

    def __init__(
        self,
        ctx: Context,
        clusters: tuple[str, ...] = (),
        schema_locations: tuple[str, ...] = (),
        jobs: int | None = None,
        fmt: str = "text",  # or "markdown"; with --base also "json", "github"
        base: str | None = None,  # review the rendered objects against this revision instead of rendering
        allow_destroy: tuple[str, ...] = (),
        render_base: bool = False,  # with base: render the base's inputs with this gpu-gitops instead of reading its rendered/
    ):
        self.ctx, self.clusters, self.schema_locations, self.jobs = ctx, clusters, schema_locations, jobs
        self.fmt, self.base, self.allow_destroy, self.render_base = fmt, base, allow_destroy, render_base


def _render_all(
    ctx: Context, names: list[str], options: pipeline.Options, jobs: int | None, write_trees: bool = False
) -> list[pipeline.Outcome]:
    """Render with a progress bar on a terminal, on every available CPU unless ``jobs`` says;
    ``write_trees``: each cluster is written as it is rendered (``pipeline.render_many``)."""
    from generator import cpus
    from generator.progress import Progress, wanted
    from generator.render import pipeline

    jobs = jobs or cpus.available()
    show = wanted(ctx.ui.quiet, len(names))
    with Progress(len(names), "rendering", show, ctx.ui.color) as progress:
        return pipeline.render_many(ctx.project, names, options, jobs=jobs, on_done=progress, write_trees=write_trees)


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
    for outcome in outcomes:
        if outcome.error is not None:
            ctx.ui.detail(outcome.error)
    if unchecked and not ctx.ui.quiet:
        ctx.ui.diagnostic(unchecked_summary(sorted(unchecked)))
    synced = schemaset.installed()
    if synced is not None and not ctx.ui.quiet:
        click.echo(f"custom resources checked against schema set {synced.version} ({synced.folder})", err=True)
    return failed


@reports_in_format
@reports_input_errors
def render(args: RenderArgs) -> int:
    """Render the clusters into ``rendered/<cluster>/``; a cluster with errors keeps its old tree."""
    ctx = args.ctx
    ctx.require_project()
    from generator.inputs.scaffold import stale_editor_schema, write_editor_schema
    from generator.render import pipeline

    chosen = pipeline.choose(ctx.project, args.clusters, args.changed_only, args.base or "HEAD", args.shard)
    fresh = ctx.fresh(chosen.names, args.schema_locations, args.require_schemas, for_render=True, full=args.full)
    todo = [n for n in chosen.names if n not in fresh]
    options = ctx.options(args.schema_locations, args.require_schemas)
    outcomes = _render_all(ctx, todo, options, args.jobs, write_trees=True) if todo else []
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
                ctx.ui.out(f"{outcome.name}: {c.added} added, {c.changed} changed, {c.removed} removed")
    if chosen.covers_orphans and not failed:
        _orphans(ctx, args.prune)
    if stale_editor_schema(ctx.project):
        path = write_editor_schema(ctx.project)
        ctx.ui.out(f"updated {ctx.project.display(path)}: the input schema of this gpu-gitops, for editors")
    return EXIT_INPUT if failed else EXIT_OK


def _orphans(ctx: Context, prune: bool) -> None:
    """Trees whose cluster folder is gone: removed only when asked (``--prune`` or ``prune: true``),
    since the engine then deletes every object of the cluster; otherwise kept, with a warning."""
    from generator.render import pipeline

    found = pipeline.orphans(ctx.project)
    if not found:
        return
    if prune or _config_prunes(ctx):
        for path in pipeline.prune_orphans(ctx.project):
            ctx.ui.out(f"removed {ctx.project.display(path)}: its cluster folder is gone (--prune)")
        return
    for path in found:
        ctx.ui.diagnostic(
            Diagnostic(
                Location(ctx.project.display(path)),
                "warning",
                f"kept: its cluster folder clusters/{path.name}/ is gone",
                "`gpu-gitops render --prune` removes it (the GitOps engine then deletes the cluster's objects); "
                "restore the folder if it was not meant",
            )
        )


def _config_prunes(ctx: Context) -> bool:
    from generator.config import load_config

    return load_config(ctx.project, ctx.config_path).prune


@reports_in_format
@reports_input_errors
def check(args: CheckArgs) -> int:
    """1 when ``rendered/`` is not what render produces now, does not pass its checks, is not
    tracked by git, or (with ``--base``) holds a dangerous change not acknowledged."""
    if args.allow_destroy and not args.base:
        raise InputError("--allow-destroy acknowledges what --base reviews", hint="add --base REV, e.g. origin/main")
    if args.staged:
        if args.base:
            raise InputError("--staged and --base do not go together", hint="review the change with `check --base REV`")
        return _check_staged(args)
    ctx = args.ctx
    ctx.require_project()
    from generator.inputs.scaffold import EDITOR_SCHEMA, stale_editor_schema
    from generator.render import pipeline

    chosen = pipeline.choose(ctx.project, args.clusters, args.changed_only, args.base or "HEAD", args.shard)
    fresh = ctx.fresh(chosen.names, args.schema_locations, args.require_schemas, full=args.full)
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
        if (
            changes.added
            and not changes.changed
            and not changes.removed
            and not pipeline.has_tree(ctx.project, outcome.name)
        ):
            ctx.ui.problem(prefix, f"stale: missing, render would create its {len(changes.added)} file(s)")
            stale = True
            continue
        for rel in changes.changed:
            ctx.ui.problem(f"{prefix}/{rel}", "stale: differs from what render produces")
        for rel in changes.added:
            ctx.ui.problem(f"{prefix}/{rel}", "stale: missing, render would create it")
        for rel in changes.removed:
            ctx.ui.problem(f"{prefix}/{rel}", "stale: not produced by render any more")
        stale |= not changes.empty
    if chosen.covers_orphans:
        for path in pipeline.orphans(ctx.project):
            ctx.ui.problem(
                ctx.project.display(path),
                f"stale: its cluster folder clusters/{path.name}/ is gone (`gpu-gitops render --prune` removes it)",
            )
            stale = True
    untracked = _untracked(ctx, chosen.names, all_fresh=not todo)
    if stale_editor_schema(ctx.project):
        ctx.ui.problem(
            ctx.project.display(ctx.project.root / EDITOR_SCHEMA),
            f"stale: not the input schema of this gpu-gitops ({__version__})",
        )
        stale = True
    dangerous = _review_gate(ctx, args.base, args.allow_destroy, chosen) if args.base else False
    if stale:
        click.echo(
            "rendered/ is out of date: run `gpu-gitops render` and commit the result "
            "(`gpu-gitops diff` shows the changes)",
            err=True,
        )
    if invalid:
        click.echo("rendered/ does not pass its checks: fix the errors above", err=True)
    if untracked:
        click.echo("rendered/ is not committed with its inputs: `git add rendered/` and commit", err=True)
    if dangerous:
        click.echo(
            f"the change deletes or breaks things on a cluster (above); `gpu-gitops diff --base {args.base}` "
            "shows it all; acknowledge what is meant (docs/gitops.md)",
            err=True,
        )
    if stale or invalid or untracked or dangerous:
        return EXIT_FINDINGS
    ctx.ui.out(f"{len(chosen.names)} cluster(s) up to date")
    return EXIT_OK


def _untracked(ctx: Context, names: list[str], all_fresh: bool) -> bool:
    """Report the chosen clusters' rendered files git does not track (a new cluster committed
    without its output, or ``rendered/`` ignored): the engine would never see them. Outside a
    git checkout there is nothing to say. When every chosen tree is up to date (``all_fresh``),
    a clean answer is remembered by the index and the sum files (``tree.tracked``)."""
    from generator.paths import SUM_FILE
    from generator.tree import tracked

    sums = [str(ctx.project.rendered / name / SUM_FILE) for name in names]
    now = tracked.state(ctx.project.root, sums) if all_fresh and ctx.remember else None
    if tracked.known_clean(ctx.project.root, now) or tracked.outside_git(ctx.project.root):
        return False  # outside a checkout git would only fail
    from generator.review import revision

    try:  # one git process: outside a checkout (or without git) it fails
        listed = revision.untracked(ctx.project.root, "rendered")
    except InputError:
        return False
    chosen = set(names)
    found: dict[str, int] = {}
    for rel in listed:
        name = rel.split("/", 1)[0]
        if name in chosen:
            found[name] = found.get(name, 0) + 1
    for name, count in sorted(found.items()):
        ctx.ui.problem(
            ctx.project.display(ctx.project.rendered / name),
            f"not tracked by git: {count} file(s) the engine will never see (`git add rendered/{name}`)",
        )
    if not found:
        tracked.remember_clean(ctx.project.root, now)
    return bool(found)


def _review_gate(ctx: Context, base: str, allow_destroy: tuple[str, ...], chosen: pipeline.Selection) -> bool:
    """``check --base``: every dangerous change as an error (a warning once acknowledged), every
    notice as info; True when a danger is not acknowledged. Only the chosen clusters are
    reviewed, and deleted ones by the run that covers orphans (one CI shard, not all)."""
    from generator.review import acknowledge, present
    from generator.review.fleet import review

    chosen_names, existing = set(chosen.names), set(ctx.project.cluster_names())
    reviews = [
        r
        for r in review(ctx.project, base, acknowledge.from_flags(allow_destroy), config_file=ctx.config_file)
        if r.name in chosen_names or (chosen.covers_orphans and r.name not in existing)
    ]
    for diagnostic in present.diagnostics(reviews, ctx.project.display(ctx.project.rendered)):
        if diagnostic.severity != "info" or not ctx.ui.quiet:
            ctx.ui.diagnostic(diagnostic)
    return any(r.blocking for r in reviews)


# what render reads: the inputs, the library and schemas a project may carry, the settings
INPUTS = ("clusters", "libsonnet", "schemas", ".gpu-gitops.yaml")
# what a commit holds that check reads: that, and the trees
STAGED = (*INPUTS, "rendered")


def _check_staged(args: CheckArgs) -> int:
    """``check --staged`` (the pre-commit hook): check git's index, what the commit will hold,
    written to a scratch folder, so a file on disk but not added cannot make it pass."""
    import tempfile
    from pathlib import Path

    from generator.review import revision

    ctx = args.ctx
    ctx.require_project()
    with tempfile.TemporaryDirectory(prefix="gpu-gitops-staged-") as scratch:
        revision.export_index(ctx.project.root, Path(scratch), STAGED)
        staged = Context(Path(scratch), ctx.ui, ctx.config_path)
        staged.remember = False  # a folder of its own each run: a stat record of it is never read again
        if not (Path(scratch) / "clusters").is_dir():
            (Path(scratch) / "clusters").mkdir()
        return check.__wrapped__(args.replace(ctx=staged, staged=False, fmt="text"))  # type: ignore[attr-defined]


@reports_input_errors
def diff(args: DiffArgs) -> int:
    """Print what render would change (a unified diff, or a Markdown summary); 1 when it would."""
    ctx = args.ctx
    ctx.require_project()
    from generator.render import pipeline
    from generator.tree.diffsummary import ClusterDiff, markdown

    if args.base:
        return _review(args)
    if args.allow_destroy or args.render_base:
        raise InputError(
            f"{'--allow-destroy' if args.allow_destroy else '--render-base'} needs --base REV",
            hint="review a change with `diff --base origin/main`",
        )
    if args.fmt not in ("text", "markdown"):
        raise InputError(f"--format {args.fmt} needs --base REV", hint="review a change with `diff --base origin/main`")
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


def _review(args: DiffArgs) -> int:
    """``diff --base REV``: the committed trees at REV against the work tree's, object by object;
    1 when any object changes, or a tree is stale or broken (then the review is not of the change)."""
    from generator.review import acknowledge, present
    from generator.review.fleet import review
    from generator.review.markdown import markdown

    base = args.base or "HEAD"
    acks = acknowledge.from_flags(args.allow_destroy)
    if args.render_base:
        reviews = _review_rendered_base(args, base, acks)
        if reviews is None:
            return EXIT_INPUT
    else:
        reviews = review(args.ctx.project, base, acks, config_file=args.ctx.config_file)
    if args.clusters:
        wanted = set(args.clusters)
        reviews = [r for r in reviews if r.name in wanted]
    writers = {"text": present.text, "markdown": markdown, "json": present.as_json, "github": present.github}
    click.echo(writers[args.fmt](reviews, base), nl=False)
    return EXIT_FINDINGS if any(r.reviewed for r in reviews) else EXIT_OK


def _review_rendered_base(args: DiffArgs, base: str, acks: list[Acknowledgement]) -> list | None:
    """The review against the base's inputs rendered now, by this gpu-gitops (the base's
    committed rendered/ is not read): what the change of inputs does, without the tool's own
    changes. None when an input of the base does not render."""
    import tempfile
    from pathlib import Path

    from generator.render import pipeline
    from generator.review import revision
    from generator.review.fleet import review

    ctx = args.ctx
    with tempfile.TemporaryDirectory(prefix="gpu-gitops-base-") as scratch:
        revision.export(ctx.project.root, revision.commit(ctx.project.root, base), Path(scratch), INPUTS)
        at_base = Context(Path(scratch), ctx.ui)
        options = at_base.options(args.schema_locations, False)
        outcomes = _render_all(at_base, at_base.project.cluster_names(), options, args.jobs)
        if _report(ctx, [o for o in outcomes if o.error]):
            click.echo(f"the inputs at {base} do not render with this gpu-gitops (above)", err=True)
            return None
        pipeline.write(at_base.project, outcomes)
        return review(ctx.project, base, acks, rendered_base=at_base.project.rendered, config_file=ctx.config_file)


# --- parsing ---------------------------------------------------------------------------------


allow_destroy_option = click.option(
    "--allow-destroy",
    "allow_destroy",
    multiple=True,
    metavar="'CLUSTER: REASON'",
    help="With --base: acknowledge the dangerous changes of CLUSTER ('*': every cluster), shown with "
    "REASON in the report; a commit message line `Allow-Destroy: CLUSTER: REASON` does the same.",
)


@click.command(name="render")
@fleet_options
@click.option(
    "--prune",
    is_flag=True,
    help="Remove rendered/<cluster>/ of clusters whose folder under clusters/ is gone (the GitOps engine "
    "then deletes their objects). Without it such trees are kept, with a warning; `prune: true` in "
    ".gpu-gitops.yaml makes it the default.",
)
@click.pass_obj
def render_command(ctx: Context, **options: Any) -> None:
    """Render clusters (default: all) into rendered/<cluster>/.

    Every object is schema-validated before anything is written; a cluster with errors keeps
    its previous tree.

    \b
    Examples:
      gpu-gitops render aks-h100-training
      gpu-gitops render --jobs 8
      gpu-gitops render --prune        # also remove the trees of deleted clusters
    """
    finish(render(RenderArgs(ctx, **options)))


@click.command(name="check")
@fleet_options
@click.option(
    "--staged",
    is_flag=True,
    help="Check what git's index holds (what the next commit will), not the work tree: the pre-commit hook.",
)
@allow_destroy_option
@click.pass_obj
def check_command(ctx: Context, **options: Any) -> None:
    """Fail (exit 1) if rendered/ is stale or invalid; for CI and pre-commit.

    \b
    Examples:
      gpu-gitops check || gpu-gitops diff
      gpu-gitops check --changed-only --base origin/main
      gpu-gitops check --shard 2/4 --jobs 2
      gpu-gitops check --base origin/main --format github   # the review gate in CI
    """
    finish(check(CheckArgs(ctx, **options)))


@click.command(name="diff")
@clusters_argument
@schema_location_option
@jobs_option
@click.option(
    "--base",
    metavar="REV",
    help="Review instead of render: compare the rendered objects committed at REV (read from git) with "
    "the work tree's rendered/, per cluster and object: added, removed, changed, moved, renamed, with "
    "the dangerous changes named.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "markdown", "json", "github"]),
    default="text",
    show_default=True,
    help="text: a unified diff (with --base: the object changes); markdown: a pull-request comment "
    "(with --base: dangers first, the rest collapsed); json and github (annotations): with --base.",
)
@allow_destroy_option
@click.option(
    "--render-base",
    is_flag=True,
    help="With --base: render the inputs committed at REV with this gpu-gitops and compare with that, instead "
    "of reading the rendered/ REV committed (what the inputs' change does, without a tool upgrade's).",
)
@click.pass_obj
def diff_command(ctx: Context, **options: Any) -> None:
    """Show what render would change, without writing. Exit 1 when there are changes.

    \b
    Examples:
      gpu-gitops diff aks-h100-training
      gpu-gitops diff --format markdown >> "$GITHUB_STEP_SUMMARY"
      gpu-gitops diff --base origin/main --format markdown > review.md
    """
    finish(diff(DiffArgs(ctx, **options)))


COMMANDS = (render_command, check_command, diff_command)
