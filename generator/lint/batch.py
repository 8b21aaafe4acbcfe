"""Lint many files: results from the cache first, the rest checked here and in worker processes.

Each file is read, checked and dropped on its own (``Engine.check_file``), so memory holds
one file's documents per process plus every file's compact ``FileResult``. ``jobs`` processes
check: this one and ``jobs - 1`` workers forked from it with the engine already built and the
first file checked (the schemas of its kinds compiled once, not in each worker). The files are
dealt out in chunks, in turn: one in ``jobs`` kept here (its results are never sent, and one
process fewer is forked), the others to the workers. A worker checks its share, then sends
every result at once through a pipe as one ``marshal`` dump of the result cache's entries
(``cache.entry_of``) and ends; each result lands in its file's place, so the report does not
depend on ``jobs``. A run with few files to check does them here: starting workers costs more
than it saves.

Why plain ``fork`` and a pipe, not ``multiprocessing``: its pool imported ``multiprocessing``,
``pickle``, ``threading`` and ``queue`` (about 18 ms of a 0.4 s lint of 5,000 documents), ran
three threads beside the checks, and pickled each result record by record; a worker sends
nothing until its share is done, so nothing is gained by streaming.
"""

from __future__ import annotations

import gc
import marshal
import os
from collections.abc import Callable, Iterable

from generator.lint.cache import ResultCache, entry_of, result_of
from generator.lint.engine import Engine, FileResult
from generator.lint.loader import documents, raw

_INLINE = 8  # files to check below which no worker is started
_engine: Engine | None = None
_cache: ResultCache | None = None

Item = tuple[int, str, str]  # a file to check: its place in the run, its path and its shown name


