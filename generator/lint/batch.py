"""Lint many files: results from the cache first, the rest checked here and in worker processes.

Each file is read, checked and dropped on its own (``Engine.check_file``), so memory holds
one file's documents per process plus every file's compact ``FileResult``. ``jobs`` processes
check: this one and ``jobs - 1`` workers forked from it with the engine already built and the
first file checked (the schemas of its kinds compiled once, not in each worker). The files are
dealt out in chunks, one in ``jobs`` kept here (its results are never pickled, and one process
fewer is forked), the others to the workers in order; each result lands in its file's place,
so the report does not depend on ``jobs``. A run with few files to check does them here:
starting workers costs more than it saves.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable

from generator.lint.cache import ResultCache
from generator.lint.engine import Engine, FileResult
from generator.lint.loader import documents, raw

_INLINE = 8  # files to check below which no worker is started
_engine: Engine | None = None
_cache: ResultCache | None = None


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
            import multiprocessing  # a run that checks few files (one edited since the last) starts none

            # the first file here: the schemas its kinds compile (and the definitions they share)
            # are then the workers' from the fork, not compiled again in each of them
            _keep(results, cache, todo[:1], map(_check, todo[:1]))
            gc.freeze()
            todo = todo[1:]
            chunk = max(1, min(16, len(todo) // (jobs * 4)))
            chunks = [todo[start : start + chunk] for start in range(0, len(todo), chunk)]
            here = [item for n, part in enumerate(chunks) if n % jobs == 0 for item in part]
            there = [item for n, part in enumerate(chunks) if n % jobs for item in part]
            with multiprocessing.get_context("fork").Pool(min(jobs - 1, len(there))) as pool:
                checked = pool.imap(_check, there, chunksize=chunk)  # the workers start on theirs
                _keep(results, cache, here, map(_check, here))
                _keep(results, cache, there, checked)
    finally:
        _engine, _cache = None, None
        gc.unfreeze()
        gc.set_threshold(*threshold)
    if cache is not None:
        cache.save()
    return results  # type: ignore[return-value]


def _keep(
    results: list[FileResult | None],
    cache: ResultCache | None,
    todo: list[tuple[int, str, str]],
    found: Iterable[tuple[FileResult, str | None]],
) -> None:
    """Each checked file's result in its place, and in the cache under the key of what was checked."""
    for (index, _, _), (result, key) in zip(todo, found, strict=True):
        results[index] = result
        if key is not None:
            assert cache is not None  # a key is only made with a cache
            cache.put(key, result)


def _check(item: tuple[int, str, str]) -> tuple[FileResult, str | None]:
    """Check one file, in a worker or here; with the cache key of the bytes that were checked
    (the file may have changed since it was looked up)."""
    _index, path, shown = item
    assert _engine is not None  # set by check_files for the run
    data = raw(path)
    result = _engine.check_file(shown, documents(data, shown, path.lower().endswith(".json"), _engine.settings.strict))
    key = _cache.key(shown, data) if _cache is not None and isinstance(data, bytes) and path != "-" else None
    return result, key
