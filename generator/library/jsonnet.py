"""The one place that talks to Jsonnet: engine, top-level arguments, import sandbox, errors.

Imports resolve only inside the library folder (``libsonnet/``) and the cluster's own folder.
Absolute paths, ``..`` escapes and symlinks that leave those folders are refused, so an
``overrides.libsonnet`` cannot read ``/etc/passwd`` into a committed manifest. Jsonnet's own
errors come back as ``InputError``s at ``file:line:col``.

The engine is jrsonnet (``rjsonnet``): on this library it evaluates ~40x faster than the C++
``jsonnet`` binding and ~6x faster than ``gojsonnet``, with identical output (see
bench/bench_engines.py). Each evaluation runs in a helper process bounded in CPU time and memory
(``generator.library.bounded``), so a runaway override fails with a located error instead of hanging or
aborting the render; the sandbox and the engine's call, which run there, are ``library.engine``.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from generator import regex
from generator.diagnostic import line_col
from generator.errors import InputError
from generator.library import bounded, deferred
from generator.library.engine import ENTRY_NAME, MAX_STACK, EngineError, Sandbox
from generator.library.engine import MAX_IMPORT_BYTES as MAX_IMPORT_BYTES  # the bound, where its users look

# a trace frame: "    /abs/file.libsonnet:12:5-20: description" or "    file:(12:5)-(13:1): ..."
_FRAME = regex.compile(r"^ {4}(?P<file>[^\s:][^:]*):\(?(?P<line>\d+):(?P<col>\d+)")
_KIND = regex.compile(
    r"^(?:(?P<kind>runtime error|syntax error|import_callback error): )?(?:RuntimeError: )?(?P<msg>.*)$", re.S
)

# Bounds of one evaluation (an example cluster needs ~0.02 s of CPU). Raised through the
# environment, so render workers inherit them.
CPU_ENV, MEMORY_ENV = "GPU_GITOPS_JSONNET_CPU_SECONDS", "GPU_GITOPS_JSONNET_MEMORY_MIB"
WALL_ENV = "GPU_GITOPS_JSONNET_WALL_SECONDS"
# the wall-clock bound leaves the CPU bound room on a machine shared by a few processes per core
DEFAULT_CPU_SECONDS, DEFAULT_MEMORY_MIB, DEFAULT_WALL_SECONDS = 60, 2048, 300


def limits() -> bounded.Limits:
    """The evaluation bounds: the defaults, or what the environment raises them to."""
    values = []
    for name, default in (
        (CPU_ENV, DEFAULT_CPU_SECONDS),
        (MEMORY_ENV, DEFAULT_MEMORY_MIB),
        (WALL_ENV, DEFAULT_WALL_SECONDS),
    ):
        text = os.environ.get(name, "")
        if text and not (text.isdigit() and int(text) > 0):
            raise InputError(
                f"{name}={text!r} is not a positive whole number",
                path=name,
                hint=f"unset it for the default ({default}) or give e.g. {name}={default * 2}",
            )
        values.append(int(text) if text else default)
    return bounded.Limits(*values)


def evaluate(
    code: str,
    sandbox: Sandbox,
    tla: dict[str, object],
    home: Path | None = None,
    blame: str = ENTRY_NAME,
    markers: bool = False,
) -> object:
    """Evaluate an entry snippet whose top level is a function of ``tla``'s keys.

    The snippet's own imports resolve against ``home`` first (the cluster's folder), then
    against the library. Errors raised by the snippet itself are reported at ``blame``
    (the overrides file, when the snippet merges one). The evaluation is bounded by ``limits()``.
    ``markers``: the library's deferred serialisation markers replaced by their texts
    (``deferred.loads``; a malformed one is an ``InputError``).
    """
    entry = str((home.resolve() if home else Path("/")) / ENTRY_NAME)
    tla_json = {key: json.dumps(value) for key, value in tla.items()}
    try:
        text = bounded.run("generator.library.engine:evaluate_unbounded", (code, entry, sandbox, tla_json), limits())
    except EngineError as exc:
        raise _to_input_error(exc, sandbox, blame) from None
    except bounded.Bound as exc:
        raise _bound_error(exc, blame) from None
    return deferred.loads(text) if markers else json.loads(text)


def _bound_error(exc: bounded.Bound, blame: str) -> InputError:
    if exc.which == "cpu":
        return InputError(
            f"Jsonnet evaluation took more than {exc.limits.cpu_seconds} s of CPU time; stopped",
            path=blame,
            hint=f"look for a loop or runaway recursion; if the work is real, raise the bound with {CPU_ENV}=<seconds>",
        )
    if exc.which == "wall":
        return InputError(
            f"Jsonnet evaluation took more than {exc.limits.wall_seconds} s of wall-clock time; stopped",
            path=blame,
            hint="on a busy machine, render with fewer --jobs or raise the bound with "
            f"{WALL_ENV}=<seconds>; else look for a loop or runaway recursion",
        )
    if exc.which == "memory":
        return InputError(
            f"Jsonnet evaluation needed more than {exc.limits.memory_mib} MiB of memory; stopped",
            path=blame,
            hint=f"look for a huge std.repeat/std.range or runaway recursion; if the "
            f"data is real, raise the bound with {MEMORY_ENV}=<MiB>",
        )
    return InputError(
        f"Jsonnet evaluation crashed ({exc.detail})",
        path=blame,
        hint="this is a bug; please report it with the overrides that trigger it",
    )


def _to_input_error(error: EngineError, sandbox: Sandbox, blame: str) -> InputError:
    """Map the engine's message and stack trace to the user's location: the innermost frame
    in a file of theirs (the cluster's folder), else the field being written where the
    overrides file writes it, else the innermost frame.

    The engine reports ``<kind>: <message>`` and then one indented frame per line,
    innermost first: ``    /abs/path.libsonnet:LINE:COL-COL: what``, or, while it writes
    the result, ``    field <name> manifestification`` without a file. The message is the
    engine's first part only; its whole text is the error's ``detail`` (printed under ``-v``).
    """
    lines = error.text.splitlines()
    split = next((i for i, line in enumerate(lines) if line.startswith("    ")), len(lines))
    head = _KIND.match("\n".join(lines[:split]).strip() or "Jsonnet evaluation failed")
    assert head is not None  # its message group matches any text
    message = " ".join(head.group("msg").split())
    frames = [_FRAME.match(line) for line in lines[split:]]
    located = [f for f in frames if f and Path(f.group("file")).name != ENTRY_NAME]
    own = [f for f in located if not _in_library(f.group("file"), sandbox)]
    fields = [m.group(1) for m in map(_FIELD.match, lines[split:]) if m][::-1]  # outermost first
    if head.group("kind") == "syntax error":
        message, hint = f"Jsonnet syntax error: {message}", "fix the Jsonnet syntax at this position"
    elif message.startswith("stack overflow"):
        message = f"Jsonnet recursion deeper than {MAX_STACK} calls"
        hint = "look for a function that calls itself without a base case"
    else:
        hint = _hint_for(message)
    detail = error.text
    if own:
        return _at_frame(message, own[0], sandbox, hint, detail)
    if fields:  # the field being written when it failed, where the overrides file writes it
        message = f"{message} (in field {'.'.join(fields)})"
        written = find_written(sandbox.display_root / blame, fields) if blame != ENTRY_NAME else None
        if written:
            return InputError(message, path=blame, line=written[0], col=written[1], hint=hint, detail=detail)
    if located:
        return _at_frame(message, located[0], sandbox, hint, detail)
    if error.failed_import:
        found = _find_import(*error.failed_import)
        if found:
            path, line, col = found
            return InputError(message, path=_shown(str(path), sandbox), line=line, col=col, hint=hint, detail=detail)
    return InputError(message, path=blame, hint=hint, detail=detail)


def _at_frame(message: str, frame: re.Match, sandbox: Sandbox, hint: str, detail: str) -> InputError:
    return InputError(
        message,
        path=_shown(frame.group("file"), sandbox),
        line=int(frame.group("line")),
        col=int(frame.group("col")),
        hint=hint,
        detail=detail,
    )


# a frame of the result being written: "    field <name> manifestification"
_FIELD = regex.compile(r"^ {4}field <(.*)> manifestification$")


def _in_library(file: str, sandbox: Sandbox) -> bool:
    return os.path.isabs(file) and Path(file).resolve().is_relative_to(sandbox.library)


def find_written(path: Path, fields: list[str], value: str | None = None) -> tuple[int, int] | None:
    """1-based line and column where the Jsonnet file ``path`` writes the deepest of ``fields``
    (outermost first) it writes, each searched for after the one outside it, and then the
    string literal ``value`` after it when given: where an override sets what the engine could
    not write, or a name render refuses. None when not even the first is written there."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    found, start = None, 0
    for name in fields:
        quoted = "|".join(re.escape(q + name + q) for q in ("'", '"'))
        plain = "|" + re.escape(name) if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) else ""
        match = re.compile(rf"(?<![\w'\"])(?:{quoted}{plain})\s*\+?:{{1,3}}").search(text, start)
        if match is None:
            return found
        found, start = line_col(text, match.start()), match.end()
    if value is not None:
        quoted = "|".join(re.escape(q + value + q) for q in ("'", '"'))
        literal = re.compile(rf"(?:{quoted})(?!\s*\+?:)")  # a value, not a key
        match = literal.search(text, start)
        if match is not None:
            found = line_col(text, match.start())
    return found


