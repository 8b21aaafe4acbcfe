"""Run kubeconform as a second opinion and merge its findings into ours.

kubeconform is called with ``-strict -summary -output json`` and the user's schema locations
exactly as given (when none are given, its own ``default``: our bundled core schemas ``$ref`` a
shared definitions file kubeconform cannot resolve), then the schema set ``schemas sync``
installed. Both of its JSON dialects are read: the current one (``"status": "statusInvalid"``
with ``validationErrors``) and the older one (``"status": "INVALID"`` with only ``msg``). Its
JSON pointers are mapped to our lines through the documents we parsed and printed as our dotted
paths (``spec.template.spec.containers[0]``, as every other finding); findings we already have
(same rule, file and line) are dropped. Its errors go to the rule they are about: no schema is
K8S004, a missing apiVersion or kind K8S002, a document it cannot read K8S001; a schema it could
not download (offline, a bad URL) stops the run, as our own downloads do.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable

from generator import jsonpath, regex
from generator.diagnostic import Diagnostic, Location, ObjectRef
from generator.errors import InputError
from generator.lint.loader import Source
from generator.lint.model import Hit, Resource
from generator.lint.rules import fix_hint
from generator.lint.settings import Settings
from generator.validate import kubernetes, schemaset

MAX_ARGUMENT_BYTES = 128 * 1024  # of file names per run, well under the kernel's limit
_INVALID = {"statusInvalid", "INVALID"}
_ERROR = {"statusError", "ERROR"}


_DOWNLOAD_FAILURES = ("failed downloading schema at", "error while downloading schema at", "failed parsing schema from")
_NO_KIND = ("missing 'apiVersion' key", "missing 'kind' key")
_QUOTED_POINTER = regex.compile(r"(jsonschema: )'(/[^']*)'")


def command(binary: str, files: list[str], settings: Settings, ignore_missing_schemas: bool = False) -> list[str]:
    major, minor = kubernetes.resolve_version(settings.kubernetes_version)
    cmd = [
        binary,
        *(["-strict"] if settings.strict else []),
        "-summary",
        "-output",
        "json",
        "-kubernetes-version",
        f"{major}.{minor}.0",
    ]
    locations = list(settings.schema_locations) or ["default"]
    synced = schemaset.installed()
    if synced is not None:
        locations.append(synced.location)
    for location in locations:
        cmd += ["-schema-location", location]
    if ignore_missing_schemas or settings.ignore_missing_schemas:
        cmd.append("-ignore-missing-schemas")
    return cmd + files


def run(binary: str, files: list[str], settings: Settings, ignore_missing_schemas: bool = False) -> dict:
    """kubeconform's parsed JSON output over all ``files``; a missing or broken binary or
    unreadable output is a usage error. Files go in batches that fit a command line."""
    import shutil  # with subprocess: only a run with --kubeconform needs them

    path = shutil.which(binary)
    if path is None:
        raise InputError(
            f"kubeconform binary {binary!r} not found",
            hint="install kubeconform, put it on PATH or pass its path: --kubeconform /path/to/kubeconform",
        )
    merged: dict = {"resources": [], "summary": {}}
    for batch in batches(files):
        output = _run_once(path, batch, settings, ignore_missing_schemas)
        merged["resources"] += output.get("resources") or []
        for key, value in (output.get("summary") or {}).items():
            if isinstance(value, int):
                merged["summary"][key] = merged["summary"].get(key, 0) + value
    return merged


def batches(files: list[str], budget: int | None = None) -> list[list[str]]:
    """``files`` split so each batch's arguments stay under ``budget`` bytes (Linux allows
    2 MiB of arguments and environment; a tree of many thousand files exceeds it)."""
    budget = budget or MAX_ARGUMENT_BYTES
    out: list[list[str]] = []
    size = budget
    for name in files:
        cost = len(os.fsencode(name)) + 1
        if size + cost > budget and (not out or out[-1]):
            out.append([])
            size = 0
        out[-1].append(name)
        size += cost
    return out or [[]]


def _run_once(path: str, files: list[str], settings: Settings, ignore_missing_schemas: bool) -> dict:
    import subprocess

    try:
        proc = subprocess.run(
            command(path, files, settings, ignore_missing_schemas),
            capture_output=True,
            encoding="utf-8",
            errors="replace",
            check=False,
        )
    except OSError as exc:
        raise InputError(
            f"cannot run kubeconform {path!r}: {exc.strerror or exc}",
            hint="check that --kubeconform points at the kubeconform executable for this platform",
        ) from None
    try:
        output = json.loads(proc.stdout)
        if not isinstance(output, dict):
            raise ValueError("not a JSON object")
        return output
    except ValueError:
        detail = (proc.stderr or proc.stdout).strip().splitlines()
        raise InputError(
            f"kubeconform failed (exit {proc.returncode}): {detail[0] if detail else 'no output'}",
            hint="run the same command by hand with --kubeconform to see its output",
        ) from None


def _pointer(text: str, obj: object) -> tuple:
    """A JSON pointer as our path into ``obj``: a number is a list index where ``obj`` has a list,
    a key where it has a mapping (``/metadata/labels/0``), so it locates and prints as our paths do;
    past what ``obj`` holds, a number is taken for an index."""
    path: list[str | int] = []
    for part in text.strip("/").split("/") if text.strip("/") else ():
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(obj, dict) or not part.isdigit():
            path.append(part)
            obj = obj.get(part) if isinstance(obj, dict) else None
        else:
            path.append(int(part))
            obj = obj[int(part)] if isinstance(obj, list) and int(part) < len(obj) else None
    return tuple(path)


def _dotted_pointers(msg: str, obj: object) -> str:
    """``msg`` with the instance pointer of a message without ``validationErrors``
    (``jsonschema: '/spec/replicas' does not validate``) in our dotted form."""
    return _QUOTED_POINTER.sub(lambda m: f"{m[1]}'{jsonpath.dotted(_pointer(m[2], obj)) or '(top level)'}'", msg)


def findings(output: dict, sources: list[Source], display: Callable[[str], str]) -> list[Diagnostic]:
    """kubeconform's invalid and error results as findings located in our documents."""
    by_file = {s.display: s.resources for s in sources}
    out = []
    for entry in output.get("resources") or []:
        status = entry.get("status")
        if status not in _INVALID | _ERROR:
            continue
        file = display(entry.get("filename", ""))
        res = _match(by_file.get(file, []), entry)
        ref = res.ref if res else ObjectRef(entry.get("version", ""), entry.get("kind", ""), "", entry.get("name", ""))
        errors = entry.get("validationErrors") or [{"path": "", "msg": entry.get("msg", "")}]
        obj = res.obj if res else None
        for error in errors:
            msg = str(error.get("msg", ""))
            rule = "K8S003" if status in _INVALID else _error_rule(msg, file)
            path = _pointer(str(error.get("path", "")), obj)
            line, col = res.position(Hit("", path)) if res else (1, 1)
            msg = _dotted_pointers(msg, obj)
            text = f"kubeconform: {jsonpath.dotted(path)}: {msg}" if path else f"kubeconform: {msg}"
            out.append(Diagnostic(Location(file, line, col), "error", text, fix_hint(rule), rule, ref))
    return out


