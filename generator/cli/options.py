"""The options and arguments commands share (``fleet_options`` and its parts, the output options
every command takes after its name too), and shell completion of cluster names: click's side of
``cli.common``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from generator.cli.common import DIAGNOSTIC_FORMATS, Context
from generator.errors import InputError
from generator.paths import Project, find_root

# a click command function, before or after the decorators that add its options
Command = TypeVar("Command", bound=Callable[..., Any])


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
