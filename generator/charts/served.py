"""The APIs the CRDs of a chart's ``templates/`` served when it was last inflated, by chart
digest: where they start the rounds of ``render.charts``, a cluster whose charts template CRDs
(KEDA's, Kueue's) is inflated once, not twice, on a cold inflation cache.

A hint never changes what is rendered. An API no template tests by name (and no template reads
``.Capabilities.APIVersions`` otherwise: then nothing is hinted) leaves Helm's output as it is,
so the first round's objects are those of the rounds without the hint, and the rounds go on
until the APIs given are those installed, as without it: a wrong or stale hint costs a round,
never an object. The hints are kept in ``<cache>/served/<digest>.json``; one that cannot be
read or written only costs time.
"""

from __future__ import annotations

import json
import os

from generator.charts import inflate, lock, offline
from generator.charts.releases import Release
from generator.paths import cache_root


def _path(entry: lock.Entry) -> str:
    return os.path.join(cache_root(), "served", f"{entry.hex}.json")


def hint(used: list[tuple[Release, lock.Entry]]) -> tuple[set[str], set[tuple[str, str]]]:
    """The APIs and cluster-scoped kinds the releases' charts installed last time, less every
    API one of them tests by name; nothing where a chart reads the API versions otherwise."""
    sites = [site for _, entry in used for site in offline.scan(inflate.package(entry))]
    if any(s.call == offline.HAS and not s.api for s in sites):
        return set(), set()
    tested = {s.api for s in sites if s.call == offline.HAS}
    apis: set[str] = set()
    scoped: set[tuple[str, str]] = set()
    for _, entry in used:
        try:
            with open(_path(entry), encoding="utf-8") as handle:
                known = json.load(handle)
            apis |= {str(a) for a in known["apis"]}
            scoped |= {(str(g), str(k)) for g, k in known["scoped"]}
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return apis - tested, scoped


def remember(used: list[tuple[Release, lock.Entry]], inflated: list[list[dict]]) -> None:
    """Keep, by chart digest, the APIs of the CRDs each release's inflation installs."""
    for (_, entry), objects in zip(used, inflated, strict=True):
        apis, scoped = inflate.crd_apis([o for o in objects if o.get("kind") == "CustomResourceDefinition"])
        if not apis:
            continue
        path = _path(entry)
        text = json.dumps({"apis": sorted(apis), "scoped": sorted(scoped)}, sort_keys=True)
        try:
            with open(path, encoding="utf-8") as handle:
                if handle.read() == text:
                    continue
        except OSError:
            pass
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            partial = f"{path}.{os.getpid()}.part"
            with open(partial, "w", encoding="utf-8") as handle:
                handle.write(text)
            os.replace(partial, path)
        except OSError:
            pass
