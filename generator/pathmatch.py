"""The config file's path patterns (``lint.exclude``, ``lint.ignore[].path``), with gitignore semantics.

Patterns are matched by ``pathspec`` (``GitIgnoreSpec``, git's own rules) against the path as
shown, relative to the project root: ``*.yaml`` matches at any depth, a pattern with a slash
at the start or in the middle is anchored at the root (``/vendor``, ``deploy/testdata``),
``vendor/`` is a folder and everything in it, ``**`` any number of folders, and ``!pattern``
takes back what an earlier pattern matched (not inside a matched folder, as in git).
``pathspec`` loads with the first pattern: a run without any does not pay for its import.

May import: nothing of generator.
"""

from __future__ import annotations

from functools import lru_cache

TYPE_CHECKING = False  # typing's flag without importing typing (PEP 781; mypy reads it as True)
if TYPE_CHECKING:
    import pathspec


@lru_cache(maxsize=64)
def _spec(patterns: tuple[str, ...]) -> pathspec.GitIgnoreSpec:
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines(patterns)


def matches(path: str, patterns: list[str] | tuple[str, ...]) -> bool:
    """Whether the patterns, read as one .gitignore file, match ``path``: the file or a folder
    it is in (git never looks inside an ignored folder, so a later ``!`` cannot take back a file there)."""
    if not patterns:
        return False
    spec = _spec(tuple(patterns))
    parts = path.strip("/").split("/")
    folders = ("/".join(parts[:n]) + "/" for n in range(1, len(parts)))
    return any(spec.match_file(folder) for folder in folders) or spec.match_file(path)
