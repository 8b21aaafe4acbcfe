"""The ``gpu-gitops`` command line: the root group, and ``add_command`` for every command.

Each command lives in the module of its family (``fleet``: render, check, diff; ``lint``:
lint, rules, explain; ``schemas``: import, sync; ``charts``: pull; ``project``: init, schema, docs, list;
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

# `--version` and `--help` import click and this module only: the shared parts of the
# commands (``common``) load with the first command's family, and `--help` lists the commands
# from ``SUMMARIES`` without importing their modules.

# The module of each command. A family's module is imported, and its commands added, when one
# of them is looked up (completion looks up all): a run pays for its own family only, and an
# up-to-date ``check`` starts as fast as the command line can.
FAMILIES = {
    "render": "fleet",
    "check": "fleet",
    "diff": "fleet",
    "lint": "lint",
    "rules": "lint",
    "explain": "lint",
    "schemas": "schemas",
    "charts": "charts",
    "init": "project",
    "schema": "project",
    "docs": "project",
    "list": "project",
    "explain-input": "inputs",
    "migrate": "inputs",
}
# The first paragraph of each command's help, which `gpu-gitops --help` shortens as click
# does (tests/cli/test_cli_help.py holds it to the commands' own).
SUMMARIES = {
    "charts": "Manage the Helm charts the clusters deploy.",
    "check": "Fail (exit 1) if rendered/ is stale or invalid; for CI and pre-commit.",
    "diff": "Show what render would change, without writing. Exit 1 when there are changes.",
    "docs": "Regenerate the reference docs under docs/.",
    "explain": "Explain a rule: what it finds, why, how to fix it, with failing and passing examples.",
    "explain-input": "Show KEY's value in CLUSTER's input and every file (base or cluster) that set it.",
    "init": "Scaffold clusters/NAME/cluster.yaml, commented and valid.",
    "lint": "Lint manifests: strict schemas, GPU, huge pages, API-version and security rules.",
    "list": "List the clusters under clusters/ and where they render.",
    "migrate": "Rewrite cluster inputs and their bases from an older input version to the current one.",
    "render": "Render clusters (default: all) into rendered/<cluster>/.",
    "rules": "List the lint rules: ID, default severity, name and summary.",
    "schema": "Print the JSON Schema of cluster inputs.",
    "schemas": "Manage JSON Schemas for custom resources.",
}


class _Commands(click.Group):
    """The root group: ``add_command`` for every command of a family, on its first use; its
    commands take the output options too (``common.with_output_options``)."""

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in FAMILIES:
            self._add_family(FAMILIES[cmd_name])
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        for family in sorted(set(FAMILIES.values())):
            self._add_family(family)
        return super().list_commands(ctx)

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        from generator.cli.common import with_output_options

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
    from generator.cli.common import Context, Ui

    ctx.obj = Context(root, Ui(quiet, verbose, color), config_path)


def main() -> None:
    cli(prog_name="gpu-gitops")


def __getattr__(name: str):
    """``Context`` and ``Ui``, the Python API's entry points (docs/api.md), from ``common`` on
    first use."""
    if name in ("Context", "Ui"):
        from generator.cli import common

        return getattr(common, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["FAMILIES", "SUMMARIES", "Context", "Ui", "cli", "main"]