def _error_rule(msg: str, file: str) -> str:
    """The rule a kubeconform error belongs to; a failed schema download is a usage error."""
    if any(text in msg for text in _DOWNLOAD_FAILURES):
        raise InputError(
            f"kubeconform could not download a schema: {msg}",
            path=file,
            hint="offline, pass local --schema-location templates (kubeconform gets them as given, "
            "without 'default') or run `gpu-gitops schemas sync --from DIR`",
        )
    if "could not find schema" in msg:
        return "K8S004"
    if any(text in msg for text in _NO_KIND):
        return "K8S002"
    return "K8S001"


def _match(resources: Iterable[Resource], entry: dict) -> Resource | None:
    """Our resource for a kubeconform result: same kind and name (older output has no name)."""
    kind, name = entry.get("kind"), entry.get("name")
    for res in resources:
        if res.kind == kind and (name is None or res.ref.name == name):
            return res
    return None


def merge(ours: list[Diagnostic], theirs: list[Diagnostic]) -> list[Diagnostic]:
    """Ours plus theirs, without a second copy of a problem we already report at the same line."""
    seen = {(f.rule, f.file, f.line) for f in ours}
    return sorted(ours + [f for f in theirs if (f.rule, f.file, f.line) not in seen], key=Diagnostic.sort_key)
