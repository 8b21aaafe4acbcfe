"""``rendered/<cluster>/.gpu-gitops.sum``: hashes of what went into a tree and what came out.

Render writes it with the tree; ``check`` and ``render`` read it first and skip a cluster
(no Jsonnet, no validation) when every input hash matches what it records and every file of
the tree matches its output hash, with no file missing or extra. So an unchanged fleet is
checked by hashing files, and a hand edit to a rendered file or any change to an input still
sends the cluster down the full path. One line per hash, sorted, in this form::

    tool      <sha256>  gpu-gitops 0.1.0       the tool's version
    library   <sha256>  libsonnet/             every file of the Jsonnet library
    schemas   <sha256>  schemas/               the input and config schemas (defaults)
    settings  <sha256>  .gpu-gitops.yaml       the config file, or "none" when there is none
    input     <sha256>  cluster.yaml           each file of clusters/<cluster>/
    base      <sha256>  clusters/_bases/<b>.yaml  each base the cluster's input used, sorted by path
    chart     <sha256>  <chart> <version> <repository>  each chart inflated into the tree, its
                                             digest as clusters/charts.lock records it
    chart     none  clusters/charts.lock     the tree renders Helm releases but the project had
                                             no lock, so nothing was inflated
    output    <sha256>  <path>                 each file of rendered/<cluster>/ but this one

Which bases a cluster uses is known only once its input is read, so the fast path takes the
``base`` lines as recorded and hashes the files they name: a cluster that starts or stops using a
base changed its own file or a base it used, so it is not fresh either way.

The ``chart`` lines name the locked digest, never the chart cache: the fast path compares them
with ``clusters/charts.lock``, so a clone with no chart cache (and no Helm) finds its committed
trees up to date, and a lock whose digest for a chart changed makes the trees that inflated it
stale. A chart's version is in the input or the library, which are hashed already. A tree whose
releases were not inflated for want of a lock says so (``chart none``), so the lock that
``charts pull`` writes later makes it stale: it must now hold the charts' objects.

The file is deterministic and machine-independent, so it is committed and reviewed with the
tree. What it cannot record is what changes validation verdicts, not bytes, and differs
between machines or runs: the synced CRD schema set (``gpu-gitops schemas sync``) and the
validation flags of the command line (``--schema-location``, ``--require-schemas``). Where a
set is installed or flags are given, a cluster is fresh only if this machine has already
validated that exact tree with that set and those flags (a marker in the user cache,
``record_validated``), and every schema file that validation consulted is as it was then
(the marker lists each one with its hash, and each path it found empty). Only the standard
library is imported here: an up-to-date check must not pay for Jsonnet, YAML or JSON Schema.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable
from pathlib import Path

from generator import __version__
from generator.paths import SUM_FILE, Project, cache_root
from generator.tree.statcache import StatCache, file_sha256, walk

NOT_A_FILE = "not-a-file"
HEADER = (
    "# gpu-gitops: hashes of what went into this tree and what came out. `gpu-gitops render` writes\n"
    "# this file; `render` and `check` compare it first and skip clusters whose hashes all match.\n"
)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _schema_set() -> bytes | None:
    """The record ``schemas sync`` keeps of the installed set, or None where none is installed."""
    try:
        return (cache_root() / "crd-schemas" / "SET.json").read_bytes()
    except OSError:
        return None


def validation_flags(schema_locations: tuple[str, ...] | list[str], require_schemas: bool) -> str:
    """The validation flags of the command line as one text for the marker's name ("" when
    none is given); the config file's settings are in the sum file already."""
    if not schema_locations and not require_schemas:
        return ""
    return "\n".join(["--require-schemas" if require_schemas else "", *schema_locations])


def _validated_marker(sum_bytes: bytes, schema_set: bytes | None, flags: str) -> Path:
    key = (schema_set or b"") + b"\0" + flags.encode() + b"\0" + sum_bytes
    return cache_root() / "validated" / _sha(key)


def record_validated(sum_bytes: bytes, flags: str = "", consulted: list[tuple[str, bool]] | None = None) -> None:
    """Remember on this machine that the tree with this sum file passed validation, without an
    error or a warning (which the full path would print again), with the installed schema set
    and the command line's validation ``flags``, and which schema files
    that took: ``consulted`` holds each path looked at and whether a file was there (None when
    a lookup cannot be repeated offline, a download that found nothing: then nothing is
    remembered). Needed only where a set is installed or flags are given; a cache that cannot
    be written only costs speed."""
    schema_set = _schema_set()
    if (schema_set is None and not flags) or consulted is None:
        return
    lines = []
    try:
        for path, found in sorted(set(consulted)):
            lines.append(f"{_digest(path) if found else 'absent'}  {path}\n")
    except OSError:
        return  # changed meanwhile: validate again next time
    marker = _validated_marker(sum_bytes, schema_set, flags)
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        from generator.replace import replace_file

        replace_file(marker, "".join(lines))
    except (OSError, ValueError):
        pass


