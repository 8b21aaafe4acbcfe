"""What every command shares: the context (project root, output settings, config file), the
exit codes, the output, and the two halves each command is split into.

A command is a click function that only turns its arguments into a small ``...Args``
dataclass, and a plain ``execute``-style function taking that dataclass and returning the exit
code (``docs/api.md``). An ``InputError`` an execute function raises is printed and becomes
exit code 2 (``reports_input_errors``), whoever called it. The option stacks commands share
are ``cli.options``'.

click is imported where it is needed, not here: a lint answered by ``cli.plainlint`` runs
without it (its import is 130 M instructions). ``echo`` writes a line as ``click.echo`` does.
"""

from __future__ import annotations

import functools
import io
import os
import sys
from collections.abc import Callable

from generator.diagnostic import Diagnostic, Location, format_text, shown_text
from generator.errors import InputError
from generator.paths import Project, find_root, is_project_root

TYPE_CHECKING = False  # typing's flag without importing typing (PEP 781; mypy reads it as True)
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, TypeVar

    from generator.render import pipeline


# Commands import what they use when they run: `--version`, `--help` and `list` start
# without loading the schema validator, the YAML library or the Jsonnet engine.

EXIT_OK, EXIT_FINDINGS, EXIT_INPUT = 0, 1, 2


def echo(text: str, err: bool = False, nl: bool = True, color: bool | None = None) -> None:
    """``click.echo(text, err=err, nl=nl, color=color)``, without importing click where click
    writes the text unchanged to the stream as it is: a text without an escape sequence (all
    that click strips), on POSIX (click writes to a Windows console through a stream of its own),
    to a text stream (``io.TextIOWrapper``: click wraps a binary one) with an encoding and an
    error handler, the encoding not ASCII (click wraps such a stream in a UTF-8 writer)."""
    stream = sys.stderr if err else sys.stdout
    if (
        "\x1b" in text
        or os.name != "posix"
        or not isinstance(stream, io.TextIOWrapper)
        or stream.errors is None
        or not stream.encoding
        or _is_ascii(stream.encoding)
    ):
        import click

        click.echo(text, err=err, nl=nl, color=color)
        return
    if nl:
        text += "\n"
    for start in range(0, len(text), WRITTEN_PIECE):
        stream.write(text[start : start + WRITTEN_PIECE])
    stream.flush()


# A long text (a JSON report of a large tree is most of a megabyte) is written a piece at a time:
# the stream encodes what it is given into a new bytes object, and one of the whole text is
# memory the process has not touched (a lint after an edit: 3,679 -> 3,507 pages faulted in, each
# ~3.4 µs of the kernel's time here), where a piece reuses the same memory each time.
WRITTEN_PIECE = 1 << 16


def _is_ascii(encoding: str) -> bool:
    """click's test of a misconfigured stream (``click._compat.is_ascii_encoding``)."""
    import codecs

    try:
        return codecs.lookup(encoding).name == "ascii"
    except LookupError:
        return False


class Ui:
    """Output with the verbosity and colour the user asked for."""

    def __init__(self, quiet: bool = False, verbose: bool = False, color: str = "auto"):
        self.quiet, self.verbose = quiet, verbose
        self.use_color(color)
        self.collected: list[Diagnostic] | None = None  # diagnostics kept for a --format report

    def use_color(self, color: str) -> None:
        # None: auto, colour only on a terminal; NO_COLOR (no-color.org) turns auto off
        self.color = {"always": True, "never": False}.get(color, False if os.environ.get("NO_COLOR") else None)

    def out(self, text: str = "", **style: Any) -> None:
        if not self.quiet:
            import click

            click.secho(text, color=self.color, **style)

    def info(self, text: str) -> None:
        if self.verbose:
            import click

            click.secho(text, err=True, color=self.color, dim=True)

    def diagnostic(self, diagnostic: Diagnostic) -> None:
        """One diagnostic on standard error, styled where colour is on (kept for the report
        instead, while a ``--format`` other than text collects them)."""
        if self.collected is not None:
            self.collected.append(diagnostic)
            return
        echo(format_text(diagnostic, color=self.color is not False), err=True, color=self.color)

    def problem(self, path: str, message: str) -> None:
        """``path: message`` on standard error: a finding about a file that has no line (a stale
        rendered file), an error in a ``--format`` report."""
        if self.collected is not None:
            self.collected.append(Diagnostic(Location(path), "error", message))
            return
        echo(f"{path}: {message}", err=True)

    def error(self, err: InputError) -> None:
        for diagnostic in err.diagnostics:
            self.diagnostic(diagnostic)
        self.detail(err)

    def detail(self, err: InputError) -> None:
        """Under ``-v``, the full text behind an error (a Jsonnet trace), escaped as its message is."""
        if err.detail:
            self.info("\n".join(shown_text(line) for line in err.detail.splitlines()))


