"""The helper's side of Jsonnet: the import sandbox and the engine's call, as lean as the helper.

The helper process (``library.helper``) imports this module and nothing of the renderer's:
``library.jsonnet`` maps what comes back to input errors in the caller.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

ENTRY_NAME = "<entry>"
MAX_IMPORT_BYTES = 4 * 1024 * 1024
MAX_STACK = 500  # Jsonnet call depth; deeper recursion is an error, not a native stack overflow


class Sandbox:
    """Resolves imports inside a fixed set of folders and nowhere else."""

    def __init__(self, library: Path, cluster_folder: Path | None, display_root: Path):
        self.library = library.resolve()
        self.display_root = display_root.resolve()
        # the folders as text, each ended by the separator a path inside continues it with:
        # ``resolve`` runs for every import of every evaluation (~42 an evaluation), where
        # pathlib's parsing was half its cost
        self._library_text = str(self.library)
        roots = [self.library] + ([cluster_folder.resolve()] if cluster_folder else [])
        self._prefixes = [os.path.join(str(root), "") for root in roots]

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

    def _allowed(self, real: str) -> bool:
        """Whether ``real`` (a real path, as ``os.path.realpath`` gives it) is a root or inside one."""
        inside = real if real.endswith(os.sep) else real + os.sep
        return any(inside.startswith(prefix) for prefix in self._prefixes)

    def resolve(self, importer_dir: str, rel: str) -> tuple[str, str]:
        """The path and text of an import, refused unless it stays inside the sandbox's folders."""
        if os.path.isabs(rel) or rel.startswith("~"):
            raise RuntimeError(
                f"absolute import path {rel!r} refused: imports must stay inside libsonnet/ or the cluster's folder"
            )
        bases = [importer_dir] if importer_dir else []
        bases.append(self._library_text)
        for base in bases:
            real = os.path.realpath(os.path.join(base, rel))  # what Path.resolve() gives
            if not self._allowed(real):
                raise RuntimeError(
                    f"import {rel!r} resolves to {self.display(Path(real))}, outside libsonnet/ "
                    "and the cluster's folder; refused"
                )
            if os.path.isfile(real):
                # measured before it is read, and read no further than the bound (it may grow meanwhile)
                with open(real, "rb") as handle:
                    size = os.fstat(handle.fileno()).st_size
                    data = handle.read(MAX_IMPORT_BYTES + 1) if size <= MAX_IMPORT_BYTES else b""
                if size > MAX_IMPORT_BYTES or len(data) > MAX_IMPORT_BYTES:
                    raise RuntimeError(f"import {rel!r} is larger than {MAX_IMPORT_BYTES} bytes")
                try:
                    return real, data.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise RuntimeError(f"import {rel!r} is not UTF-8 text (byte {exc.start})") from None
        raise RuntimeError(f"import {rel!r} not found in libsonnet/ or the cluster's folder")


class EngineError(Exception):
    """The engine's error text, and the import the sandbox refused, if that was the cause
    (the engine reports a refused import without the position of the import expression)."""

    def __init__(self, text: str, failed_import: tuple[str, str] | None):
        super().__init__(text, failed_import)
        self.text, self.failed_import = text, failed_import


def evaluate_unbounded(code: str, entry: str, sandbox: Sandbox, tla_json: dict[str, str]) -> str:
    """The engine's JSON text for ``code`` served as the file ``entry``, called with the JSON
    texts of ``tla_json`` as its arguments; runs in the bounded helper.

    The arguments go in as strings the snippet reads with ``std.parseJson``: given as Jsonnet code
    instead, the engine's Jsonnet parser read them at ~0.6 ms a cluster's spec (a tenth of that
    for its JSON reader), the same values either way."""
    import rjsonnet

    failed: list[tuple[str, str]] = []
    answered: dict[tuple[str, str], tuple[str, str]] = {}

    def resolve(importer_dir: str, rel: str) -> tuple[str, str]:
        # the engine resolves a snippet's imports against the working directory, so the
        # snippet is served as a file in its home folder and its imports resolve from there
        if rel == ENTRY_NAME:
            return entry, code
        # the engine asks again each time it meets an import (one in a function's body: once
        # per call, 527 asks for 41 files in an evaluation of 16 clusters, ~95 k instructions
        # each) and keeps the file it parsed first under that path: the first answer stands
        key = (importer_dir, rel)
        answer = answered.get(key)
        if answer is None:
            try:
                answer = answered[key] = sandbox.resolve(importer_dir, rel)
            except RuntimeError:
                failed.append(key)
                raise
        return answer

    names = list(tla_json)
    called = f"(import {json.dumps(ENTRY_NAME)})"
    if names:
        called = f"function({', '.join(names)}) {called}({', '.join(f'{n}=std.parseJson({n})' for n in names)})"
    try:
        return rjsonnet.evaluate_snippet(
            ENTRY_NAME,
            called,
            tla_vars=tla_json,
            import_callback=resolve,
            max_stack=MAX_STACK,
            max_trace=20,
            # No cycle collection after the evaluation (rjsonnet 0.5.6, src/lib.rs: `if gc {
            # collect_thread_cycles() }` once the result is manifested; none runs during it):
            # it took ~20% of an evaluation to free ~4.5 MiB the helper no longer needs. Each
            # call runs in a process forked for it, which leaves once it has replied
            # (library.helper).
            gc=False,  # type: ignore[call-arg]  # rjsonnet's stub lacks the parameter its 0.5.6 takes
        )
    except RuntimeError as exc:
        raise EngineError(str(exc), failed[-1] if failed else None) from None
