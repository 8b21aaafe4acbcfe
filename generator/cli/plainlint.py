"""The plain ``lint`` command line read without click: ``gpu-gitops [--root DIR] [--config FILE]
[-q] [-v] [--color WHEN] lint [-o|--format FORMAT] [-j|--jobs N] [--no-cache] [PATH...]``.

Why: click's import is 130 M instructions, a fifth of a lint answered from its cache (what an
editor's or a pre-commit hook's lint after an edit is). What is read here is read as click
reads it, or not at all: each option at most once, a word of its own with its value in the
next word (no ``--opt=value``, no bundled flags, no value that starts with ``-``), the values
click takes without a word (a format of ``report.FORMATS``, a job count of ASCII digits of at
least 1, a ``--root`` that is not a file and is readable or is not there, a ``--config`` that is
not a folder and is readable or is not there, a colour of the three), paths that do not start
with ``-``. Any other command line (``--help``, another option, ``-`` for standard input), a
shell-completion request, a forced YAML backend (the root group checks it first) or a system
other than POSIX is left to click. ``tests/cli/test_plainlint.py`` holds the two readings equal.

May import: generator.cli (the lint's run, ``cli.lintrun``); click only for an interrupted run.
"""

from __future__ import annotations

import errno
import os
import stat
import sys

TYPE_CHECKING = False  # typing's flag without importing typing (PEP 781; mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any, NoReturn


_ROOT_FLAGS = {"-q": "quiet", "-v": "verbose"}
_ROOT_VALUES = {"--root": "root", "--config": "config_path", "--color": "color"}
_LINT_FLAGS = {"--no-cache": "no_cache"}
_LINT_VALUES = {"-o": "fmt", "--format": "fmt", "-j": "jobs", "--jobs": "jobs"}
_COLORS = ("auto", "always", "never")


def parse(args: list[str]) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The root group's parameters and lint's, by click's names, as click would pass them; None
    when click must read the command line."""
    if os.name != "posix" or os.environ.get("_GPU_GITOPS_COMPLETE") or os.environ.get("GPU_GITOPS_YAML_BACKEND"):
        return None
    root: dict[str, Any] = {"root": None, "config_path": None, "quiet": False, "verbose": False, "color": "auto"}
    lint: dict[str, Any] = {"paths": (), "fmt": "text", "jobs": None, "no_cache": False}
    given: set[str] = set()
    command = False
    words = iter(args)
    for word in words:
        if not word.startswith("-"):
            if command and word:
                lint["paths"] += (word,)
            elif word == "lint" and not command:
                command = True
            else:
                return None  # another command, or an empty path
            continue
        flags, valued, into = (_LINT_FLAGS, _LINT_VALUES, lint) if command else (_ROOT_FLAGS, _ROOT_VALUES, root)
        name = flags.get(word) or valued.get(word)
        if name is None or name in given:
            return None
        given.add(name)
        if word in flags:
            into[name] = True
            continue
        value = next(words, None)
        if value is None or value.startswith("-") or not _takes(name, value):
            return None
        into[name] = int(value) if name == "jobs" else value
    return (root, lint) if command else None


def _takes(name: str, value: str) -> bool:
    """Whether click takes ``value`` for the option ``name`` as it is, without a message."""
    if name == "fmt":
        from generator.report import FORMATS

        return value in FORMATS
    if name == "jobs":
        return value.isascii() and value.isdigit() and int(value) >= 1
    if name == "color":
        return value in _COLORS
    # click.Path(file_okay=False) for --root, (dir_okay=False) for --config; readable
    try:
        mode = os.stat(value).st_mode
    except OSError:
        return True
    refused = stat.S_ISREG(mode) if name == "root" else stat.S_ISDIR(mode)
    return not refused and os.access(value, os.R_OK)


def run(root: dict[str, Any], lint: dict[str, Any]) -> int:
    """Run the lint as the root group and lint's click command would with these parameters."""
    from generator.cli.common import Context, Ui
    from generator.cli.lintrun import LintArgs
    from generator.cli.lintrun import lint as run_lint

    # text paths, as click's given as Path objects (the lint path imports no pathlib: ``paths``)
    ctx = Context(root["root"], Ui(root["quiet"], root["verbose"], root["color"]), root["config_path"])
    try:
        return run_lint(LintArgs(ctx, **lint))
    except (EOFError, KeyboardInterrupt, OSError) as error:
        if isinstance(error, OSError) and error.errno != errno.EPIPE:
            raise
        _end_as_click(error)


def _end_as_click(error: BaseException) -> NoReturn:
    """End an interrupted run (Ctrl-C, end of input, a closed pipe) as click's main would have:
    raised again inside a click command, whose main says and does what it does for it."""
    import click

    def again() -> None:
        raise error

    click.Command("lint", callback=again).main([], prog_name="gpu-gitops")
    sys.exit(1)  # not reached: click's main exits
