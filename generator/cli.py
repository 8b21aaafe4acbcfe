"""The ``gpu-gitops`` command line: parse options, call the library, print, set the exit code.

Exit codes: 0 clean; 1 drift or findings; 2 bad input or usage. A traceback is a bug.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from generator import __version__
from generator.errors import InputError
from generator.paths import Project, find_root, is_project_root

if TYPE_CHECKING:
    from generator import pipeline

# Commands import what they use when they run: `--version`, `--help` and `list` start
# without loading the schema validator, the YAML library or the Jsonnet engine.

EXIT_OK, EXIT_FINDINGS, EXIT_INPUT = 0, 1, 2


class Ui:
    """Output with the verbosity and colour the user asked for."""

    def __init__(self, quiet: bool, verbose: bool, color: str):
        self.quiet, self.verbose = quiet, verbose
        self.use_color(color)

    def use_color(self, color: str) -> None:
        # None: auto, colour only on a terminal; NO_COLOR (no-color.org) turns auto off
        self.color = {"always": True, "never": False}.get(color, False if os.environ.get("NO_COLOR") else None)

    def out(self, text: str = "", **style) -> None:
        if not self.quiet:
            click.secho(text, color=self.color, **style)

    def info(self, text: str) -> None:
        if self.verbose:
            click.secho(text, err=True, color=self.color, dim=True)

    def error(self, err: InputError) -> None:
        for line in err.format().splitlines():
            if ": error: " in line or line.startswith("error: "):
                head, _, msg = line.partition("error: ")
                click.echo(head + click.style("error:", fg="red", bold=True) + " " + msg, err=True, color=self.color)
            else:
                click.echo(
                    click.style(line, fg="cyan") if line.startswith("  hint:") else line, err=True, color=self.color
                )

    def problem(self, problem) -> None:
        colour = "red" if problem.severity == "error" else "yellow"
        head, _, msg = problem.format().partition(f"{problem.severity}: ")
        click.echo(
            head + click.style(f"{problem.severity}:", fg=colour, bold=True) + " " + msg, err=True, color=self.color
        )


class Context:
    """What every command shares: the project root, the output settings, the config file.

    The root is ``--root``, else the nearest folder upward from the working directory that
    holds ``clusters/`` or ``.gpu-gitops.yaml`` (as git finds ``.git``). Commands that read a
    fleet call ``require_project()``; the others (init, lint PATHS, schema, rules) also work
    outside one, in the working directory.
    """

    def __init__(self, root: Path | None, ui: Ui, config_path: Path | None):
        self.given_root = root
        self.root = root.resolve() if root is not None else find_root(Path.cwd())
        self.project = Project(self.root or Path.cwd().resolve())
        self.ui = ui
        self.config_path = config_path

    def require_project(self) -> Project:
        """The project, or the one error every command gives outside a project."""
        if self.root is not None and is_project_root(self.root):
            return self.project
        if self.given_root is not None:
            message = f"not a gpu-gitops project: {self.root} holds neither clusters/ nor .gpu-gitops.yaml"
        else:
            message = (
                f"not inside a gpu-gitops project: neither {Path.cwd().resolve()} nor a folder above it "
                "holds clusters/ or .gpu-gitops.yaml"
            )
        raise InputError(message, hint="start one here with `gpu-gitops init NAME`, or give its folder with --root DIR")

    @property
    def config_file(self) -> Path:
        return self.config_path or self.project.root / ".gpu-gitops.yaml"

    def options(self, schema_locations: tuple[str, ...], require_schemas: bool) -> pipeline.Options:
        from generator import pipeline
        from generator.config import load_config

        config = load_config(self.project, self.config_path)
        return pipeline.Options(
            schema_locations=list(schema_locations) + config.schema_locations,
            require_schemas=require_schemas or config.require_schemas,
            config=config.data,
            config_file=self.config_file,
        )

    def fresh(self, names: list[str], schema_locations, require_schemas, for_render: bool = False) -> list[str]:
        """Clusters whose sum file says nothing changed. Validation flags given on the command
        line are not recorded in it, so with them every cluster takes the full path."""
        from generator import fingerprint

        if schema_locations or require_schemas:
            return []
        return fingerprint.fresh(self.project, names, self.config_file, modes=for_render)


def _fail_on_input_errors(func):
    """Turn an ``InputError`` into its one-line message and exit code 2."""

    import functools

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except InputError as err:
            ctx = click.get_current_context()
            found = ctx.find_object(Context)
            ui = found.ui if found else Ui(False, False, "auto")
            ui.error(err)
            ctx.exit(EXIT_INPUT)

    return wrapper


def complete_clusters(ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[str]:
    """Shell completion: the clusters of the project (``--root`` as typed, else found upward)."""
    given = ctx.find_root().params.get("root")
    root = Path(given) if given else find_root(Path.cwd())
    if root is None:
        return []
    taken = set(ctx.params.get("clusters") or ())
    return [n for n in Project(root).cluster_names() if n.startswith(incomplete) and n not in taken]


schema_location_option = click.option(
    "--schema-location",
    "schema_locations",
    multiple=True,
    envvar="GPU_GITOPS_SCHEMA_LOCATION",
    help="kubeconform-style schema location for custom resources, e.g. "
    "'crds/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json'. Repeatable; tried in order; "
    "also read from GPU_GITOPS_SCHEMA_LOCATION (space-separated).",
)
require_schemas_option = click.option(
    "--require-schemas", is_flag=True, help="A kind without a schema is an error, not a warning."
)
jobs_option = click.option(
    "-j",
    "--jobs",
    type=click.IntRange(min=1),
    default=None,
    help="Render this many clusters in parallel (processes); output is identical for any N. "
    "Default: the CPUs available to this process (affinity and cgroup CPU quota).",
)


def selection_options(func):
    """--changed-only, --base and --shard: narrow a fleet-wide run (hooks, CI jobs)."""
    func = click.option(
        "--shard",
        metavar="I/N",
        help="Only the I-th of N equal parts of the sorted cluster list (1-based), "
        "e.g. --shard $CI_NODE_INDEX/$CI_NODE_TOTAL.",
    )(func)
    func = click.option(
        "--base",
        default="HEAD",
        show_default=True,
        metavar="REV",
        help="With --changed-only: compare with the merge base of REV, e.g. origin/main.",
    )(func)
    return click.option(
        "--changed-only",
        is_flag=True,
        help="Only clusters whose inputs or rendered files changed (git); a change "
        "under libsonnet/ or schemas/ selects all.",
    )(func)


def fleet_command(func):
    """The arguments and options render and check share: clusters, schemas, jobs, selection."""
    for decorate in (
        selection_options,
        jobs_option,
        require_schemas_option,
        schema_location_option,
        click.argument("clusters", nargs=-1, shell_complete=complete_clusters),
    ):
        func = decorate(func)
    return func


def _render_all(ctx: Context, names: list[str], options: pipeline.Options, jobs: int | None) -> list[pipeline.Outcome]:
    """Render with a progress bar on a terminal, on every available CPU unless ``--jobs`` says."""
    from generator import cpus, pipeline
    from generator.progress import Progress, wanted

    jobs = jobs or cpus.available()
    show = wanted(ctx.ui.quiet, len(names))
    with Progress(len(names), "rendering", show, ctx.ui.color) as progress:
        return pipeline.render_many(ctx.project, names, options, jobs=jobs, on_done=progress)


def _set_on_ui(attribute: str):
    def callback(ctx: click.Context, _param: click.Parameter, value) -> None:
        found = ctx.find_object(Context)
        assert found is not None  # the group's callback made it before any option callback
        ui = found.ui
        if attribute == "color":
            if value is not None:
                ui.use_color(value)
        elif value:
            setattr(ui, attribute, True)

    return callback


def _output_options() -> list[click.Option]:
    """-q, -v and --color, accepted before the command (on the group) and after it alike."""
    return [
        click.Option(
            ["-q", "--quiet"], is_flag=True, expose_value=False, callback=_set_on_ui("quiet"), help="Print only errors."
        ),
        click.Option(
            ["-v", "--verbose"],
            is_flag=True,
            expose_value=False,
            callback=_set_on_ui("verbose"),
            help="Print what is being done.",
        ),
        click.Option(
            ["--color"],
            type=click.Choice(["auto", "always", "never"]),
            expose_value=False,
            callback=_set_on_ui("color"),
            help="Colour: auto (on a terminal), always or never.",
        ),
    ]


class _OutputOptionsGroup(click.Group):
    """A group whose commands (and their subcommands) take the output options too, so that
    ``gpu-gitops render -q`` means what ``gpu-gitops -q render`` does."""

    group_class = type  # subgroups (``schemas``) are of this class as well

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        cmd.params.extend(_output_options())
        super().add_command(cmd, name)


class _Commands(_OutputOptionsGroup):
    """The command group; the lint-side commands (``generator.cli_lint``) are registered on
    first use, so that ``--version`` and the render-side commands do not load the linter."""

    LINT_COMMANDS = ("explain", "lint", "rules", "schemas")

    def _load_lint(self) -> None:
        from generator import cli_lint  # noqa: F401  (registers its commands on this group)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.LINT_COMMANDS:
            self._load_lint()
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._load_lint()
        return super().list_commands(ctx)


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="gpu-gitops")
@click.option(
    "--root",
    type=click.Path(file_okay=False, path_type=Path),
    help="Project root holding clusters/ and rendered/ (default: the nearest folder upward from "
    "here that holds clusters/ or .gpu-gitops.yaml).",
)
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Config file (default: .gpu-gitops.yaml in the root).",
)
@click.option("-q", "--quiet", is_flag=True, help="Print only errors.")
@click.option("-v", "--verbose", is_flag=True, help="Print what is being done.")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True)
@click.pass_context
def cli(ctx, root, config_path, quiet, verbose, color):
    """Render and lint GitOps manifests for GPU / AI Kubernetes clusters.

    \b
    Example:
      gpu-gitops init my-cluster && $EDITOR clusters/my-cluster/cluster.yaml
      gpu-gitops render && gpu-gitops check
    """
    ctx.obj = Context(root, Ui(quiet, verbose, color), config_path)


def _report(ctx: Context, outcomes: list[pipeline.Outcome]) -> bool:
    """Print every input error and rendered-object problem; True when any is an error."""
    if not outcomes:
        return False  # nothing was rendered: a clean no-op run imports nothing more
    from generator import schemasync

    failed = False
    unchecked: set[str] = set()
    for outcome in outcomes:
        if outcome.error:
            ctx.ui.error(outcome.error)
            failed = True
        for problem in outcome.problems:
            failed |= problem.severity == "error"
            if problem.unchecked_kind and not ctx.ui.verbose:
                unchecked.add(problem.unchecked_kind)  # summarised below, once for the run
            elif problem.severity == "error" or not ctx.ui.quiet:
                ctx.ui.problem(problem)
    if unchecked and not ctx.ui.quiet:
        click.echo(
            click.style("warning:", fg="yellow", bold=True)
            + f" no schema found, not schema-checked: {', '.join(sorted(unchecked))}",
            err=True,
            color=ctx.ui.color,
        )
        click.echo(f"  hint: {schemasync.MISSING_HINT}", err=True)
    synced = schemasync.installed()
    if synced is not None and outcomes and not ctx.ui.quiet:
        click.echo(f"custom resources checked against schema set {synced.version} ({synced.folder})", err=True)
    return failed


@cli.command()
@fleet_command
@click.pass_obj
@_fail_on_input_errors
def render(ctx: Context, clusters, schema_locations, require_schemas, jobs, changed_only, base, shard):
    """Render clusters (default: all) into rendered/<cluster>/.

    Every object is schema-validated before anything is written; a cluster with errors keeps
    its previous tree.

    \b
    Examples:
      gpu-gitops render aks-h100-training
      gpu-gitops render --jobs 8
    """
    ctx.require_project()
    from generator import pipeline
    from generator.scaffold import stale_editor_schema, write_editor_schema

    chosen = pipeline.choose(ctx.project, clusters, changed_only, base, shard)
    fresh = ctx.fresh(chosen.names, schema_locations, require_schemas, for_render=True)
    todo = [n for n in chosen.names if n not in fresh]
    outcomes = _render_all(ctx, todo, ctx.options(schema_locations, require_schemas), jobs) if todo else []
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
    sys.exit(EXIT_INPUT if failed else EXIT_OK)


@cli.command()
@fleet_command
@click.pass_obj
@_fail_on_input_errors
def check(ctx: Context, clusters, schema_locations, require_schemas, jobs, changed_only, base, shard):
    """Fail (exit 1) if rendered/ is stale or invalid; for CI and pre-commit.

    \b
    Examples:
      gpu-gitops check || gpu-gitops diff
      gpu-gitops check --changed-only --base origin/main
      gpu-gitops check --shard 2/4 --jobs 2
    """
    ctx.require_project()
    from generator import pipeline
    from generator.scaffold import EDITOR_SCHEMA, stale_editor_schema

    chosen = pipeline.choose(ctx.project, clusters, changed_only, base, shard)
    fresh = ctx.fresh(chosen.names, schema_locations, require_schemas)
    todo = [n for n in chosen.names if n not in fresh]
    outcomes = _render_all(ctx, todo, ctx.options(schema_locations, require_schemas), jobs) if todo else []
    if _report(ctx, [o for o in outcomes if o.error]):
        sys.exit(EXIT_INPUT)
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
        sys.exit(EXIT_FINDINGS)
    ctx.ui.out(f"{len(chosen.names)} cluster(s) up to date")


@cli.command()
@click.argument("clusters", nargs=-1, shell_complete=complete_clusters)
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
@_fail_on_input_errors
def diff(ctx: Context, clusters, schema_locations, jobs, fmt):
    """Show what render would change, without writing. Exit 1 when there are changes.

    \b
    Examples:
      gpu-gitops diff aks-h100-training
      gpu-gitops diff --format markdown >> "$GITHUB_STEP_SUMMARY"
    """
    ctx.require_project()
    from generator import pipeline
    from generator.diffsummary import ClusterDiff, markdown

    options = ctx.options(schema_locations, False)
    names = pipeline.select(ctx.project, clusters)
    outcomes = _render_all(ctx, names, options, jobs)
    if _report(ctx, [o for o in outcomes if o.error]):
        sys.exit(EXIT_INPUT)
    found = [ClusterDiff(o.name, pipeline.drift(ctx.project, o), pipeline.diff_text(ctx.project, o)) for o in outcomes]
    changed = any(not c.changes.empty for c in found)
    if fmt == "markdown":
        click.echo(markdown(found), nl=False)
    elif not changed:
        ctx.ui.out(f"no changes: rendered/ matches the inputs of {len(found)} cluster(s)")
    else:
        for line in "".join(c.diff for c in found).splitlines():
            style = {"+": "green", "-": "red", "@": "cyan"}.get(line[:1])
            click.secho(line, fg=None if line.startswith(("+++", "---")) else style, color=ctx.ui.color)
    sys.exit(EXIT_FINDINGS if changed else EXIT_OK)


@cli.command()
@click.argument("name")
@click.option("--force", is_flag=True, help="Overwrite an existing cluster input.")
@click.pass_obj
@_fail_on_input_errors
def init(ctx: Context, name, force):
    """Scaffold clusters/NAME/cluster.yaml, commented and valid.

    Example: gpu-gitops init aks-h100-training
    """
    from generator.scaffold import init_cluster

    path = init_cluster(ctx.project, name, force)
    ctx.ui.out(f"wrote {ctx.project.display(path)}; edit it, then run `gpu-gitops render {name}`")


@cli.command()
@click.pass_obj
def schema(ctx: Context):
    """Print the JSON Schema of cluster inputs.

    Example: gpu-gitops schema > cluster.schema.json
    """
    click.echo(ctx.project.schema_file.read_text(), nl=False)


@cli.command(name="docs")
@click.option("--check", "check_only", is_flag=True, help="Write nothing; exit 1 when a generated doc is stale.")
@click.pass_obj
@_fail_on_input_errors
def docs_(ctx: Context, check_only):
    """Regenerate the reference docs under docs/.

    docs/inputs.md from the input schema, docs/versions.md and docs/providers.md from
    libsonnet/versions.json and providers.json, docs/rules.md from the lint rules.

    \b
    Examples:
      gpu-gitops docs
      gpu-gitops docs --check   # in CI
    """
    ctx.require_project()
    from generator import docs

    if check_only:
        stale = docs.stale(ctx.project)
        for path in stale:
            click.echo(f"{ctx.project.display(path)}: stale: run `gpu-gitops docs`", err=True)
        sys.exit(EXIT_FINDINGS if stale else EXIT_OK)
    for path in docs.write(ctx.project):
        ctx.ui.out(f"wrote {ctx.project.display(path)}")


@cli.command(name="list")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.pass_obj
@_fail_on_input_errors
def list_(ctx: Context, as_json):
    """List the clusters under clusters/ and where they render.

    Example: gpu-gitops list --json
    """
    ctx.require_project()
    names = ctx.project.cluster_names()
    rows = [{"name": n, "input": f"clusters/{n}/cluster.yaml", "rendered": f"rendered/{n}"} for n in names]
    if as_json:
        click.echo(json.dumps(rows, indent=2))
    else:
        for row in rows:
            click.echo(f"{row['name']}\t{row['input']}\t{row['rendered']}")


def main() -> None:
    cli(prog_name="gpu-gitops")
