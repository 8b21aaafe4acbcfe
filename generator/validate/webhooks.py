"""Fields that a CRD marks ``required`` but that the controller's mutating webhook fills in.

The API server calls the mutating webhooks before it validates a custom resource against its
CRD schema, so an object that leaves such a field out is accepted: the schema check must see
the object as the webhook leaves it. Each entry names the webhook code that sets the field;
the value filled in is the webhook's own, so later checks (patterns, CEL rules) see what the
cluster would. A field here is never reported missing.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator

from generator.record import Frozen


class Default(Frozen):
    """A field the API server's defaulting webhook of ``group``/``kind`` sets: at ``path`` (to
    the objects holding the field; "*" is every item of a list), ``field`` gets ``value`` (from
    the item's index, or 0 outside a list); ``source`` is where upstream does it."""

    __slots__ = _fields = ("group", "kind", "path", "field", "value", "source")

    group: str
    kind: str
    path: tuple
    field: str
    value: Callable[[int], object]
    source: str

    def __init__(self, group: str, kind: str, path: tuple, field: str, value: Callable[[int], object], source: str):
        put = object.__setattr__
        put(self, "group", group)
        put(self, "kind", kind)
        put(self, "path", path)
        put(self, "field", field)
        put(self, "value", value)
        put(self, "source", source)


TABLE: tuple[Default, ...] = (
    Default(
        "jobset.x-k8s.io",
        "JobSet",
        ("spec", "failurePolicy", "rules", "*"),
        "name",
        lambda index: f"failurePolicyRule{index}",
        "kubernetes-sigs/jobset pkg/webhooks/jobset_webhook.go, Default (defaultRuleNameFmt "
        '"failurePolicyRule%v"), v0.12.0',
    ),
)


def apply(obj: dict) -> dict:
    """``obj`` as the known webhooks leave it (a new value only when a field was filled in)."""
    group = str(obj.get("apiVersion", "")).rpartition("/")[0]
    entries = [d for d in TABLE if d.group == group and d.kind == obj.get("kind")]
    if not entries:
        return obj
    out = copy.deepcopy(obj)
    changed = False
    for entry in entries:
        for index, holder in _holders(out, entry.path):
            if isinstance(holder, dict) and entry.field not in holder:
                holder[entry.field] = entry.value(index)
                changed = True
    return out if changed else obj


def _holders(node: object, path: tuple, index: int = 0) -> Iterator[tuple[int, object]]:
    if not path:
        yield index, node
        return
    part, rest = path[0], path[1:]
    if part == "*":
        for i, item in enumerate(node if isinstance(node, list) else []):
            yield from _holders(item, rest, i)
    elif isinstance(node, dict) and part in node:
        yield from _holders(node[part], rest, index)
