"""The render checks' results kept between runs: an object rendered before, byte for byte, is
neither schema-checked nor linted again by the next process.

Renders repeat most objects: the next render after an edit of one input, the same platform in
every cluster, ``check`` after ``render``. In one process ``checks`` remembers each schema
verdict and each rule result by the digest of the object's YAML; this module keeps them in the
user cache too, so that a new process pays neither the compiles of the schemas its objects
need (~0.2 s for the kinds of the example clusters) nor the checks of the objects it has seen.

What a kept result is keyed by, besides the object's digest:

- a verdict, by its validator's fingerprint: the Kubernetes version and its bundled schemas'
  folder, each schema location's template and the name, size and modification time of every
  file a local one can reach, and the schemas given in memory (a chart's CRDs):
  ``lint.cache.schema_fingerprint``, what lint's result cache keys its schema checks by;
- a rule result, by the lint settings (rules, levels, options, ignores) and the file's path in
  the tree (rules read a file's name), or its path as shown when the settings ignore paths;
- both, by the tool's version and code (every module's name, size and modification time) and
  the versions of the packages whose answers they hold (``_PACKAGES``, ``_run``).

So an edited schema file, rule, setting or an upgrade misses every entry it could change; a
download location is cached by its URL and never changes. Entries live in ``render/`` of the
user cache folder, in lint's packs (``lint.cache.ResultCache``: written whole or not at all,
read back or missed); a run saves what it checked once it has rendered (``save``), and every
``SAVE_EVERY`` new entries before that, and reads back the newest ``KEEP`` entries, so a fleet's
render holds a bounded number of them whatever its size.
"""

from __future__ import annotations

import json
import marshal
import os
from typing import TYPE_CHECKING

from generator.paths import CACHE_ENV, cache_root
from generator.sha import sha256

if TYPE_CHECKING:
    from collections.abc import Callable

    from generator.lint.cache import ResultCache
    from generator.lint.engine import FileResult
    from generator.validate import SchemaValidator
    from generator.validate.validator import SchemaProblem

FOLDER = "render"  # under the user cache folder
FORMAT = 1  # of an entry; part of the run key
# Entries a run reads back, the newest (``ResultCache``'s ``limit``), and new entries it holds
# before it writes them as a pack: with ``checks``' memos, what a fleet's render holds of checks
# is bounded (an entry is a few hundred bytes to a kilobyte in memory), whatever the fleet's size.
# The example clusters' copies differ in ~7 objects each (~13 entries), so a fleet of up to
# ~1,200 clusters is answered whole by its next render; a larger one checks the rest again.
KEEP = 16_384
SAVE_EVERY = 8192
# the installed packages a verdict or a rule's result depends on: the bundled Kubernetes schemas
# (and the API versions served, read by rules), the JSON Schema checks that word a failure and
# resolve references, the CEL rules' evaluator
_PACKAGES = ("kubernetes_validate", "jsonschema", "referencing", "common_expression_language")

# the store of the cache folder in use, by the variable that moves it (tests change it between runs)
_store: tuple[str | None, ResultCache] | None = None
# validator fingerprints, by identity (the validator kept, so no id is reused while its entry is)
_FINGERPRINTS: dict[int, tuple[SchemaValidator, str]] = {}


def _run() -> str:
    """What every kept result depends on besides its own key: formats, versions and the code."""
    import generator
    from generator import codeprint
    from generator.lint import cache
    from generator.validate.validator import installed_version

    parts = {
        "format": [FORMAT, cache.FORMAT, marshal.version],
        "version": generator.__version__,
        "packages": {name: installed_version(name) for name in _PACKAGES},
        "code": codeprint.fingerprint(),
    }
    return sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def _current() -> ResultCache:
    """The packs of this cache folder, read once per process (again when the folder changes)."""
    global _store
    moved = os.environ.get(CACHE_ENV)  # asked for each object: no path made to compare
    if _store is None or _store[0] != moved:
        from generator.lint.cache import ResultCache

        _store = (moved, ResultCache(cache_root() / FOLDER, _run(), limit=KEEP))
    return _store[1]


def _validator_key(validator: SchemaValidator) -> str:
    known = _FINGERPRINTS.get(id(validator))
    if known is None or known[0] is not validator:
        from generator.lint.cache import schema_fingerprint

        if len(_FINGERPRINTS) >= 256:  # a validator per Kubernetes version and chart CRD set
            _FINGERPRINTS.clear()

        text = json.dumps(schema_fingerprint(validator), sort_keys=True, default=str)
        known = _FINGERPRINTS[id(validator)] = (validator, sha256(text.encode()).hexdigest())
    return known[1]


def _key(*parts: str | bytes) -> str:
    digest = sha256()
    for part in parts:
        digest.update((part.encode("utf-8", "surrogateescape") if isinstance(part, str) else part) + b"\0")
    return digest.hexdigest()


def verdict(
    validator: SchemaValidator, digest: bytes, check: Callable[[], list[SchemaProblem]]
) -> tuple[list[SchemaProblem], bool]:
    """The verdict on the object of this digest under this validator, and whether it was kept by
    an earlier run; else ``check()``'s, kept from now on."""
    from generator.validate.validator import SchemaProblem

    store, key = _current(), _key("verdict", _validator_key(validator), digest)
    entry = store.entries.get(key)
    if entry is not None:
        try:
            return [SchemaProblem(str(kind), str(message), tuple(path)) for kind, message, path in entry], True
        except (TypeError, ValueError):
            pass  # not of an entry's shape: a miss
    problems = check()
    _put(store, key, tuple((p.kind, p.message, tuple(p.path)) for p in problems))
    return problems, False


def rule_result(settings: str, file_key: str, digest: bytes, file: str, check: Callable[[], FileResult]) -> FileResult:
    """The rules' result on the object of this digest, located in ``file``: kept by an earlier
    run, else ``check()``'s, kept from now on."""
    from generator.lint.cache import entry_of, result_of

    store, key = _current(), _key("rules", settings, file_key, digest)
    entry = store.entries.get(key)
    if entry is not None:
        try:
            return result_of(file, entry, {})
        except (ValueError, TypeError, IndexError):
            pass
    result = check()
    _put(store, key, entry_of(result))
    return result


def _put(store: ResultCache, key: str, entry: tuple) -> None:
    store.put_entry(key, entry)
    if len(store.new) >= SAVE_EVERY:
        save()


def save() -> None:
    """Write what this process checked since it last saved, as one pack; a cache that cannot be
    written only costs the next run its checks.

    What it wrote is dropped, not added to the entries read: this process asks again only for
    what the memos of ``checks`` forgot when full, so a fleet's render holds the packs it read
    and at most ``SAVE_EVERY`` new entries, whatever the fleet's size."""
    if _store is None or not _store[1].new:
        return
    store = _store[1]
    store.save()  # with the packs it read folded into one when there are many
    store.new = {}
    store.packs = []  # folded or not, the next saves write their entries only
