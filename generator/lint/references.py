"""The decision of the cross-resource rules about a name that one object uses and another
defines (a claim's StorageClass, a pod's RuntimeClass).

The defining objects' facts are ``("class", name)``; the using objects' are ``(use, name)``
with the finding to report. A use is reported only when the linted files define objects of
that kind at all but not that name: files that define none leave the class to the cluster,
where lint cannot see it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from generator.diagnostic import Diagnostic


def undefined(facts: Iterable[tuple[tuple, Diagnostic | None]], use: str) -> Iterator[Diagnostic]:
    """The findings of the ``use`` facts whose name no ``class`` fact defines."""
    facts = list(facts)
    known = {fact[1] for fact, _ in facts if fact[0] == "class"}
    if not known:
        return
    for fact, finding in facts:
        if fact[0] == use and finding is not None and fact[1] not in known:
            yield finding