def _find_import(importer_dir: str, rel: str) -> tuple[Path, int, int] | None:
    """The first ``import``/``importstr``/``importbin`` of ``rel`` in a Jsonnet file of
    ``importer_dir``: where a refused import was written."""
    pattern = re.compile(r"\bimport(?:str|bin)?\s*@?(['\"])" + re.escape(rel) + r"\1")
    for path in sorted(Path(importer_dir).glob("*sonnet")):
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:  # a link to nowhere, a folder named x.libsonnet: not where it was written
            continue
        match = pattern.search(text)
        if match:
            return (path, *line_col(text, match.start()))
    return None


def _shown(file: str, sandbox: Sandbox) -> str:
    return sandbox.display(Path(file)) if os.path.isabs(file) else file


def _hint_for(message: str) -> str:
    if "refused" in message or "outside libsonnet" in message:
        return "overrides may import only files from libsonnet/ or the cluster's own folder"
    if "not found" in message:
        return "check the import path; it is relative to the importing file or to libsonnet/"
    if "object + array" in message:  # `'<component>'+: [...]`: a library component is keyed, not a list
        return "a component is an object keyed by file name: add or patch one object with '<component>'+: { '<key>': ... } (docs/overrides.md)"
    return "the expression at this position failed; -v prints the engine's trace"
