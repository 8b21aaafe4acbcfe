"""The ``gpu-gitops`` command line: the root group, and ``add_command`` for every command.

Each command lives in the module of its family (``fleet``: render, check, diff; ``lint``:
lint, rules, explain; ``schemas``: import, sync; ``project``: init, schema, docs, list;
``inputs``: explain-input, migrate), split
into a click function that parses and an execute function that runs (``common``,
``docs/api.md``). Exit codes: 0 clean; 1 drift or findings; 2 bad input or usage. A
traceback is a bug.

May import: any part of generator: the commands are the top of the import graph.
"""

from __future__ import annotations

from importlib import import_module
from pathlib import Path

import click

from generator import __version__
from generator.cli.common import Context, OutputOptionsGroup, Ui

# The module of each command. A family's module is imported, and its commands added, when one
# of them is looked up (``--help`` and completion look up all): a run pays for its own family
# only, and an up-to-date ``check`` starts as fast as the command line can.
FAMILIES = {
    "render": "fleet",
    "check": "fleet",
    "diff": "fleet",
    "lint": "lint",
    "rules": "lint",
    "explain": "lint",
    "schemas": "schemas",
    "init": "project",
    "schema": "project",
    "docs": "project",
    "list": "project",
    "explain-input": "inputs",
    "migrate": "inputs",
}


class _Commands(OutputOptionsGroup):
    """The root group: ``add_command`` for every command of a family, on its first use."""

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in FAMILIES:
            self._add_family(FAMILIES[cmd_name])
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        for family in sorted(set(FAMILIES.values())):
            self._add_family(family)
        return super().list_commands(ctx)

    def _add_family(self, family: str) -> None:
        for command in import_module(f"{__name__}.{family}").COMMANDS:
            if command.name not in self.commands:
                self.add_command(command)


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


def main() -> None:
    cli(prog_name="gpu-gitops")


__all__ = ["FAMILIES", "Context", "Ui", "cli", "main"]
