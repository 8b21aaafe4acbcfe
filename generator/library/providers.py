"""The provider table, ``libsonnet/providers.json``: read by Jsonnet and by Python alike.

Per provider it holds the facts the library and the generator branch on (default GPU taint,
Cilium integration, cluster DNS pods, default node kernel, ...), each with its upstream source.
``main.libsonnet`` hands a component its provider's row as ``providerFacts``; Python reads the
same row for defaults (``conventions``), consistency checks and the lint taint defaults, so a
provider convention lives in one place.
"""

from __future__ import annotations

import os

from generator.errors import InputError
from generator.library import tables

TYPE_CHECKING = False  # typing's flag without importing typing (PEP 781; mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any


# The library installed with the package, for callers without a project (lint settings).
INSTALLED_LIBRARY = os.path.join(os.path.dirname(os.path.dirname(__file__)), "_data", "libsonnet")


def load(library: str | os.PathLike[str] | None = None) -> dict[str, dict]:
    """``{provider: facts}`` of a library (default: the installed one), read once per version
    of the file; a malformed table (in a customised library) is an input error."""
    path = os.path.join(library if library is not None else INSTALLED_LIBRARY, "providers.json")
    return tables.load(path, _table, "provider table", SHAPE)


SHAPE = "{facts: {name: meaning}, providers: {provider: {facts: {name: value}, sources: {name: source}}}}"


def _table(data: Any) -> dict[str, dict]:
    names = set(data["facts"])
    table = {name: row["facts"] for name, row in data["providers"].items()}
    for name, facts in table.items():
        if set(facts) != names:
            raise ValueError(f"provider {name} has facts {sorted(set(facts) ^ names)} that differ from the listed ones")
    return table


def facts(provider: str, library: str | os.PathLike[str] | None = None) -> dict:
    """The facts of one provider; one the schema accepts but the table lacks (a customised
    library or schema) is an input error."""
    table = load(library)
    if provider not in table:
        path = os.path.join(library if library is not None else INSTALLED_LIBRARY, "providers.json")
        raise InputError(
            f"provider {provider!r} has no row in the provider table",
            path=path,
            hint=f"add {provider} with every fact to providers.json, or use one of: {', '.join(sorted(table))}",
        )
    return table[provider]


GPU_VENDORS = ("nvidia", "amd")


def default_gpu_taint(facts: dict, vendor: str) -> dict:
    """The GPU taint of a pool that lists none: keyed by the vendor's resource name, with the
    provider's value (GKE adds ``present`` itself). The one answer to "which taint do a
    provider's GPU nodes carry": inputs default their pools to it and lint without a target
    cluster expects its keys."""
    taint = {"key": f"{vendor}.com/gpu", "effect": "NoSchedule"}
    value = facts["gpuTaintValue"]
    if value:
        taint["value"] = value
    return taint
