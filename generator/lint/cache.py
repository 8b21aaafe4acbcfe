"""Per-file lint results kept between runs, so a second lint re-checks only what changed.

An entry holds one file's ``FileResult`` (its findings, object references and cross-rule
facts), under a key made of the file's bytes and shown name and of everything else a result
depends on (``run_key``): the tool's version and code, the settings and configuration, the
Kubernetes version and the schema locations with a fingerprint of what is in them. Change
any of these and every entry is missed, so a stale result is never shown.

A file whose size, modification and change times and inode are those recorded when it was
last hashed is not read again (``key_of``), as git's index does: any write gives a file a new
change time, which no tool can set back. A file changed in the last few seconds is always
read, as a write in the same clock tick would leave its times as they were.

Entries live in ``lint/`` of the user cache folder (``$GPU_GITOPS_CACHE_DIR``, else the
platform's: ``$XDG_CACHE_HOME/gpu-gitops`` or ``~/.cache/gpu-gitops`` on Linux), in packs of
many entries (one file per run that checked something: opening a file per entry costs more
than checking it). A pack is one ``marshal`` dump of a dict, key → entry, each entry nested
tuples of strings, numbers and None: read in C at a quarter of JSON's cost, and its findings'
objects shared by equal ones (a lint answered from its cache rebuilds its 1,278 findings from
them). Packs are written to a temporary file and renamed into place, so concurrent runs never
see half of one; a pack or an entry that does not read back is a miss. The cache is bounded:
``MAX_ENTRIES`` per run key, ``MAX_RUNS`` run keys.
"""

from __future__ import annotations

import marshal
import os
import time
from collections.abc import Iterator

import generator
from generator import codeprint, jsontext
from generator.diagnostic import Diagnostic, Location, ObjectRef
from generator.lint.engine import FileResult
from generator.lint.loader import raw
from generator.lint.settings import Settings
from generator.paths import plain
from generator.sha import sha256
from generator.validate import SchemaValidator, kubernetes
from generator.validate.locations import template_variables

FORMAT = 6  # of a pack; part of every key
MAX_ENTRIES = 50_000  # per run key, ~1 KB each: the files of several large trees
MAX_PACKS = 8  # per run key, before they are folded into one
MAX_RUNS = 8  # run keys kept
INDEX = "files.index"  # marshal: shown name -> [size, mtime, ctime, inode, device, key] of the last hash
SETTLED_NS = 3_000_000_000  # older changes than this are past any file system's clock tick
_KIND_VARIABLES = ("Group", "ResourceKind", "ResourceAPIVersion", "KindSuffix")


