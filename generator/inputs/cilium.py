"""Cilium's settings as the Cilium input checks (IN330-IN350) read them: where Cilium is configured,
the nodes' kernel, the CIDRs.

Cilium is configured where the input turns it on (``network.cilium`` written, ``enabled`` not
false): each Cilium check then reports at the setting it is about (``configured``). Where
Cilium is on only by the provider's default (``ciliumByDefault``, docs/providers.md) nothing
about it is written to point at: IN330 runs the same checks (``Finder``s) and folds what they
find into one error at ``provider``.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Iterator
from typing import Protocol

from generator.errors import InputError
from generator.inputs.protocol import SpecCheck
from generator.yamlio.positions import Located

BASE = ("network", "cilium")


class Finder(Protocol):
    """What one Cilium check finds in the defaulted settings ``c`` (``spec["network"]["cilium"]``)."""

    def __call__(self, spec: dict, doc: Located, facts: dict, c: dict, /) -> Iterable[InputError]: ...


def written(doc: Located) -> bool:
    """The input (or a base it names) writes ``network.cilium``."""
    return "cilium" in (doc.data.get("network") or {})


def on_by_default(spec: dict, doc: Located) -> bool:
    """Cilium is on only because the provider's default turns it on."""
    return spec["network"]["cilium"]["enabled"] and not written(doc)


def configured(find: Finder) -> SpecCheck:
    """The check that runs ``find`` where the input configures Cilium itself."""

    def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
        c = spec["network"]["cilium"]
        if c["enabled"] and written(doc):
            yield from find(spec, doc, facts, c)

    return check


def written_setting(doc: Located, *path: str) -> bool:
    """The input writes ``network.cilium.<path>`` (rather than leaving it to its default)."""
    node = doc.data.get("network", {}).get("cilium", {})
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return False
        node = node[key]
    return True


def network(text: str) -> ipaddress.IPv4Network | None:
    """The CIDR as a network (host bits ignored), or None when it is not an IPv4 CIDR."""
    try:
        return ipaddress.IPv4Network(text, strict=False)
    except ValueError:
        return None


def _major_minor(version: str) -> tuple[int, int]:
    major, minor = version.split(".")[:2]
    return int(major), int(minor)


def node_kernel(spec: dict, facts: dict) -> tuple[tuple[int, int], str] | None:
    """(kernel, where it comes from) of the nodes: the input's, else the provider default."""
    c = spec["network"]["cilium"]
    if "nodeKernel" in c:
        major, minor = (int(x) for x in c["nodeKernel"].split("."))
        return (major, minor), "network.cilium.nodeKernel" + (f" ({c['nodeImage']})" if "nodeImage" in c else "")
    version = _major_minor(spec["kubernetesVersion"])
    for entry in facts["nodeKernels"]:
        if version >= _major_minor(entry["since"]):
            return _major_minor(entry["kernel"]), f"the {spec['provider']} default node image ({entry['image']})"
    return None


# kubeProxyReplacement's modes before Cilium 1.14 (cilium/cilium#32711).
LEGACY_KPR = ("strict", "partial", "probe", "disabled")
