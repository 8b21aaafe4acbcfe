"""``gpu-gitops lint``: strict schemas, GPU and API-server rules, located findings.

``lint_paths`` is the library entry point the CLI wraps; ``object_result`` runs the same
rules over an object that render produced, so render, check and lint agree.

May import: generator.codeprint, generator.regex, generator.jsontext, generator.replace, generator.record, generator.ruledoc, generator.rulemeta, generator.addresses, generator.diagnostic, generator.errors, generator.paths,
generator.jsonpath, generator.sha, generator.yamlio, generator.library, generator.validate, generator.kube, generator.pathmatch,
generator.inputs and generator.contract (a cluster's settings and contract, ``clusters``).
"""

from __future__ import annotations

import os
from collections.abc import Callable

TYPE_CHECKING = False  # typing's flag without importing typing (PEP 781; mypy reads it as True)
if TYPE_CHECKING:
    from generator.lint.engine import Engine, FileResult, Result
    from generator.lint.settings import Settings
    from generator.validate import SchemaValidator


# The linter's modules (YAML parser, JSON Schema, rules) are imported when a function here
# runs, or when one of the names below is first read: importing a submodule such as
# ``generator.lint.settings`` (the config file reads it) loads only that submodule.
_LAZY = {"Engine": "engine", "Result": "engine", "Resource": "model", "Settings": "settings"}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        from importlib import import_module

        return getattr(import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def make_validator(settings: Settings) -> SchemaValidator:
    from generator.validate import SchemaValidator
    from generator.validate.locations import SchemaLocation

    locations = [SchemaLocation(t) for t in settings.schema_locations]
    return SchemaValidator(settings.kubernetes_version, locations, settings.schema_cache)


def lint_paths(
    paths: list[str],
    settings: Settings,
    display: Callable[[str], str] = str,
    validator: SchemaValidator | None = None,
    *,
    jobs: int = 1,
    cached: bool = False,
    refs: bool = True,
    context: list[str] | None = None,
) -> Result:
    """Lint files and folders (``-`` is stdin); ``display`` turns a path into what is shown;
    ``validator`` is one the caller keeps to read its warnings afterwards; ``jobs`` worker
    processes check the files; ``cached`` reuses and stores per-file results in the user cache;
    ``refs`` keeps every object's reference in the result (memory that grows with the objects:
    only the JUnit report, which lists passing objects, needs them). ``context``: files and
    folders whose objects the cross-file rules see too, none of their own findings reported (the
    pre-commit hook's, so what a batch of files is judged against does not depend on how the
    files were split into batches)."""
    from generator.lint.batch import check_files
    from generator.lint.cache import ResultCache, run_key
    from generator.lint.engine import Engine
    from generator.lint.loader import discover
    from generator.paths import cache_folder

    files = discover(paths, settings.excludes, display)
    seen: list[str] = []
    if context:  # files linted are left out of the context (resolving every path costs)
        linted = {os.path.realpath(f) for f in files if f != "-"}
        seen = [f for f in discover(context, settings.excludes, display) if os.path.realpath(f) not in linted]
    validator = validator or make_validator(settings)
    engine = Engine(settings, validator, refs=refs)
    store = ResultCache(os.path.join(cache_folder(), "lint"), run_key(settings, validator, refs)) if cached else None
    results = check_files(engine, files + seen, display, store, jobs)
    return engine.finish(results[: len(files)], results[len(files) :])


def object_result(engine: Engine, file: str, text: str, obj: dict) -> FileResult:
    """The rules' result (``Engine.check_file``; no schema checks: render has done them) for one
    rendered object in ``file``, whose text is ``text``.

    A finding is located through the reader's position map of the text (``yamlio.read``), as
    lint locates the files it reads: the text is the emitter's, one plain document, and the
    map is built only for a document that has something to report (a fifth of the cost of
    composing it with ruamel)."""
    from generator.lint.model import Document
    from generator.yamlio.read import Positions

    return engine.check_file(file, [Document(file, text, 0, obj, where=Positions(text))])


__all__ = ["Engine", "Resource", "Result", "Settings", "lint_paths", "make_validator", "object_result"]
