"""The APIs the CRDs of a chart's ``templates/`` served when it was last inflated, by chart
digest: where they start the rounds of ``render.charts``, a cluster whose charts template CRDs
(KEDA's, Kueue's) is inflated once, not twice, on a cold inflation cache.

Without a hint the rounds start from the APIs of each chart's ``crds/``, its subcharts' included
(a disabled subchart's are not installed: a second round drops them), and add those of its
``templates/`` in a second round. A hint never changes what is rendered: the start differs from
that only in APIs no template tests by name (where one reads ``.Capabilities.APIVersions``
otherwise, nothing is hinted), which leave Helm's output as it is, so the first round's objects
are those of the rounds without the hint, and the rounds go on until the APIs given are those
installed, as without it: a wrong or stale hint costs a round, never an object. The hints are kept in ``<cache>/served/<digest>.json``; one that cannot be
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


def kept(entry: lock.Entry) -> tuple[set[str], set[tuple[str, str]]] | None:
    """The APIs and cluster-scoped kinds of the CRDs the chart installed when last inflated."""
    try:
        with open(_path(entry), encoding="utf-8") as handle:
            known = json.load(handle)
        return {str(a) for a in known["apis"]}, {(str(g), str(k)) for g, k in known["scoped"]}
    except (OSError, ValueError, KeyError, TypeError):
        return None


def start(used: list[tuple[Release, lock.Entry]], hinted: set[str], cold: set[str]) -> set[str]:
    """The APIs the rounds start from: ``hinted`` (the kept APIs where the charts have them)
    with every API a chart tests by name as it is in ``cold`` (the start without hints), so
    Helm's output is the same; ``cold`` itself where a chart reads the API versions otherwise."""
    sites = [site for _, entry in used for site in offline.scan(inflate.package(entry))]
    if any(s.call == offline.HAS and not s.api for s in sites):
        return cold
    tested = {s.api for s in sites if s.call == offline.HAS}
    return (hinted - tested) | (cold & tested)


def remember(used: list[tuple[Release, lock.Entry]], inflated: list[list[dict]]) -> None:
    """Keep, by chart digest, the APIs of the CRDs each release's inflation installs (none too:
    a chart whose ``crds/`` are all a disabled subchart's)."""
    for (_, entry), objects in zip(used, inflated, strict=True):
        apis, scoped = inflate.crd_apis([o for o in objects if o.get("kind") == "CustomResourceDefinition"])
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
