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

from generator.cli.table import FAMILIES, SUMMARIES, version_text

__all__ = ["FAMILIES", "SUMMARIES", "main", "version_text"]


def main() -> None:
    args = sys.argv[1:]
    if args == ["--version"]:
        # answered without loading click: the commonest call of a tool's start-up cost (CI
        # logs, bug reports, scripts checking the installed version)
        sys.stdout.write(version_text() + "\n")
        raise SystemExit(0)
    if args[-1:] in (["--help"], ["-h"]):
        from generator.cli import helpcache

        helpcache.answer(args)  # exits, having printed click's page, unless click must answer
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
