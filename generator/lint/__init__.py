"""``gpu-gitops lint``: strict schemas, GPU and API-server rules, located findings.

``lint_paths`` is the library entry point the CLI wraps; ``lint_objects`` runs the same
rules over objects that render produced, so render, check and lint agree.
"""

from __future__ import annotations

from collections.abc import Callable

from generator.lint.batch import check_files
from generator.lint.cache import ResultCache, run_key
from generator.lint.engine import Engine, Result
from generator.lint.loader import Source, discover
from generator.lint.model import Document, Finding, Resource
from generator.lint.settings import Settings
from generator.schemasync import cache_root
from generator.validate import SchemaValidator
from generator.validate.locations import SchemaLocation


def make_validator(settings: Settings) -> SchemaValidator:
    locations = [SchemaLocation(t) for t in settings.schema_locations]
    return SchemaValidator(settings.kubernetes_version, locations, settings.schema_cache)


def lint_paths(paths: list[str], settings: Settings, display: Callable[[str], str] = str,
               validator: SchemaValidator | None = None, *, jobs: int = 1, cached: bool = False,
               refs: bool = True) -> Result:
    """Lint files and folders (``-`` is stdin); ``display`` turns a path into what is shown;
    ``validator`` is one the caller keeps to read its warnings afterwards; ``jobs`` worker
    processes check the files; ``cached`` reuses and stores per-file results in the user cache;
    ``refs`` keeps every object's reference in the result (memory that grows with the objects:
    only the JUnit report, which lists passing objects, needs them)."""
    files = discover(paths, settings.excludes, display)
    validator = validator or make_validator(settings)
    engine = Engine(settings, validator, refs=refs)
    store = ResultCache(cache_root() / "lint", run_key(settings, validator, refs)) if cached else None
    return engine.finish(check_files(engine, files, display, store, jobs))


def lint_objects(objects: list[tuple[str, str, dict]], settings: Settings) -> list[Finding]:
    """Rule findings (no schema checks: render has done them) for ``(file, text, object)`` triples."""
    sources = []
    for file, text, obj in objects:
        source = Source(file, [Document(file, text, 0, obj)])
        sources.append(source)
    engine = Engine(settings, None)
    return engine.run(sources).findings


__all__ = ["Engine", "Finding", "Resource", "Result", "Settings", "lint_objects", "lint_paths", "make_validator"]
