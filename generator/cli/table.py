"""The table of commands and the version text: what `--version` and `--help` need, apart from
the commands themselves (``generator.cli`` answers `--version`, ``root`` is the click group).

May import: generator (its version) and, for the version text, generator.yamlio.
"""

from __future__ import annotations

from generator import __version__

# `--version` alone imports nothing but this module (``main`` answers it as click's version
# option would); `--help` from the cache (``helpcache``) this module too; `--help` through click
# imports click, ``root`` and this table: the shared parts of the commands (``common``) load
# with the first command's family, and `--help` lists the commands from ``SUMMARIES`` without
# importing their modules.

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