def _still_valid(marker: Path, hashes: dict[str, str], cache: StatCache) -> bool:
    """Whether the marker exists and every schema file it lists is unchanged (a path recorded
    empty still is); ``hashes`` memoises file hashes across the clusters of one run."""
    try:
        lines = marker.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return False
    for line in lines:
        recorded, _, path = line.partition("  ")
        if path not in hashes:
            try:
                hashes[path] = (
                    cache.digests(os.path.dirname(path), [os.path.basename(path)])[0]
                    if os.path.isfile(path)
                    else "absent"
                )
            except OSError:
                hashes[path] = "unreadable"
        if hashes[path] != recorded:
            return False
    return True


# No file larger than this reaches a render: a cluster input is refused past 1 MiB
# (yamlio.read.INPUTS) and Jsonnet imports past 4 MiB (library.jsonnet.MAX_IMPORT_BYTES); such a
# file of a cluster's folder is recorded by its size, never read (a 300 MB file is not hashed).
UNREAD_BYTES = 4 * 1024 * 1024


def _digest(path: str, follow: bool = False) -> str:
    """The sha256 of a file's bytes, read in 1 MiB chunks: memory stays bounded whatever its size."""
    return file_sha256(path, follow=follow)


def _input_digests(folder: str, rels: list[str], cache: StatCache | None) -> list[str]:
    """The hash of each file of a cluster's folder, or its size past ``UNREAD_BYTES``."""
    sizes = [os.lstat(os.path.join(folder, rel)).st_size for rel in rels]
    small = [rel for rel, size in zip(rels, sizes, strict=True) if size <= UNREAD_BYTES]
    if cache is not None:
        hashed = iter(cache.digests(folder, small))
    else:
        hashed = iter([_digest(os.path.join(folder, rel)) for rel in small])
    return [next(hashed) if size <= UNREAD_BYTES else f"too-large-{size}-bytes" for size in sizes]


def _read(path: str) -> bytes:
    """A file's bytes, with fewer system calls and objects than ``open().read()``."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    try:
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _modes_ok(folder: str, files: list[str], dirs: list[str]) -> bool:
    return all(stat.S_IMODE(os.lstat(os.path.join(folder, d)).st_mode) == 0o755 for d in dirs) and all(
        stat.S_IMODE(os.lstat(os.path.join(folder, f)).st_mode) == 0o644 for f in files
    )


def _folder_digest(folder: Path, cache: StatCache | None = None) -> str:
    """One hash over every file's path and content (symlinks followed: the library may be
    installed through links)."""
    digest = hashlib.sha256()
    for dirpath, dirs, files in os.walk(folder, followlinks=True):
        dirs.sort()
        files.sort()
        if cache is None:
            shas = [_digest(os.path.join(dirpath, name), follow=True) for name in files]
        else:
            shas = cache.digests(dirpath, files, follow=True)
        for name, sha in zip(files, shas, strict=True):
            _add_file(digest, folder, dirpath, name, sha)
    return digest.hexdigest()


def _tool_line() -> str:
    """The tool's version, not its source bytes: an edit that changes no output (a docstring, a
    speed-up) must not change every committed sum file. A change of the generator's code that
    does change output is caught where it is made: ``render --full``/``check --full`` evaluate
    every cluster whatever its sum file says, and the golden test renders the examples afresh."""
    return f"tool {_sha(__version__.encode())}  gpu-gitops {__version__}"


def _add_file(digest: hashlib._Hash, root: str | Path, folder: str, name: str, sha: str | None = None) -> None:
    """Add a file's path (relative to ``root``, with ``/``) and the hash of its content (a link
    followed) to ``digest``: with ``os`` calls, as this runs on every file of the package and
    the library each time ``check`` or ``lint --cluster`` asks whether a tree is fresh; ``sha``:
    the content's hash, when known already."""
    relative = os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/")
    sha = sha or _digest(os.path.join(folder, name), follow=True)
    digest.update(relative.encode() + b"\0" + sha.encode())


def shared_lines(project: Project, config_file: Path | None, cache: StatCache | None = None) -> tuple[str, ...]:
    """The lines every cluster shares: hash them once per run and pass them on."""
    settings = (
        f"settings {_digest(str(config_file), follow=True)}  .gpu-gitops.yaml"
        if config_file and config_file.is_file()
        else "settings none"
    )
    return (
        _tool_line(),
        f"library {_folder_digest(project.libsonnet, cache)}  libsonnet/",
        f"schemas {_folder_digest(project.schemas, cache)}  schemas/",
        settings,
    )


