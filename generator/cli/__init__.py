"""The ``gpu-gitops`` command line: the entry point, and the table of commands.

Each command lives in the module of its family (``fleet``: render, check, diff; ``lint``:
lint, rules, explain; ``schemas``: import, sync; ``charts``: pull; ``project``: init, schema, docs, list;
``inputs``: explain-input, migrate), split
into a click function that parses and an execute function that runs (``common``,
``docs/api.md``); the root group is ``root.cli``. Exit codes: 0 clean; 1 drift or findings;
2 bad input or usage. A traceback is a bug.

May import: any part of generator: the commands are the top of the import graph.
"""

from __future__ import annotations

import sys

from generator import __version__

# `--version` alone imports nothing but this module (``main`` answers it as click's version
# option would); `--help` imports click, ``root`` and this table: the shared parts of the
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
    "explain": "Explain a lint rule or an input check: what it finds, why, how to fix it, with examples.",
    "explain-input": "Show KEY's value in CLUSTER's input and every file (base or cluster) that set it.",
    "init": "Scaffold clusters/NAME/cluster.yaml, commented and valid.",
    "lint": "Lint manifests: strict schemas, GPU, huge pages, API-version and security rules.",
    "list": "List the clusters under clusters/ and where they render.",
    "migrate": "Rewrite cluster inputs and their bases from an older input version to the current one.",
    "render": "Render clusters (default: all) into rendered/<cluster>/.",
    "rules": "List the lint rules and the input checks: ID, default severity, name and summary.",
    "schema": "Print the JSON Schema of cluster inputs.",
    "schemas": "Manage JSON Schemas for custom resources.",
}


def version_text() -> str:
    """The version, and the YAML reader's backend in use (``yamlio.backend``: the compiled one or
    the pure-Python event one give the same results at different speeds)."""
    from generator.yamlio import backend

    return f"gpu-gitops, version {__version__}\nYAML reader: {backend.describe()}"


def main() -> None:
    if sys.argv[1:] == ["--version"]:
        # answered without loading click: the commonest call of a tool's start-up cost (CI
        # logs, bug reports, scripts checking the installed version)
        sys.stdout.write(version_text() + "\n")
        raise SystemExit(0)
    from generator.cli.root import cli

    cli(prog_name="gpu-gitops")


def __getattr__(name: str) -> object:
    """``cli``, the root group, from ``root``; ``Context`` and ``Ui``, the Python API's entry
    points (docs/api.md), from ``common``: each on first use."""
    if name == "cli":
        from generator.cli.root import cli

        return cli
    if name in ("Context", "Ui"):
        from generator.cli import common

        return getattr(common, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["FAMILIES", "SUMMARIES", "Context", "Ui", "cli", "main"]
