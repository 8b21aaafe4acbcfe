"""The decision of the cross-resource rules about a name that one object uses and another
defines (a claim's StorageClass, a pod's RuntimeClass).

The defining objects' facts are ``("class", name)``; the using objects' are ``(use, name)``
with the finding to report. A use is reported only when the linted files define objects of
that kind at all but not that name: files that define none leave the class to the cluster,
where lint cannot see it, unless lint targets a cluster (``lint --cluster``): then the
cluster's names count as defined, and a name in neither is reported, naming the cluster.
Where the linted files are not known to be the whole set (``Settings.complete``), the engine
makes such a finding a note (``as_note``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from generator.diagnostic import Diagnostic

TYPE_CHECKING = False  # typing's flag without importing typing (PEP 781; mypy reads it as True)
if TYPE_CHECKING:
    from generator.contract.model import Contract


# ("class", name) for a defining object, (use, name) for a using one
NameFact = tuple[str, str]


def as_note(finding: Diagnostic) -> Diagnostic:
    """A finding of a rule whose set may be incomplete (files of a repository, not a rendered tree or
    a cluster): what it names may be defined elsewhere, so it is a note (info), saying so."""
    return finding.replace(
        severity="info",
        message=f"{finding.message} (in the linted files; they may not be all the cluster has)",
        hint="lint the whole rendered tree or with --cluster, or set lint.completeSet: true when these files "
        "are every object of the cluster; then a missing name is an error",
    )


def undefined(
    facts: Iterable[tuple[NameFact, Diagnostic | None]],
    use: str,
    cluster_names: Iterable[str] | None = None,
    contract: Contract | None = None,
) -> Iterator[Diagnostic]:
    """The findings of the ``use`` facts whose name no ``class`` fact defines, nor
    ``cluster_names`` (the target cluster's, when ``contract`` is the cluster's)."""
    facts = list(facts)
    known = {fact[1] for fact, _ in facts if fact[0] == "class"}
    if not known and contract is None:
        return
    known |= set(cluster_names or ())
    for fact, finding in facts:
        if fact[0] == use and finding is not None and fact[1] not in known:
            if contract is not None:
                finding = finding.replace(
                    message=f"{finding.message} (not in the linted files nor on cluster {contract.cluster})"
                )
            yield finding