def input_lines(project: Project, cluster: str, shared: tuple[str, ...], cache: StatCache | None = None) -> list[str]:
    """The input half of the cluster's sum file: ``shared`` and the cluster folder's files. A
    symlink or special file there is recorded as ``not-a-file`` (never read: it could be
    /dev/zero), and a cluster with one is never fresh."""
    folder = os.path.join(project.clusters, cluster)
    try:
        files, _dirs, others = cache.listing(folder) if cache is not None else walk(folder)
        own = {rel: f"input {sha}  {rel}" for rel, sha in zip(files, _input_digests(folder, files, cache), strict=True)}
    except OSError:
        files, others, own = [], [], {}
    own.update({rel: f"input {NOT_A_FILE}  {rel}" for rel in others})
    return [*shared, *(own[rel] for rel in sorted(own))]


def base_lines(bases: list[tuple[str, str]]) -> list[str]:
    """The ``base`` lines of the bases (as shown, with the sha256 of the bytes read) a cluster used."""
    return [f"base {sha}  {shown}" for shown, sha in sorted(set(bases))]


UNLOCKED = "none"


def chart_lines(charts: list[tuple[str, str, str, str]], unlocked: bool = False) -> list[str]:
    """The ``chart`` lines of the charts a tree inflated: (digest, repository, chart, version);
    with ``unlocked``, the one line that says its releases were not inflated, for want of a lock."""
    if unlocked:
        return [f"chart {UNLOCKED}  clusters/charts.lock"]
    return [
        f"chart {digest.removeprefix('sha256:')}  {chart} {version} {repository}"
        for digest, repository, chart, version in sorted(set(charts), key=lambda c: (c[2], c[3], c[1], c[0]))
    ]


def _chart_ok(project: Project, line: str, locked: dict) -> bool:
    """A recorded ``chart`` line names a chart the lock holds with that digest, or says there
    was no lock and there still is none (the lock read once per run into ``locked``)."""
    if "entries" not in locked:
        from generator.charts import lock

        try:
            locked["entries"] = lock.read(project.chart_lock)
        except lock.LockError:
            locked["entries"] = {}
    sha, _, rest = line[len("chart ") :].partition("  ")
    if sha == UNLOCKED:
        return locked["entries"] is None
    chart, _, rest = rest.partition(" ")
    version, _, repository = rest.partition(" ")
    entry = (locked["entries"] or {}).get((repository, chart, version))
    return entry is not None and entry.digest == f"sha256:{sha}"


def _base_ok(project: Project, line: str, digests: dict[str, str | None], cache: StatCache) -> bool:
    """A recorded ``base`` line still names a base file under ``clusters/_bases/`` with those bytes."""
    sha, _, rel = line[len("base ") :].partition("  ")
    if not rel.startswith("clusters/_bases/") or ".." in rel.split("/") or not rel.endswith(".yaml"):
        return False
    if rel not in digests:
        try:
            folder, _, name = os.path.join(project.root, rel).rpartition(os.sep)
            digests[rel] = cache.digests(folder, [name])[0]
        except OSError:
            digests[rel] = None
    return digests[rel] == sha


def changed_inputs(project: Project, cluster: str, bases: list[tuple[str, str]]) -> list[str]:
    """The input files (``clusters/<cluster>/...``, and the ``bases`` the cluster uses now, as
    shown with their sha256) whose bytes differ from what the committed sum file records, or
    that it does not record, or that are gone: where a change in the rendered tree came from."""
    recorded = recorded_inputs(project, cluster)
    now = dict(bases)
    for line in input_lines(project, cluster, ()):
        sha, _, rel = line[len("input ") :].partition("  ")
        now[f"clusters/{cluster}/{rel}"] = sha
    return sorted(path for path in recorded.keys() | now.keys() if recorded.get(path) != now.get(path))


def recorded_inputs(project: Project, cluster: str) -> dict[str, str]:
    """The input and base files the committed sum file of ``cluster`` records, each with its
    sha256 (none when there is no sum file): what an input change is measured against."""
    try:
        text = _read(os.path.join(project.rendered, cluster, SUM_FILE)).decode()
    except (OSError, UnicodeDecodeError):
        return {}
    found = {}
    for line in text.splitlines():
        kind, _, rest = line.partition(" ")
        sha, _, rel = rest.partition("  ")
        if kind == "input":
            found[f"clusters/{cluster}/{rel}"] = sha
        elif kind == "base":
            found[rel] = sha
    return found


def sum_file(inputs: list[str], files: dict[str, bytes]) -> bytes:
    """The sum file for a tree of ``files`` rendered from ``inputs``."""
    outputs = [f"output {_sha(content)}  {rel}" for rel, content in sorted(files.items()) if rel != SUM_FILE]
    return (HEADER + "\n".join(inputs + outputs) + "\n").encode()


