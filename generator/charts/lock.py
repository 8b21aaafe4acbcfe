"""``clusters/charts.lock``: each chart the clusters deploy, with its repository, version and the
sha256 of its package, committed beside the inputs.

The lock is what makes a chart an input like any other: the sum file of a tree records the
digests of the charts it inflated (never the cache's bytes), so a fresh clone with no chart
cache still sees its committed trees as up to date, and a package whose bytes differ from the
lock is refused wherever it comes from. ``gpu-gitops charts pull`` writes it; reviewers read
it. JSON, sorted, one chart per entry; only the standard library is used (the up-to-date check
reads it).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

DESCRIPTION = (
    "Helm charts the clusters deploy: repository, chart, version and the sha256 of the package. "
    "Written by `gpu-gitops charts pull`; a package whose digest differs is refused."
)


@dataclass(frozen=True, order=True)
class Entry:
    repository: str
    chart: str
    version: str
    digest: str  # sha256:<hex>

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.repository, self.chart, self.version)

    @property
    def hex(self) -> str:
        return self.digest.removeprefix("sha256:")

    def shown(self) -> str:
        return f"{self.chart} {self.version} ({self.repository})"


class LockError(Exception):
    """The lock file is there but not a lock: its path and why."""


def read(path: str | os.PathLike) -> dict[tuple[str, str, str], Entry] | None:
    """The entries by (repository, chart, version); None when there is no lock file."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise LockError(f"cannot read the chart lock: {exc}") from None
    try:
        entries = [Entry(c["repository"], c["chart"], c["version"], c["digest"]) for c in data["charts"]]
    except (TypeError, KeyError) as exc:
        raise LockError(f"not a chart lock: an entry lacks {exc}") from None
    for entry in entries:
        if not all(isinstance(v, str) for v in (entry.repository, entry.chart, entry.version, entry.digest)):
            raise LockError(f"not a chart lock: {entry} has a value that is not text")
        if not entry.digest.startswith("sha256:") or len(entry.hex) != 64:
            raise LockError(f"{entry.shown()}: digest {entry.digest!r} is not sha256:<64 hex digits>")
    return {e.key: e for e in entries}


def text(entries: dict[tuple[str, str, str], Entry]) -> str:
    """The lock file's bytes: deterministic (sorted entries, fixed key order)."""
    charts = [
        {"repository": e.repository, "chart": e.chart, "version": e.version, "digest": e.digest}
        for e in sorted(entries.values())
    ]
    return json.dumps({"description": DESCRIPTION, "charts": charts}, indent=2) + "\n"


def write(path: str | os.PathLike, entries: dict[tuple[str, str, str], Entry]) -> None:
    """Replace the lock file in one rename."""
    partial = f"{os.fspath(path)}.{os.getpid()}.part"
    with open(partial, "w", encoding="utf-8") as handle:
        handle.write(text(entries))
    os.replace(partial, path)