def check_files(
    engine: Engine, files: list[str], display: Callable[[str], str], cache: ResultCache | None, jobs: int
) -> list[FileResult]:
    """One result per file, in the order given."""
    global _engine, _cache
    # parsing, and decoding the cache's entries, allocate millions of short-lived, acyclic
    # objects: collecting them as often as the default thresholds ask costs ~10% of a cold run
    # and 3% of one answered from the cache; frozen objects are not copied by workers
    threshold = gc.get_threshold()
    gc.set_threshold(100_000, 50, 100)
    try:
        shown = ["stdin" if path == "-" else display(path) for path in files]
        results: list[FileResult | None] = [None] * len(files)
        if cache is not None:
            keys = {}
            for i, path in enumerate(files):
                key = cache.key_of(path, shown[i]) if path != "-" else None
                if key is not None:
                    keys[i] = key
            for i, found in zip(keys, cache.get_many([(key, shown[i]) for i, key in keys.items()]), strict=True):
                results[i] = found
        todo = [(i, path, shown[i]) for i, path in enumerate(files) if results[i] is None]
        _engine, _cache = engine, cache
        gc.freeze()
        if jobs <= 1 or len(todo) < _INLINE or any(path == "-" for _, path, _ in todo):
            _keep(results, cache, todo, map(_check, todo))
        else:
            # the first file here: the schemas its kinds compile (and the definitions they share)
            # are then the workers' from the fork, not compiled again in each of them
            _keep(results, cache, todo[:1], map(_check, todo[:1]))
            gc.freeze()
            todo = todo[1:]
            chunk = max(1, min(16, len(todo) // (jobs * 4)))
            chunks = [todo[start : start + chunk] for start in range(0, len(todo), chunk)]
            shares = [[item for n, part in enumerate(chunks) if n % jobs == w for item in part] for w in range(jobs)]
            workers = _fork([share for share in shares[1:] if share])
            try:
                _keep(results, cache, shares[0], map(_check, shares[0]))
                for worker in workers:
                    _receive(results, cache, worker)
            finally:
                _end(workers)
    finally:
        _engine, _cache = None, None
        gc.unfreeze()
        gc.set_threshold(*threshold)
    if cache is not None:
        cache.save()
    return results  # type: ignore[return-value]


class _Worker:
    """A forked process checking its share: its pid, and the pipe its results come through."""

    __slots__ = ("pid", "pipe", "done")

    def __init__(self, pid: int, pipe: int):
        self.pid, self.pipe, self.done = pid, pipe, False


def _fork(shares: list[list[Item]]) -> list[_Worker]:
    """A worker per share, started at once."""
    workers: list[_Worker] = []
    try:
        for share in shares:
            read, write = os.pipe()
            pid = os.fork()
            if pid == 0:  # the worker: it never returns
                os.close(read)
                _work(share, write)
            os.close(write)
            workers.append(_Worker(pid, read))
    except BaseException:
        _end(workers)
        raise
    return workers


def _work(share: list[Item], pipe: int) -> None:
    """In a worker: check the share, send ``(index, display, entry, key)`` of each file, or the
    error that stopped it, and end without the interpreter's teardown (whose flushing of the
    parent's buffered output, or ``atexit`` callbacks, are not this process's to run)."""
    code = 0
    sent: tuple[str, object]
    try:
        checked = [(item[0], *_check(item)) for item in share]
        sent = ("ok", [(index, result.display, entry_of(result), key) for index, result, key in checked])
    except BaseException as exc:  # sent to the parent, which raises it there: a worker prints nothing
        sent, code = ("error", f"{type(exc).__name__}: {exc}"), 1
    try:
        with open(pipe, "wb") as handle:
            handle.write(marshal.dumps(sent))
    finally:
        os._exit(code)


def _receive(results: list[FileResult | None], cache: ResultCache | None, worker: _Worker) -> None:
    """A worker's results in their places (and in the cache), once it has sent them all."""
    with open(worker.pipe, "rb", closefd=False) as handle:
        data = handle.read()
    os.close(worker.pipe)
    _pid, status = os.waitpid(worker.pid, 0)
    worker.done = True
    try:
        state, sent = marshal.loads(data)
    except (ValueError, EOFError, TypeError):
        state, sent = "error", _ended(status)
    if state != "ok":
        raise RuntimeError(f"a lint worker failed: {sent}")
    objects: dict = {}  # one reference per object, shared by its findings, as from the cache
    for index, display, entry, key in sent:
        results[index] = result_of(display, entry, objects)
        if key is not None and cache is not None:
            cache.put_entry(key, entry)


def _ended(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"ended by signal {os.WTERMSIG(status)}"
    return f"ended with exit code {os.waitstatus_to_exitcode(status)} before sending its results"


def _end(workers: list[_Worker]) -> None:
    """Stop and reap the workers not yet received (the run failed or was interrupted), so none
    is left behind."""
    import signal  # its enums cost a lint that starts no worker

    for worker in workers:
        if worker.done:
            continue
        try:
            os.close(worker.pipe)
        except OSError:
            pass
        try:
            os.kill(worker.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        os.waitpid(worker.pid, 0)
        worker.done = True


def _keep(
    results: list[FileResult | None],
    cache: ResultCache | None,
    todo: list[Item],
    found: Iterable[tuple[FileResult, str | None]],
) -> None:
    """Each checked file's result in its place, and in the cache under the key of what was checked."""
    for (index, _, _), (result, key) in zip(todo, found, strict=True):
        results[index] = result
        if key is not None:
            assert cache is not None  # a key is only made with a cache
            cache.put(key, result)


def _check(item: Item) -> tuple[FileResult, str | None]:
    """Check one file, in a worker or here; with the cache key of the bytes that were checked
    (the file may have changed since it was looked up)."""
    _index, path, shown = item
    assert _engine is not None  # set by check_files for the run
    data = raw(path)
    result = _engine.check_file(shown, documents(data, shown, path.lower().endswith(".json"), _engine.settings.strict))
    key = _cache.key(shown, data) if _cache is not None and isinstance(data, bytes) and path != "-" else None
    return result, key
