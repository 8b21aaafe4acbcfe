"""What every command shares: the context (project root, output settings, config file), the
exit codes, the option stacks, and the two halves each command is split into.

A command is a click function that only turns its arguments into a small ``...Args``
dataclass, and a plain ``execute``-style function taking that dataclass and returning the exit
code (``docs/api.md``). An ``InputError`` an execute function raises is printed and becomes
exit code 2 (``reports_input_errors``), whoever called it.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from generator.diagnostic import Diagnostic, Location, format_text, shown_text
from generator.errors import InputError
from generator.paths import Project, find_root, is_project_root

if TYPE_CHECKING:
    from generator.render import pipeline

# Commands import what they use when they run: `--version`, `--help` and `list` start
# without loading the schema validator, the YAML library or the Jsonnet engine.

EXIT_OK, EXIT_FINDINGS, EXIT_INPUT = 0, 1, 2


class Ui:
    """Output with the verbosity and colour the user asked for."""

    def __init__(self, quiet: bool = False, verbose: bool = False, color: str = "auto"):
        self.quiet, self.verbose = quiet, verbose
        self.use_color(color)
        self.collected: list[Diagnostic] | None = None  # diagnostics kept for a --format report

    def use_color(self, color: str) -> None:
        # None: auto, colour only on a terminal; NO_COLOR (no-color.org) turns auto off
        self.color = {"always": True, "never": False}.get(color, False if os.environ.get("NO_COLOR") else None)

    def out(self, text: str = "", **style: Any) -> None:
        if not self.quiet:
            click.secho(text, color=self.color, **style)

    def info(self, text: str) -> None:
        if self.verbose:
            click.secho(text, err=True, color=self.color, dim=True)

    def diagnostic(self, diagnostic: Diagnostic) -> None:
        """One diagnostic on standard error, styled where colour is on (kept for the report
        instead, while a ``--format`` other than text collects them)."""
        if self.collected is not None:
            self.collected.append(diagnostic)
            return
        click.echo(format_text(diagnostic, color=self.color is not False), err=True, color=self.color)

    def problem(self, path: str, message: str) -> None:
        """``path: message`` on standard error: a finding about a file that has no line (a stale
        rendered file), an error in a ``--format`` report."""
        if self.collected is not None:
            self.collected.append(Diagnostic(Location(path), "error", message))
            return
        click.echo(f"{path}: {message}", err=True)

    def error(self, err: InputError) -> None:
        for diagnostic in err.diagnostics:
            self.diagnostic(diagnostic)
        self.detail(err)

    def detail(self, err: InputError) -> None:
        """Under ``-v``, the full text behind an error (a Jsonnet trace), escaped as its message is."""
        if err.detail:
            self.info("\n".join(shown_text(line) for line in err.detail.splitlines()))


class Context:
    """What every command shares: the project root, the output settings, the config file.

    The root is ``root``, else the nearest folder upward from the working directory that
    holds ``clusters/`` or ``.gpu-gitops.yaml`` (as git finds ``.git``). Commands that read a
    fleet call ``require_project()``; the others (init, lint PATHS, schema, rules) also work
    outside one, in the working directory.
    """

    def __init__(self, root: Path | None = None, ui: Ui | None = None, config_path: Path | None = None):
        self.given_root = root
        self.root = root.resolve() if root is not None else find_root(Path.cwd())
        self.project = Project(self.root or Path.cwd().resolve())
        self.ui = ui or Ui()
        self.config_path = config_path
        self.remember = True  # whether freshness checks keep a stat record (not for a scratch copy)

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
        from generator.config import load_config
        from generator.render import pipeline
        from generator.tree import fingerprint

        config = load_config(self.project, self.config_path)
        return pipeline.Options(
            schema_locations=list(schema_locations) + config.schema_locations,
            require_schemas=require_schemas or config.require_schemas,
            config=config.data,
            config_file=self.config_file,
            flags=fingerprint.validation_flags(schema_locations, require_schemas),
        )

    def fresh(
        self,
        names: list[str],
        schema_locations: tuple[str, ...],
        require_schemas: bool,
        for_render: bool = False,
        full: bool = False,
    ) -> list[str]:
        """Clusters whose sum file says nothing changed (none with ``full``). Validation flags
        given on the command line are not in it: with them, a cluster is fresh once this
        machine has validated its tree with those flags (``fingerprint.record_validated``)."""
        from generator.tree import fingerprint

        if full:
            return []

        flags = fingerprint.validation_flags(schema_locations, require_schemas)
        return fingerprint.fresh(
            self.project, names, self.config_file, modes=for_render, flags=flags, remember=self.remember
        )


def unchecked_summary(kinds: list[str], rule: str = "") -> Diagnostic:
    """The one warning a run gives for the kinds it found no schema for (``-v`` lists each object)."""
    from generator.validate import schemaset

    return Diagnostic(
        Location(),
        "warning",
        f"no schema found, not schema-checked: {', '.join(kinds)}",
        schemaset.MISSING_HINT,
        rule,
    )


# --- the two halves of a command -------------------------------------------------------------

Args = TypeVar("Args")
# a click command function, before or after the decorators that add its options
Command = TypeVar("Command", bound=Callable[..., Any])


def reports_input_errors(execute: Callable[[Args], int]) -> Callable[[Args], int]:
    """An execute function whose ``InputError`` is printed (on ``args.ctx``'s output) and is
    exit code 2, for the command line and Python callers alike."""

    @functools.wraps(execute)
    def wrapper(args: Any) -> int:
        try:
            return execute(args)
        except InputError as err:
            args.ctx.ui.error(err)
            return EXIT_INPUT

    return wrapper


DIAGNOSTIC_FORMATS = ("text", "github", "sarif", "json")


def reports_in_format(execute: Callable[[Args], int]) -> Callable[[Args], int]:
    """An execute function whose diagnostics (input errors included) are printed as one report
    in ``args.fmt`` on standard output (the lint formats: GitHub annotations at the input's
    line, SARIF, JSON); ``text`` prints them as they come, on standard error."""

    @functools.wraps(execute)
    def wrapper(args: Any) -> int:
        if args.fmt == "text":
            return execute(args)
        from generator.report import Report, render

        ui = args.ctx.ui
        ui.collected = []
        try:
            code = execute(args)
        finally:
            found, ui.collected = ui.collected, None
        click.echo(
            render(args.fmt, Report(found, workdir=args.ctx.project.root, title=f"gpu-gitops {args.command}")), nl=False
        )
        return code

    return wrapper


def finish(code: int) -> None:
    """End a click command with an execute function's exit code."""
    click.get_current_context().exit(code)


# --- option stacks ---------------------------------------------------------------------------


def complete_clusters(ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[str]:
    """Shell completion: the clusters of the project (``--root`` as typed, else found upward)."""
    given = ctx.find_root().params.get("root")
    root = Path(given) if given else find_root(Path.cwd())
    if root is None:
        return []
    taken = set(ctx.params.get("clusters") or ())
    try:
        names = Project(root).cluster_names()
    except InputError:  # an unreadable clusters/: the command itself says so
        return []
    return [n for n in names if n.startswith(incomplete) and n not in taken]


clusters_argument = click.argument("clusters", nargs=-1, shell_complete=complete_clusters)
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


def selection_options(func: Command) -> Command:
    """--changed-only, --base and --shard: narrow a fleet-wide run (hooks, CI jobs)."""
    func = click.option(
        "--shard",
        metavar="I/N",
        help="Only the I-th of N equal parts of the sorted cluster list (1-based), "
        "e.g. --shard $CI_NODE_INDEX/$CI_NODE_TOTAL.",
    )(func)
    func = click.option(
        "--base",
        default=None,
        metavar="REV",
        help="With --changed-only: compare with the merge base of REV (default HEAD), e.g. origin/main. "
        "check: also review the change against REV, object by object, and fail on a dangerous one "
        "that is not acknowledged (docs/gitops.md).",
    )(func)
    return click.option(
        "--changed-only",
        is_flag=True,
        help="Only clusters whose inputs or rendered files changed (git); a change "
        "under libsonnet/ or schemas/ selects all.",
    )(func)


format_option = click.option(
    "--format",
    "fmt",
    type=click.Choice(DIAGNOSTIC_FORMATS),
    default="text",
    show_default=True,
    help="How errors are reported: text on standard error, or one report on standard output as GitHub "
    "annotations (at the cluster.yaml line), SARIF or JSON, as `lint --format` writes them.",
)


full_option = click.option(
    "--full",
    is_flag=True,
    help="Evaluate every chosen cluster even where its sum file says nothing changed (the sum file "
    "records the tool's version, not its code: use after changing gpu-gitops itself).",
)


def fleet_options(func: Command) -> Command:
    """The arguments and options render and check share: clusters, schemas, jobs, selection, format."""
    for decorate in (
        format_option,
        selection_options,
        jobs_option,
        full_option,
        require_schemas_option,
        schema_location_option,
        clusters_argument,
    ):
        func = decorate(func)
    return func


def _set_on_ui(attribute: str) -> Callable[[click.Context, click.Parameter, Any], None]:
    def callback(ctx: click.Context, _param: click.Parameter, value: Any) -> None:
        found = ctx.find_object(Context)
        assert found is not None  # the group's callback made it before any option callback
        ui = found.ui
        if attribute == "color":
            if value is not None:
                ui.use_color(value)
        elif value:
            setattr(ui, attribute, True)

    return callback


def output_options() -> list[click.Option]:
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


class OutputOptionsGroup(click.Group):
    """A group whose commands (and their subcommands) take the output options too, so that
    ``gpu-gitops render -q`` means what ``gpu-gitops -q render`` does."""

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        super().add_command(with_output_options(cmd), name)


def with_output_options(cmd: click.Command) -> click.Command:
    """``cmd`` taking the output options (-q, -v, --color) after its name too."""
    cmd.params.extend(output_options())
    return cmd
