"""The one place that talks to Jsonnet: engine, top-level arguments, import sandbox, errors.

Imports resolve only inside the library folder (``libsonnet/``) and the cluster's own folder.
Absolute paths, ``..`` escapes and symlinks that leave those folders are refused, so an
``overrides.libsonnet`` cannot read ``/etc/passwd`` into a committed manifest. Jsonnet's own
errors come back as ``InputError``s at ``file:line:col``.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import _jsonnet

from generator.errors import InputError

# "file.libsonnet:12:5-20" or "file.libsonnet:(12:5)-(13:1)" in Jsonnet traces
_TRACE = re.compile(r"^\s*(?P<file>[^\s:][^:]*):\(?(?P<line>\d+):(?P<col>\d+)")
_STATIC = re.compile(r"^STATIC ERROR: (?P<file>[^:]+):(?P<line>\d+):(?P<col>\d+)(?:-\d+)?: (?P<msg>.*)$")
ENTRY_NAME = "<entry>"
MAX_IMPORT_BYTES = 4 * 1024 * 1024


class Sandbox:
    """Resolves imports inside a fixed set of folders and nowhere else."""

    def __init__(self, library: Path, cluster_folder: Path | None, display_root: Path):
        self.library = library.resolve()
        self.roots = [self.library] + ([cluster_folder.resolve()] if cluster_folder else [])
        self.display_root = display_root.resolve()

    def display(self, path: Path) -> str:
        """Library files as ``libsonnet/...`` wherever the library is installed; others
        relative to the project root."""
        path = Path(path)
        if path.is_relative_to(self.library):
            return (Path("libsonnet") / path.relative_to(self.library)).as_posix()
        try:
            return os.path.relpath(path, self.display_root)
        except ValueError:
            return str(path)

    def _allowed(self, path: Path) -> bool:
        return any(path.is_relative_to(root) for root in self.roots)

    def resolve(self, importer_dir: str, rel: str) -> tuple[str, bytes]:
        if os.path.isabs(rel) or rel.startswith("~"):
            raise RuntimeError(f"absolute import path {rel!r} refused: imports must stay inside libsonnet/ "
                               "or the cluster's folder")
        bases = [Path(importer_dir)] if importer_dir else []
        bases.append(self.library)
        for base in bases:
            candidate = base / rel
            real = candidate.resolve()
            if not self._allowed(real):
                raise RuntimeError(f"import {rel!r} resolves to {self.display(real)}, outside libsonnet/ "
                                   "and the cluster's folder; refused")
            if real.is_file():
                if real.stat().st_size > MAX_IMPORT_BYTES:
                    raise RuntimeError(f"import {rel!r} is larger than {MAX_IMPORT_BYTES} bytes")
                # report the path the user wrote against, not the symlink target
                return str(real), real.read_bytes()
        raise RuntimeError(f"import {rel!r} not found in libsonnet/ or the cluster's folder")


def evaluate(code: str, sandbox: Sandbox, tla: dict[str, object], home: Path | None = None,
             blame: str = ENTRY_NAME) -> object:
    """Evaluate an entry snippet whose top level is a function of ``tla``'s keys.

    The snippet's own imports resolve against ``home`` first (the cluster's folder), then
    against the library. Errors raised by the snippet itself are reported at ``blame``
    (the overrides file, when the snippet merges one).
    """
    tla_codes = {key: json.dumps(value) for key, value in tla.items()}
    try:
        text = _jsonnet.evaluate_snippet(
            str((home.resolve() if home else Path("/")) / ENTRY_NAME),
            code,
            tla_codes=tla_codes,
            import_callback=sandbox.resolve,
            max_trace=20,
        )
    except RuntimeError as exc:
        raise _to_input_error(str(exc), sandbox, blame) from None
    return json.loads(text)


def _to_input_error(text: str, sandbox: Sandbox, blame: str) -> InputError:
    """Map Jsonnet's message and stack trace to the innermost user-visible location."""
    lines = [line for line in text.splitlines() if line.strip()]
    first = lines[0] if lines else "Jsonnet evaluation failed"
    static = _STATIC.match(first)
    if static:
        path = _shown(static.group("file"), sandbox)
        return InputError(f"Jsonnet syntax error: {static.group('msg')}", path=path,
                          line=int(static.group("line")), col=int(static.group("col")),
                          hint="fix the Jsonnet syntax at this position")
    message = re.sub(r"^RUNTIME ERROR: ", "", first)
    for frame in lines[1:]:
        match = _TRACE.match(frame)
        if match and Path(match.group("file")).name != ENTRY_NAME:
            return InputError(message, path=_shown(match.group("file"), sandbox),
                              line=int(match.group("line")), col=int(match.group("col")),
                              hint=_hint_for(message))
    return InputError(message, path=blame, hint=_hint_for(message))


def _shown(file: str, sandbox: Sandbox) -> str:
    return sandbox.display(Path(file)) if os.path.isabs(file) else file


def _hint_for(message: str) -> str:
    if "refused" in message or "outside libsonnet" in message:
        return "overrides may import only files from libsonnet/ or the cluster's own folder"
    if "not found" in message:
        return "check the import path; it is relative to the importing file or to libsonnet/"
    return "the trace points at the Jsonnet expression that failed"
