"""The versioned input contract: which ``apiVersion`` and ``kind`` an input file carries.

Every input file says what it is: ``apiVersion: gpu-gitops.io/v1alpha2`` and ``kind: Cluster``
(``clusters/<name>/cluster.yaml``) or ``kind: ClusterBase`` (``clusters/_bases/<name>.yaml``). Render reads
only ``CURRENT``; an older version is an error whose hint is ``gpu-gitops migrate``, which
rewrites it (``inputs.migrate``). A file without the two keys was written before the contract
was versioned: it is read as ``CURRENT``, with a warning that gives the lines to add. Versions
and the policy of how long an old one is read: docs/upgrading-gpu-gitops.md.

May import: generator.errors (and, for its positions, generator.yamlio).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from generator.errors import InputError

if TYPE_CHECKING:
    from generator.yamlio.positions import Located

GROUP = "gpu-gitops.io"
CURRENT = f"{GROUP}/v1alpha2"
# Versions `migrate` reads, oldest first, each with what changed in the next one (docs/upgrading-gpu-gitops.md).
OLDER = (f"{GROUP}/v1alpha1",)
CLUSTER = "Cluster"
BASE = "ClusterBase"


def check(doc: Located, kind: str, cluster: str) -> list[InputError]:
    """The header of one input file of ``kind``: nothing when it is the current version, a
    warning when it has none (read as the current version), an error for an older, unknown or
    wrong one. ``cluster`` names the cluster in the ``migrate`` hint."""
    data = doc.data if isinstance(doc.data, dict) else {}
    version, found_kind = data.get("apiVersion"), data.get("kind")
    migrate = f"run `gpu-gitops migrate {cluster}`"
    if version is None and found_kind is None:
        return [
            doc.warning(
                f"no apiVersion and kind: read as {CURRENT}",
                (),
                f"add these two lines at the top: `apiVersion: {CURRENT}` and `kind: {kind}` (or {migrate})",
            )
        ]
    if version in OLDER:
        return [
            doc.error(
                f"written for {version}, an older version of the input; this gpu-gitops reads {CURRENT}",
                ("apiVersion",),
                f"{migrate} to rewrite it for {CURRENT} (docs/upgrading-gpu-gitops.md says what changes)",
                at_value=True,
            )
        ]
    problems: list[InputError] = []
    if version != CURRENT:
        known = ", ".join((*OLDER, CURRENT))
        problems.append(
            doc.error(
                f"apiVersion {version!r} is not a version of the input this gpu-gitops reads"
                if version is not None
                else f"no apiVersion: expected {CURRENT}",
                ("apiVersion",),
                f"use {CURRENT}; versions known: {known}; a newer one needs a newer gpu-gitops",
                at_value=version is not None,
            )
        )
    if found_kind != kind:
        problems.append(
            doc.error(
                f"kind {found_kind!r} in a file read as a {kind}"
                if found_kind is not None
                else f"no kind: expected {kind}",
                ("kind",),
                f"use `kind: {kind}` ({'clusters/<name>/cluster.yaml' if kind == CLUSTER else 'clusters/_bases/<name>.yaml'})",
                at_value=found_kind is not None,
            )
        )
    return problems