def run_key(settings: Settings, validator: SchemaValidator | None, refs: bool = True) -> str:
    """What every result of this run depends on besides its file, as one digest (``refs``:
    whether results list every object, as ``Engine(refs=...)``)."""
    parts = {
        "refs": refs,
        "format": [FORMAT, marshal.version],
        "version": generator.__version__,
        "code": codeprint.fingerprint(),
        "settings": settings.as_dict(),
        "schemas": schema_fingerprint(validator) if validator is not None else None,
    }
    return sha256(jsontext.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


def schema_fingerprint(validator: SchemaValidator) -> list:
    """The Kubernetes version with its bundled schemas' folder and, per schema location, its
    template and (for local ones) the name, size and modification time of every file the
    template can reach for this version."""
    variables = template_variables("x/v1", "X", validator.version_text)
    variables.update(dict.fromkeys(_KIND_VARIABLES, "\0"))
    core = kubernetes.version_dir(validator.version)
    found: list = [validator.version_text, core, os.stat(core).st_mtime_ns if os.path.isdir(core) else None]
    found.append(sha256(jsontext.dumps(validator.given, sort_keys=True).encode()).hexdigest())  # with_schemas
    for location in validator.locations:
        found.append(location.template)
        if location.is_remote:
            continue  # downloads are cached by URL and never change
        text = location.expand_text(variables)
        # the folder the variable part starts in (``dir/{{.Group}}-...``: dir itself)
        folder = plain(os.path.dirname(text.split("\0", 1)[0]) if "\0" in text else text)
        found.append(sorted(_stat_tree(folder)))
    return found


def _stat_tree(path: str) -> Iterator[tuple[str, int, int]]:
    if os.path.isfile(path):
        info = os.stat(path)
        yield (path, info.st_size, info.st_mtime_ns)
        return
    for folder, _dirs, filenames in os.walk(path):
        for name in filenames:
            try:
                info = os.stat(os.path.join(folder, name))
            except OSError:
                continue  # a dangling link, or a file removed meanwhile: no schema either way
            yield (os.path.join(folder, name), info.st_size, info.st_mtime_ns)


class ResultCache:
    """One run's view of the cache: the packs written under its ``run_key``.

    A pack is a file of entries (``marshal``'s dict, key → entry); a run reads the packs of its
    run key, takes the entries it needs, and writes what it checked as one new pack (temporary
    file, then ``os.replace``). When packs pile up, the run writes one pack of every entry it
    read and removes the old ones. A pack that cannot be read or does not load, or an entry not
    of its shape, is a miss; a pack removed by a concurrent run is too.

    A run holds at most ``limit`` entries of the packs, the newest: the packs are read newest
    first, and the ones past the bound are folded away unread by the next fold.
    """

    def __init__(self, root: str | os.PathLike[str], run: str, limit: int = MAX_ENTRIES):
        self.root = os.fspath(root)
        self.folder = os.path.join(self.root, run[:32])
        self.run = run
        self.limit = limit
        self.entries: dict[str, tuple] = {}
        self.packs: list[str] = []
        self.new: dict[str, tuple] = {}
        self.index: dict[str, list] = {}
        self.index_changed = False
        try:
            with open(os.path.join(self.folder, INDEX), "rb") as handle:
                index = marshal.loads(handle.read())
            if isinstance(index, dict):
                self.index = index
        except (OSError, ValueError, EOFError, TypeError):
            pass
        try:
            names = sorted(n for n in os.listdir(self.folder) if n.endswith(".pack"))
        except OSError:
            names = []
        for name in reversed(names):  # newest first: its entries win, and are the ones kept
            if len(self.entries) >= limit:
                self.packs.append(name)  # past the bound: folded away unread
                continue
            try:
                with open(os.path.join(self.folder, name), "rb") as handle:
                    data = handle.read()
            except OSError:
                continue
            self.packs.append(name)
            try:
                entries = marshal.loads(data)
            except (ValueError, EOFError, TypeError):
                continue  # cut short or corrupted: every entry of it is a miss
            if not isinstance(entries, dict):
                continue
            if not self.entries and len(entries) <= limit:
                self.entries = entries  # one pack, the usual case: no copy
                continue
            for key, entry in entries.items():
                if len(self.entries) >= limit:
                    break
                self.entries.setdefault(key, entry)

    def key_of(self, path: str, shown: str) -> str | None:
        """The key of the file's bytes as they are now (None when it cannot be read as a
        manifest): from the index when the file's metadata is as recorded, else by reading it."""
        try:
            info = os.stat(path)
        except OSError:
            return None
        signature = [info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev]
        known = self.index.get(shown)
        if isinstance(known, list) and known[:5] == signature:
            return str(known[5])
        data = raw(path)
        if not isinstance(data, bytes):
            return None
        key = self.key(shown, data)
        if time.time_ns() - max(info.st_mtime_ns, info.st_ctime_ns) > SETTLED_NS:
            self.index[shown] = [*signature, key]
            self.index_changed = True
        return key

    def key(self, shown: str, data: bytes) -> str:
        digest = sha256(self.run.encode())
        digest.update(shown.encode("utf-8", "surrogateescape") + b"\0")
        digest.update(data)
        return digest.hexdigest()

    def get_many(self, wanted: list[tuple[str, str]]) -> list[FileResult | None]:
        """The cached result for each ``(key, shown name)``, None where there is none or it is
        not of an entry's shape."""
        entries = self.entries
        objects: dict[tuple, ObjectRef] = {}  # one per object, shared by its findings
        results: list[FileResult | None] = [None] * len(wanted)
        for i, (key, shown) in enumerate(wanted):
            entry = entries.get(key)
            if entry is not None:
                try:
                    results[i] = result_of(shown, entry, objects)
                except (ValueError, TypeError, IndexError):
                    continue
        return results

    def put(self, key: str, result: FileResult) -> None:
        self.new[key] = entry_of(result)

    def put_entry(self, key: str, entry: tuple) -> None:
        """``put`` of a result already made an entry (a worker's, ``batch``)."""
        self.new[key] = entry

    def save(self) -> None:
        """Write this run's new entries as one pack; fold all packs into one when there are many.
        A fold, or a run key's first pack, also prunes the cache (``_prune_runs``): only they
        change which run keys it holds, and a lint after an edit, which writes one small pack,
        lists no folder for it. A cache that cannot be written only costs speed."""
        if self.index_changed:
            index = self.index if len(self.index) <= MAX_ENTRIES else dict(list(self.index.items())[-MAX_ENTRIES:])
            self._write(INDEX, marshal.dumps(index))
        if not self.new:
            return
        compact = len(self.packs) >= MAX_PACKS
        entries = self.new
        if len(entries) > self.limit:
            entries = dict(list(entries.items())[-self.limit :])
        if compact:  # the new entries, then the newest of those read, up to the bound
            entries = dict(entries)
            for key, entry in self.entries.items():
                if len(entries) >= self.limit:
                    break
                entries.setdefault(key, entry)
        body = marshal.dumps(_shared(entries))
        name = f"{time.time_ns():020d}-{sha256(body).hexdigest()[:16]}.pack"
        if not self._write(name, body):
            return
        if compact:
            for old in self.packs:
                _remove(os.path.join(self.folder, old))
        if compact or not self.packs:
            try:
                self._prune_runs()
            except OSError:
                return

    def _write(self, name: str, body: bytes) -> bool:
        """Write a file of the run's folder whole or not at all (temporary file, then rename)."""
        try:
            os.makedirs(self.folder, exist_ok=True)
            temp = os.path.join(self.folder, f".tmp.{os.getpid()}.{time.time_ns()}.part")  # one writer: O_EXCL
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(body)
                os.replace(temp, os.path.join(self.folder, name))
            except BaseException:
                os.unlink(temp)
                raise
        except OSError:
            return False
        return True

    def _prune_runs(self) -> None:
        """Keep the folders of the ``MAX_RUNS`` most recently written run keys (settings, schema
        sets or tool versions in use), and no temporary file older than an hour."""
        with os.scandir(self.root) as entries:
            folders = sorted(((f.stat().st_mtime_ns, f.path) for f in entries if f.is_dir()), reverse=True)
        for _mtime, folder in folders[MAX_RUNS:]:
            for name in os.listdir(folder):
                _remove(os.path.join(folder, name))
            try:
                os.rmdir(folder)
            except OSError:
                pass
        with os.scandir(self.folder) as entries:
            temporary = [entry.path for entry in entries if entry.name.startswith(".tmp.")]
        for item in temporary:
            if os.stat(item).st_mtime < time.time() - 3600:
                _remove(item)


def _shared(entries: dict[str, tuple]) -> dict[str, object]:
    """The entries with each string the first equal one met: ``marshal`` writes an object it
    meets again as a reference, so a pack holds each rule, severity, message, hint, kind and
    name once, and the run reading it makes one string of each, not one a finding (a pack of
    the 5,000-document corpus: 412 → 264 KB). Only strings are merged: equal tuples of other
    values may differ in type (``(1,) == (True,)``)."""
    strings: dict[str, str] = {}

    def one(value: object) -> object:
        if type(value) is str:
            return strings.setdefault(value, value)
        if type(value) is tuple:
            return tuple([one(item) for item in value])
        return value

    return {key: one(entry) for key, entry in entries.items()}


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _finding(f: Diagnostic) -> tuple:
    ref = f.ref
    return (
        f.rule,
        f.severity,
        f.message,
        f.line,
        f.col,
        (ref.api_version, ref.kind, ref.namespace, ref.name, ref.generate_name),
        f.hint,
    )


def _unfinding(shown: str, data: tuple, objects: dict[tuple, ObjectRef]) -> Diagnostic:
    rule, severity, message, line, col, ref, hint = data
    found = objects.get(ref)
    if found is None:
        found = objects[ref] = ObjectRef(*ref)
    return Diagnostic(Location(shown, line, col), severity, message, hint, rule, found)


def entry_of(result: FileResult) -> tuple:
    """A result as nested tuples of strings, numbers and None: what a pack keeps, and what a
    worker sends (``batch``), in ``marshal``'s reach."""
    return (
        tuple((ref.api_version, ref.kind, ref.namespace, ref.name, ref.generate_name) for ref in result.refs),
        result.objects,
        result.checked,
        tuple((*_finding(f), namespace) for f, namespace in result.findings),
        tuple((rule, tuple(fact), _finding(f) if f else None) for rule, fact, f in result.facts),
        tuple(result.namespaces),
        tuple(result.warnings),
        result.passed_by,
    )


def result_of(shown: str, entry: tuple, objects: dict[tuple, ObjectRef]) -> FileResult:
    """The ``FileResult`` of an entry (``entry_of``); ``objects`` the references made so far, by their fields."""
    refs, count, checked, findings, facts, namespaces, warnings, passed_by = entry
    return FileResult(  # the fields in order: keywords cost the call twice as much, once per cached file
        shown,
        [ObjectRef(*ref) for ref in refs],
        int(count),
        int(checked),
        [(_unfinding(shown, f[:7], objects), str(f[7])) for f in findings],
        [(rule, fact, _unfinding(shown, f, objects) if f else None) for rule, fact, f in facts],
        list(namespaces),
        dict.fromkeys(warnings),
        bool(passed_by),
    )
