"""Per-file lint results kept between runs, so a second lint re-checks only what changed.

An entry holds one file's ``FileResult`` (its findings, object references and cross-rule
facts), under a key made of the file's bytes and shown name and of everything else a result
depends on (``run_key``): the tool's version and code, the settings and configuration, the
Kubernetes version and the schema locations with a fingerprint of what is in them. Change
any of these and every entry is missed, so a stale result is never shown.

Entries live in ``lint/`` of the user cache folder (``$GPU_GITOPS_CACHE_DIR``, else the
platform's: ``$XDG_CACHE_HOME/gpu-gitops`` or ``~/.cache/gpu-gitops`` on Linux). Each is
written to a temporary file and renamed into place, so concurrent runs never see half an
entry; an entry that does not read back (truncated, edited, another version's) is a miss.
The folder is pruned to ``MAX_ENTRIES``, oldest first, after a run that added entries.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import tempfile
from pathlib import Path

import generator
from generator.lint.engine import FileResult
from generator.lint.model import Finding, ObjectRef
from generator.lint.settings import Settings
from generator.validate import SchemaValidator, kubernetes
from generator.validate.locations import template_variables

FORMAT = 1  # of an entry; part of every key
MAX_ENTRIES = 20_000  # ~1 KB each: files of several large trees, bounded on disk
_KIND_VARIABLES = ("Group", "ResourceKind", "ResourceAPIVersion", "KindSuffix")


def cache_root() -> Path:
    """``$GPU_GITOPS_CACHE_DIR``, else the platform's user cache folder for gpu-gitops."""
    explicit = os.environ.get("GPU_GITOPS_CACHE_DIR")
    if explicit:
        return Path(explicit)
    import platformdirs

    return Path(platformdirs.user_cache_dir("gpu-gitops", appauthor=False))


def run_key(settings: Settings, validator: SchemaValidator | None) -> str:
    """What every result of this run depends on besides its file, as one digest."""
    parts = {
        "format": FORMAT,
        "version": generator.__version__,
        "code": _code_fingerprint(),
        "settings": dataclasses.asdict(settings),
        "schemas": _schema_fingerprint(validator) if validator is not None else None,
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


def _code_fingerprint() -> list:
    """Name, size and modification time of the package's modules: an edited rule or an
    upgraded package (same version number or not) misses every entry."""
    root = Path(generator.__file__).parent
    found = []
    for folder, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            if name.endswith(".py"):
                info = os.stat(os.path.join(folder, name))
                found.append((os.path.relpath(os.path.join(folder, name), root), info.st_size, info.st_mtime_ns))
    return found


def _schema_fingerprint(validator: SchemaValidator) -> list:
    """The Kubernetes version with its bundled schemas' folder and, per schema location, its
    template and (for local ones) the name, size and modification time of every file the
    template can reach for this version."""
    variables = template_variables("x/v1", "X", validator.version_text)
    variables.update(dict.fromkeys(_KIND_VARIABLES, "\0"))
    core = kubernetes.version_dir(validator.version)
    found: list = [validator.version_text, str(core), core.stat().st_mtime_ns if core.is_dir() else None]
    for location in validator.locations:
        found.append(location.template)
        if location.is_remote:
            continue  # downloads are cached by URL and never change
        text = location.expand_text(variables)
        folder = Path(text.split("\0", 1)[0]).parent if "\0" in text else Path(text)
        found.append(sorted(_stat_tree(folder)))
    return found


def _stat_tree(path: Path):
    if path.is_file():
        info = path.stat()
        yield (str(path), info.st_size, info.st_mtime_ns)
        return
    for folder, _dirs, filenames in os.walk(path):
        for name in filenames:
            info = os.stat(os.path.join(folder, name))
            yield (os.path.join(folder, name), info.st_size, info.st_mtime_ns)


class ResultCache:
    """The entries of one run: ``key`` names a file's entry, ``get`` and ``put`` use it."""

    def __init__(self, folder: Path, run: str):
        self.folder = folder
        self.run = run

    def key(self, shown: str, data: bytes) -> str:
        digest = hashlib.sha256(self.run.encode())
        digest.update(shown.encode("utf-8", "surrogateescape") + b"\0")
        digest.update(data)
        return digest.hexdigest()

    def _path(self, key: str) -> str:
        return os.path.join(self.folder, key[:2], key[2:] + ".json")

    def get(self, key: str, shown: str) -> FileResult | None:
        """The cached result, or None when there is none or it does not read back."""
        try:
            with open(self._path(key), "rb") as handle:
                entry = json.loads(handle.read())
            if entry["key"] != key:
                return None
            return _result(shown, entry)
        except (OSError, ValueError, KeyError, TypeError, IndexError):
            return None

    def put(self, key: str, result: FileResult) -> None:
        """Store a result atomically; a cache that cannot be written only costs speed."""
        path = self._path(key)
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            fd, temp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp.", suffix=".json")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    json.dump(_entry(key, result), handle, separators=(",", ":"))
                os.replace(temp, path)
            except BaseException:
                os.unlink(temp)
                raise
        except OSError:
            return

    def prune(self, limit: int = MAX_ENTRIES) -> None:
        """Remove the oldest entries past ``limit`` (and temporary files a killed run left)."""
        entries = []
        try:
            for sub in os.scandir(self.folder):
                if sub.is_dir():
                    entries.extend((e.stat().st_mtime_ns, e.path) for e in os.scandir(sub.path) if e.is_file())
        except OSError:
            return
        entries.sort()
        for _mtime, path in entries[:max(0, len(entries) - limit)]:
            try:
                os.unlink(path)
            except OSError:
                pass


def _finding(f: Finding) -> list:
    return [f.rule, f.severity, f.message, f.line, f.col, list(dataclasses.astuple(f.ref)), f.hint]


def _unfinding(shown: str, data: list) -> Finding:
    rule, severity, message, line, col, ref, hint = data
    return Finding(rule, severity, message, shown, line, col, ObjectRef(*ref), hint)


def _entry(key: str, result: FileResult) -> dict:
    return {
        "key": key,
        "refs": [list(dataclasses.astuple(ref)) for ref in result.refs],
        "objects": result.objects,
        "findings": [[_finding(f), namespace] for f, namespace in result.findings],
        "facts": [[rule, list(fact), _finding(f) if f else None] for rule, fact, f in result.facts],
        "namespaces": [list(n) for n in result.namespaces],
    }


def _result(shown: str, entry: dict) -> FileResult:
    return FileResult(
        shown,
        refs=[ObjectRef(*ref) for ref in entry["refs"]],
        objects=int(entry["objects"]),
        findings=[(_unfinding(shown, f), str(namespace)) for f, namespace in entry["findings"]],
        facts=[(rule, tuple(fact), _unfinding(shown, f) if f else None) for rule, fact, f in entry["facts"]],
        namespaces=[(name, level) for name, level in entry["namespaces"]],
    )
