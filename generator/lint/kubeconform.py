"""Run kubeconform as a second opinion and merge its findings into ours.

kubeconform is called with ``-strict -summary -output json``, its ``default`` location for
core kinds (our bundled schemas ``$ref`` a shared definitions file kubeconform cannot
resolve) and our schema locations for custom resources. Both of its JSON dialects are read: the current one
(``"status": "statusInvalid"`` with ``validationErrors``) and the older one
(``"status": "INVALID"`` with only ``msg``). Its JSON pointers are mapped to our lines
through the documents we parsed; findings we already have (same rule, file and line) are
dropped.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterable

from generator.errors import InputError
from generator.lint.loader import Source
from generator.lint.model import Finding, Hit, ObjectRef, Resource
from generator.lint.settings import Settings
from generator.validate import kubernetes

_INVALID = {"statusInvalid", "INVALID"}
_ERROR = {"statusError", "ERROR"}


def command(binary: str, files: list[str], settings: Settings) -> list[str]:
    major, minor = kubernetes.resolve_version(settings.kubernetes_version)
    cmd = [binary, *(["-strict"] if settings.strict else []), "-summary", "-output", "json",
           "-kubernetes-version", f"{major}.{minor}.0", "-schema-location", "default"]
    for location in settings.schema_locations:
        cmd += ["-schema-location", location]
    if settings.ignore_missing_schemas:
        cmd.append("-ignore-missing-schemas")
    return cmd + files


def run(binary: str, files: list[str], settings: Settings) -> dict:
    """kubeconform's parsed JSON output; a missing binary or unreadable output is a usage error."""
    path = shutil.which(binary)
    if path is None:
        raise InputError(f"kubeconform binary {binary!r} not found",
                         hint="install kubeconform, put it on PATH or pass its path: --kubeconform /path/to/kubeconform")
    proc = subprocess.run(command(path, files, settings), capture_output=True, text=True, check=False)
    try:
        output = json.loads(proc.stdout)
        if not isinstance(output, dict):
            raise ValueError("not a JSON object")
        return output
    except ValueError:
        detail = (proc.stderr or proc.stdout).strip().splitlines()
        raise InputError(f"kubeconform failed (exit {proc.returncode}): {detail[0] if detail else 'no output'}",
                         hint="run the same command by hand with --kubeconform to see its output") from None


def _pointer(text: str) -> tuple:
    parts = [p.replace("~1", "/").replace("~0", "~") for p in text.strip("/").split("/") if p != ""]
    return tuple(int(p) if p.isdigit() else p for p in parts)


def findings(output: dict, sources: list[Source], display) -> list[Finding]:
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
        for error in errors:
            msg = str(error.get("msg", ""))
            if status in _INVALID:
                rule = "K8S003"
            elif "could not find schema" in msg:
                rule = "K8S004"
            else:
                rule = "K8S001"
            path = _pointer(str(error.get("path", "")))
            line, col = res.position(Hit("", path)) if res else (1, 1)
            pointer = "/" + "/".join(map(str, path))
            text = f"kubeconform: {pointer}: {msg}" if path else f"kubeconform: {msg}"
            out.append(Finding(rule, "error", text, file, line, col, ref))
    return out


def _match(resources: Iterable[Resource], entry: dict) -> Resource | None:
    """Our resource for a kubeconform result: same kind and name (older output has no name)."""
    kind, name = entry.get("kind"), entry.get("name")
    for res in resources:
        if res.kind == kind and (name is None or res.ref.name == name):
            return res
    return None


def merge(ours: list[Finding], theirs: list[Finding]) -> list[Finding]:
    """Ours plus theirs, without a second copy of a problem we already report at the same line."""
    seen = {(f.rule, f.file, f.line) for f in ours}
    return sorted(ours + [f for f in theirs if (f.rule, f.file, f.line) not in seen], key=Finding.sort_key)
