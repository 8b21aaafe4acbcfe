"""The root group of the command line, ``gpu-gitops [OPTIONS] COMMAND``: its options, and
``add_command`` for every command of a family on its first use (the table of ``generator.cli``).

May import: any part of generator: the commands are the top of the import graph.
"""

from __future__ import annotations

import os
from importlib import import_module

import click

from generator.cli.table import FAMILIES, SUMMARIES, version_text


class _Commands(click.Group):
    """The root group: ``add_command`` for every command of a family, on its first use; its
    commands take the output options too (``options.with_output_options``)."""

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in FAMILIES:
            self._add_family(FAMILIES[cmd_name])
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        for family in sorted(set(FAMILIES.values())):
            self._add_family(family)
        return super().list_commands(ctx)

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        from generator.cli.options import with_output_options

        super().add_command(with_output_options(cmd), name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list of `--help`, as click writes it, from ``SUMMARIES``."""
        limit = formatter.width - 6 - max(len(name) for name in SUMMARIES)
        rows = [
            (name, click.Command(name, help=SUMMARIES[name]).get_short_help_str(limit)) for name in sorted(SUMMARIES)
        ]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def _add_family(self, family: str) -> None:
        for command in import_module(f"generator.cli.{family}").COMMANDS:
            if command.name not in self.commands:
                self.add_command(command)


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=lambda ctx, _param, value: _print_version(ctx) if value and not ctx.resilient_parsing else None,
    help="Show the version and the YAML reader's backend, and exit.",
)
@click.option(
    "--root",
    type=click.Path(file_okay=False),  # a str, kept as text (``paths``): pathlib stays out of --help and lint
    help="Project root holding clusters/ and rendered/ (default: the nearest folder upward from "
    "here that holds clusters/ or .gpu-gitops.yaml).",
)
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False),
    help="Config file (default: .gpu-gitops.yaml in the root).",
)
@click.option("-q", "--quiet", is_flag=True, help="Print only errors.")
@click.option("-v", "--verbose", is_flag=True, help="Print what is being done.")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True)
@click.pass_context
def cli(ctx: click.Context, root: str | None, config_path: str | None, quiet: bool, verbose: bool, color: str) -> None:
    """Render and lint GitOps manifests for GPU / AI Kubernetes clusters.

    \b
    Example:
      gpu-gitops init my-cluster && $EDITOR clusters/my-cluster/cluster.yaml
      gpu-gitops render && gpu-gitops check
    """
    from generator.cli.common import Context, Ui

    ctx.obj = Context(root, Ui(quiet, verbose, color), config_path)  # text paths: ``paths.plain``
    if os.environ.get("GPU_GITOPS_YAML_BACKEND"):  # a backend forced by name: checked once, before any read
        from generator.errors import InputError
        from generator.yamlio import backend

        try:
            backend.chosen()
        except InputError as err:
            ctx.obj.ui.error(err)
            ctx.exit(2)


def _print_version(ctx: click.Context) -> None:
    click.echo(version_text())
    ctx.exit()
