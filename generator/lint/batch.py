"""Lint many files: results from the cache first, the rest checked in worker processes.

Each file is read, checked and dropped on its own (``Engine.check_file``), so memory holds
one file's documents per worker plus every file's compact ``FileResult``. Workers are forked
from this process with the engine already built, take files in order and return their
results in that order, so the report does not depend on ``jobs``. A run with few files to
check does them here: starting workers costs more than it saves.
"""

from __future__ import annotations

import gc
from collections.abc import Callable

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
            for (index, _, _), (result, key) in zip(todo, map(_check, todo), strict=True):
                results[index] = result
                if key is not None:
                    assert cache is not None  # a key is only made with a cache
                    cache.put(key, result)
        else:
            import multiprocessing  # a run that checks few files (one edited since the last) starts none

            with multiprocessing.get_context("fork").Pool(min(jobs, len(todo))) as pool:
                chunk = max(1, min(16, len(todo) // (jobs * 4)))
                for (index, _, _), (result, key) in zip(todo, pool.imap(_check, todo, chunksize=chunk), strict=True):
                    results[index] = result
                    if key is not None:
                        assert cache is not None  # a key is only made with a cache
                        cache.put(key, result)
    finally:
        _engine, _cache = None, None
        gc.unfreeze()
        gc.set_threshold(*threshold)
    if cache is not None:
        cache.save()
    return results  # type: ignore[return-value]


def _check(item: tuple[int, str, str]) -> tuple[FileResult, str | None]:
    """Check one file, in a worker or here; with the cache key of the bytes that were checked
    (the file may have changed since it was looked up)."""
    _index, path, shown = item
    assert _engine is not None  # set by check_files for the run
    data = raw(path)
    result = _engine.check_file(shown, documents(data, shown, path.lower().endswith(".json"), _engine.settings.strict))
    key = _cache.key(shown, data) if _cache is not None and isinstance(data, bytes) and path != "-" else None
    return result, key
