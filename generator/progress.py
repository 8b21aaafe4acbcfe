"""A progress bar for renders of many clusters, shown only where a person is watching.

It draws on stderr, and only when stderr is a terminal, output is not quieted (``-q``) and
the ``CI`` environment variable is unset: CI logs and pipes stay free of bar redraws.

May import: nothing of generator.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Protocol

import click


class Named(Protocol):
    """What the bar shows of a finished item (a cluster's outcome): its name."""

    name: str


# Fewer clusters than this render too fast for a bar to help.
MIN_CLUSTERS = 2


def wanted(quiet: bool, total: int) -> bool:
    return not quiet and total >= MIN_CLUSTERS and sys.stderr.isatty() and not os.environ.get("CI")


class Progress:
    """Context manager; call it once per finished cluster. A no-op when not ``wanted``."""

    def __init__(self, total: int, label: str, enabled: bool, color: bool | None = None):
        self._bar = (
            click.progressbar(
                length=total, label=label, file=sys.stderr, color=color, show_pos=True, item_show_func=lambda name: name
            )
            if enabled
            else None
        )

    def __enter__(self) -> Progress:
        if self._bar:
            self._bar.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._bar:
            self._bar.__exit__(*exc)

    def __call__(self, outcome: Named) -> None:
        if self._bar:
            self._bar.update(1, outcome.name)