def _is_fresh(
    project: Project,
    cluster: str,
    shared: tuple[str, ...],
    modes: bool,
    validated: Callable[[bytes], bool] | None,
    digests: dict[str, str | None],
    locked: dict,
    cache: StatCache,
) -> bool:
    """True when ``rendered/<cluster>`` is exactly what render would write: recorded input hashes
    equal today's, every file matches its recorded hash, nothing missing or extra (and, with
    ``modes``, files 0644 and folders 0755); and, with ``validated``, that tree's sum file
    passes it (``record_validated`` remembered it)."""
    target = os.path.join(project.rendered, cluster)
    try:
        if os.path.islink(target):
            return False
        files, dirs, others = cache.listing(target)
        recorded_bytes = _read(os.path.join(target, SUM_FILE))
        recorded = recorded_bytes.decode()
    except (OSError, UnicodeDecodeError):
        return False
    if validated is not None and not validated(recorded_bytes):
        return False
    expected = input_lines(project, cluster, shared, cache)
    if others or any(f" {NOT_A_FILE}  " in line for line in expected) or not recorded.startswith(HEADER):
        return False
    lines = recorded[len(HEADER) :].splitlines()
    if lines[: len(expected)] != expected:
        return False
    after = lines[len(expected) :]
    used = _leading(after, "base ")
    if not all(_base_ok(project, line, digests, cache) for line in used):
        return False
    charts = _leading(after[len(used) :], "chart ")
    if not all(_chart_ok(project, line, locked) for line in charts):
        return False
    outputs = after[len(used) + len(charts) :]  # sorted by path, as sum_file writes them
    on_disk = [rel for rel in files if rel != SUM_FILE]
    if len(on_disk) != len(outputs) or (modes and not _modes_ok(target, files, dirs)):
        return False
    try:
        if os.stat not in os.supports_dir_fd:
            shas = cache.digests(target, on_disk)
        else:
            shas = _hashes(target, on_disk, cache)
    except OSError:
        return False
    return outputs == [f"output {sha}  {rel}" for sha, rel in zip(shas, on_disk, strict=True)]


def _leading(lines: list[str], kind: str) -> list[str]:
    """The lines of ``kind`` that open ``lines`` (sum_file writes each kind together, in order):
    the thousands of output lines after them are not looked at."""
    count = 0
    for line in lines:
        if not line.startswith(kind):
            break
        count += 1
    return lines[:count]


def _hashes(folder: str, rels: list[str], cache: StatCache) -> list[str]:
    """The sha256 of each file. A file whose stat is as this machine recorded it is not read
    (``statcache``); the files are looked at relative to the folder's descriptor (no path
    joined or walked again for each): a no-op check looks at every file of a fleet, tens of
    thousands with the charts' previews."""
    top = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        return cache.digests(folder, rels, top)
    finally:
        os.close(top)


def fresh(
    project: Project,
    clusters: list[str],
    config_file: Path | None,
    modes: bool = False,
    flags: str = "",
    validated: bool = True,
    remember: bool = True,
) -> list[str]:
    """The clusters, of ``clusters``, that need neither rendering nor checking: see
    ``_is_fresh``; a cluster with a leftover of an interrupted render, or a ``rendered/``
    that is a symlink, is never fresh (the full path recovers or refuses). With ``modes``
    (for render), file modes must be right too; with validation ``flags``
    (``validation_flags``), or a synced schema set, the tree must have been validated with
    them on this machine. ``validated`` False: a tree that matches its inputs counts even
    if this machine has not checked it yet (what ``lint --cluster`` asks: is the tree its
    input's). Files whose stat is as this machine last recorded it are not read again
    (``statcache``); ``remember`` False: no record is read or written (a scratch copy)."""
    rendered = project.rendered
    try:
        if os.path.islink(rendered):
            return []
        names = os.listdir(rendered)
    except OSError:
        return []
    interrupted = {n.split(".")[2] for n in names if n.startswith((".tmp.", ".old.")) and n.count(".") >= 3}
    cache = StatCache(project.root if remember else None)
    shared = shared_lines(project, config_file, cache)
    schema_set = _schema_set()
    hashes: dict[str, str] = {}

    def was_validated(sum_bytes: bytes) -> bool:
        return _still_valid(_validated_marker(sum_bytes, schema_set, flags), hashes, cache)

    needs_marker = validated and (schema_set is not None or bool(flags))
    digests: dict[str, str | None] = {}  # a base's hash, taken once for every cluster that uses it
    locked: dict = {}  # the chart lock, read once for every cluster that inflated a chart
    found = [
        c
        for c in clusters
        if c not in interrupted
        and _is_fresh(project, c, shared, modes, was_validated if needs_marker else None, digests, locked, cache)
    ]
    cache.save()
    return found