class Context:
    """What every command shares: the project root, the output settings, the config file.

    The root is ``root``, else the nearest folder upward from the working directory that
    holds ``clusters/`` or ``.gpu-gitops.yaml`` (as git finds ``.git``). Commands that read a
    fleet call ``require_project()``; the others (init, lint PATHS, schema, rules) also work
    outside one, in the working directory.
    """

    def __init__(
        self,
        root: str | os.PathLike[str] | None = None,
        ui: Ui | None = None,
        config_path: str | os.PathLike[str] | None = None,
    ):
        self.given_root = root
        # the root as text (``paths.plain``): lint's path imports no ``pathlib``
        self.folder = os.path.realpath(root) if root is not None else find_root(os.getcwd())
        self.project = Project(self.folder or os.path.realpath(os.getcwd()))
        self.ui = ui or Ui()
        self.config_path = config_path
        self.remember = True  # whether freshness checks keep a stat record (not for a scratch copy)

    @property
    def root(self) -> Path | None:
        """The project root given or found, None when none was found."""
        return self.project.root if self.folder is not None else None

    def require_project(self) -> Project:
        """The project, or the one error every command gives outside a project."""
        if self.folder is not None and is_project_root(self.folder):
            return self.project
        if self.given_root is not None:
            message = f"not a gpu-gitops project: {self.root} holds neither clusters/ nor .gpu-gitops.yaml"
        else:
            message = (
                f"not inside a gpu-gitops project: neither {os.path.realpath(os.getcwd())} nor a folder above it "
                "holds clusters/ or .gpu-gitops.yaml"
            )
        raise InputError(message, hint="start one here with `gpu-gitops init NAME`, or give its folder with --root DIR")

    @property
    def config_file(self) -> Path:
        from pathlib import Path

        return Path(self.config_path) if self.config_path is not None else self.project.root / ".gpu-gitops.yaml"

    def options(self, schema_locations: tuple[str, ...], require_schemas: bool) -> pipeline.Options:
        from generator.config import load_config
        from generator.render import pipeline
        from generator.tree import fingerprint

        config = load_config(self.project, self.config_path)
        return pipeline.Options(
            schema_locations=list(schema_locations) + config.schema_locations,
            require_schemas=require_schemas or config.require_schemas,
            config=config.data,
            config_file=self.config_file,
            flags=fingerprint.validation_flags(schema_locations, require_schemas),
        )

    def fresh(
        self,
        names: list[str],
        schema_locations: tuple[str, ...],
        require_schemas: bool,
        for_render: bool = False,
        full: bool = False,
    ) -> list[str]:
        """Clusters whose sum file says nothing changed (none with ``full``). Validation flags
        given on the command line are not in it: with them, a cluster is fresh once this
        machine has validated its tree with those flags (``fingerprint.record_validated``)."""
        from generator.tree import fingerprint

        if full:
            return []

        flags = fingerprint.validation_flags(schema_locations, require_schemas)
        return fingerprint.fresh(
            self.project, names, self.config_file, modes=for_render, flags=flags, remember=self.remember
        )


def unchecked_summary(kinds: list[str], rule: str = "") -> Diagnostic:
    """The one warning a run gives for the kinds it found no schema for (``-v`` lists each object)."""
    from generator.validate import schemaset

    return Diagnostic(
        Location(),
        "warning",
        f"no schema found, not schema-checked: {', '.join(kinds)}",
        schemaset.MISSING_HINT,
        rule,
    )


# --- the two halves of a command -------------------------------------------------------------

if TYPE_CHECKING:
    Args = TypeVar("Args")


def reports_input_errors(execute: Callable[[Args], int]) -> Callable[[Args], int]:
    """An execute function whose ``InputError`` is printed (on ``args.ctx``'s output) and is
    exit code 2, for the command line and Python callers alike."""

    @functools.wraps(execute)
    def wrapper(args: Any) -> int:
        try:
            return execute(args)
        except InputError as err:
            args.ctx.ui.error(err)
            return EXIT_INPUT

    return wrapper


DIAGNOSTIC_FORMATS = ("text", "github", "sarif", "json")


def reports_in_format(execute: Callable[[Args], int]) -> Callable[[Args], int]:
    """An execute function whose diagnostics (input errors included) are printed as one report
    in ``args.fmt`` on standard output (the lint formats: GitHub annotations at the input's
    line, SARIF, JSON); ``text`` prints them as they come, on standard error."""

    @functools.wraps(execute)
    def wrapper(args: Any) -> int:
        if args.fmt == "text":
            return execute(args)
        from generator.report import Report, render

        ui = args.ctx.ui
        ui.collected = []
        try:
            code = execute(args)
        finally:
            found, ui.collected = ui.collected, None
        echo(
            render(args.fmt, Report(found, workdir=args.ctx.project.folder, title=f"gpu-gitops {args.command}")),
            nl=False,
        )
        return code

    return wrapper


def finish(code: int) -> None:
    """End a click command with an execute function's exit code."""
    import click

    click.get_current_context().exit(code)
