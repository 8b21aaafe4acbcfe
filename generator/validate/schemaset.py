"""The synced CRD schema set in the user cache: where it lives and what it holds.

``gpu-gitops schemas sync`` (``generator.lint.schemasync``) makes the set; render, check and lint
read it here, after the user's own schema locations. Only the standard library is needed, so an
up-to-date check can ask for the set without loading the sync.
"""

from __future__ import annotations

import os

from generator.paths import cache_folder, plain
from generator.record import Frozen

SET_FILE = "SET.json"
LAYOUT = "{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json"
# the hint render, check and lint give with the warning that names the kinds without a schema
MISSING_HINT = (
    "run `gpu-gitops schemas sync` (`--from DIR` with a local mirror of the CRD files), or give their "
    "schemas with --schema-location (-v lists every object; --require-schemas makes this an error)"
)


class SchemaSet(Frozen):
    """An installed set: the source list version it was made from, its schema location, the
    sources a local mirror did not have (their kinds stay unchecked), and per kind
    (``group/version Kind``) the upstream repository and release its CRD came from, which
    equality and the hash leave out."""

    __slots__ = _fields = ("version", "folder", "kinds", "absent", "origins")

    version: str
    folder: str  # text (``paths.plain``): lint's path imports no pathlib
    kinds: int
    absent: tuple[str, ...]
    origins: dict[str, str]

    def __init__(
        self,
        version: str,
        folder: str | os.PathLike[str],
        kinds: int,
        absent: tuple[str, ...] = (),
        origins: dict[str, str] | None = None,
    ):
        put = object.__setattr__
        put(self, "version", version)
        put(self, "folder", plain(folder))
        put(self, "kinds", kinds)
        put(self, "absent", absent)
        put(self, "origins", {} if origins is None else origins)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values()[:4] == other._values()[:4]

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(self._values()[:4])

    @property
    def location(self) -> str:
        return plain(self.folder, LAYOUT)


def installed(root: str | os.PathLike[str] | None = None) -> SchemaSet | None:
    """The synced schema set in the cache, or None before the first sync."""
    folder = plain(root if root is not None else cache_folder(), "crd-schemas")
    try:
        with open(os.path.join(folder, SET_FILE), encoding="utf-8") as handle:
            text = handle.read()
        import json  # a synced set to read: json's decoder, with re, only then

        meta = json.loads(text)
        origins = meta.get("origins", {})
        return SchemaSet(
            str(meta["version"]),
            folder,
            int(meta["kinds"]),
            tuple(meta.get("absent", ())),
            {str(k): str(v) for k, v in origins.items()} if isinstance(origins, dict) else {},
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None
