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

import os
import sys

_closed = False  # set by a command that returns with every file it opened closed (``files_closed``)


def main(in_process: bool = False) -> None:
    """The command line of ``sys.argv``; ends by raising ``SystemExit``, or (a lint, which
    closes every file it opened) by ending the process at once. ``in_process``: always by
    raising, for a caller that goes on after the command (a test running several in one process)."""
    global _closed
    _closed = False
    args = sys.argv[1:]
    if args == ["--version"]:
        # answered without loading click: the commonest call of a tool's start-up cost (CI
        # logs, bug reports, scripts checking the installed version)
        from generator.cli.table import version_text

        sys.stdout.write(version_text() + "\n")
        raise SystemExit(0)
    if args[-1:] in (["--help"], ["-h"]):
        from generator.cli import helpcache

        helpcache.answer(args)  # exits, having printed click's page, unless click must answer
    if "lint" in args:
        import gc

        # as ``lint.batch`` does for the checks, for the whole command: importing ~150 modules
        # and reporting allocate objects that live to the end, and the default thresholds had
        # the collector walk them ~40 times (4% of a lint answered from its cache)
        gc.set_threshold(100_000, 50, 100)
        from generator.cli import plainlint

        parsed = plainlint.parse(args)
        if parsed is not None:  # a plain lint, read as click reads it, run without importing click
            code = plainlint.run(*parsed)
            if not in_process:
                _leave(code)
            raise SystemExit(code)
    from generator.cli.root import cli

    try:
        cli(prog_name="gpu-gitops")
    except SystemExit as done:
        if _closed and not in_process:
            _leave(done.code)
        raise


def files_closed() -> None:
    """Said by a command (lint) that has closed every file it opened, its report and cache
    included: ``main`` may then end the process without the interpreter's teardown."""
    global _closed
    _closed = True


def _leave(code: object) -> None:
    """End the process now with ``code``, skipping the interpreter's teardown (freeing every
    module's objects one by one: a twentieth of a lint answered from its cache), as the Jsonnet
    helper does; return, for the normal exit, when teardown has something left to do: an exit
    message instead of a code, an ``atexit`` callback, another thread, or standard streams that
    cannot be flushed (a closed pipe: the normal exit says so as click arranged)."""
    import atexit

    if not (code is None or (isinstance(code, int) and 0 <= code <= 255)) or atexit._ncallbacks():
        return
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return
    os._exit(code or 0)


def __getattr__(name: str) -> object:
    """``cli``, the root group, from ``root``; ``Context`` and ``Ui``, the Python API's entry
    points (docs/api.md), from ``common``; the table of commands from ``table``: each on first
    use (a lint needs none of them)."""
    if name == "cli":
        from generator.cli.root import cli

        return cli
    if name in ("Context", "Ui"):
        from generator.cli import common

        return getattr(common, name)
    if name in ("FAMILIES", "SUMMARIES", "version_text"):
        from generator.cli import table

        return getattr(table, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["FAMILIES", "SUMMARIES", "Context", "Ui", "cli", "main", "version_text"]
