"""The ``gpu-gitops`` command line: the root group, with every command added to it.

Each command lives in the module of its family (``fleet``: render, check, diff; ``lint``:
lint, rules, explain; ``schemas``: import, sync; ``project``: init, schema, docs, list), split
into a click function that parses and an execute function that runs (``common``,
``docs/api.md``). Exit codes: 0 clean; 1 drift or findings; 2 bad input or usage. A
traceback is a bug.
"""

from __future__ import annotations

from pathlib import Path

import click

from generator import __version__
from generator.cli import fleet, lint, project, schemas
from generator.cli.common import Context, OutputOptionsGroup, Ui


@click.group(cls=OutputOptionsGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
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


for command in (*fleet.COMMANDS, *lint.COMMANDS, *schemas.COMMANDS, *project.COMMANDS):
    cli.add_command(command)


def main() -> None:
    cli(prog_name="gpu-gitops")


__all__ = ["Context", "Ui", "cli", "main"]
