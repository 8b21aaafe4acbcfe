"""``gpu-gitops explain-input CLUSTER KEY``: a value of the complete input and every file that
set or overrode it, in the order applied (bases, then the cluster's file), or the default.

KEY is a dotted path: ``network.cilium.mtu``; list items by index or by their merge key,
``nodePools[h100].gpu.perNode``, ``workloads[ml-serving].quota``. Keys with dots of their own
(sysctls, labels) are matched whole: ``nodePools[h100].sysctls.net.core.rmem_max``.

May import: generator.errors, generator.paths, generator.inputs.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Any

from generator import regex
from generator.errors import InputError
from generator.inputs.load import load_cluster, read_layers
from generator.inputs.merge import Merged
from generator.paths import Project

_ITEM = regex.compile(r"\[([^\]]+)\]")
_SELECTORS = ("name", "namespace")  # what an item of a list is called by, besides its index


@dataclass
class Explanation:
    key: str  # as the user asked, resolved: `nodePools[h100].gpu.perNode`
    path: tuple  # in the merged input
    value: Any  # in the complete input (defaults filled)
    setters: list[tuple[str, int, int]] = field(default_factory=list)  # file, line, col, in order
    removed_by: tuple[str, int, int] | None = None  # the `null` that removed it, when one did
    layers: list[str] = field(default_factory=list)  # every file of the input, in order
    path_found: bool = True  # False: a `null` removed it and no default fills it

    def lines(self) -> list[str]:
        import json

        value = json.dumps(self.value, sort_keys=False) if self.path_found else "(not set)"
        out = [f"{self.key}: {value}"]
        later = "and by" if isinstance(self.value, (dict, list)) else "overridden by"  # merged, or replaced
        for i, (file, line, col) in enumerate(self.setters):
            out.append(f"  {'set by' if i == 0 else later} {file}:{line}:{col}")
        if self.removed_by:
            file, line, col = self.removed_by
            out.append(f"  removed by {file}:{line}:{col} (null)")
        if not self.setters and self.path_found:
            out.append("  set by no file: the default (docs/inputs.md)")
        out.append(f"  layers: {' → '.join(self.layers)}")
        return out


def explain(project: Project, cluster: str, key: str) -> Explanation:
    """What ``key`` is in ``cluster``'s complete input and who set it; ``InputError`` for a
    key that is in neither the input nor its defaults."""
    project.clusters_readable()
    try:
        loaded = load_cluster(project, cluster)
        doc, spec = loaded.source, loaded.spec
    except InputError:  # explained as written (no defaults): where a wrong value comes from is asked most then
        doc, _layers, _warnings = read_layers(project, cluster)
        spec = doc.data
    assert isinstance(doc, Merged)
    path, shown = _resolve(key, spec, doc)
    value: Any = spec
    found = True
    for part in path:
        try:
            value = value[part]
        except (KeyError, IndexError, TypeError):
            value, found = None, False
            break
    removed = doc.removed.get(path)
    removed_by = None
    if removed:
        index, layer_path = removed
        removed_by = (doc.layers[index].path, *doc.layers[index].value_position(layer_path))
    return Explanation(
        shown,
        path,
        value,
        doc.history(path),
        removed_by,
        [layer.path for layer in doc.layers],
        found or removed is None,
    )


def _resolve(key: str, spec: dict, doc: Merged) -> tuple[tuple, str]:
    """``key`` as a path in the input, and as shown; matched against the complete input (and
    the keys a ``null`` removed)."""
    rest, shown = key.strip(), ""
    node: Any = spec
    path: tuple = ()
    removed = {p[-1] for p in doc.removed if isinstance(p[-1], str)}
    while rest:
        rest = rest.removeprefix(".")
        item = _ITEM.match(rest)
        if item:
            if not isinstance(node, list):
                raise _no_such(key, shown, [])
            index = _item(node, item.group(1), key, shown)
            path, node, rest = path + (index,), node[index], rest[item.end() :]
            shown += f"[{item.group(1)}]"
            continue
        candidates = list(node) if isinstance(node, dict) else []
        match = max(
            (k for k in [*candidates, *removed] if rest == k or rest.startswith((f"{k}.", f"{k}["))),
            key=len,
            default=None,
        )
        if match is None:
            word = re.split(r"[.\[]", rest, maxsplit=1)[0]
            raise _no_such(key, shown, candidates, word)
        path, rest = path + (match,), rest[len(match) :]
        shown = f"{shown}.{match}" if shown else match
        node = node.get(match) if isinstance(node, dict) else None
        if node is None and rest:
            raise _no_such(key, shown, [])
    if not path:
        raise InputError("give a key, e.g. network.cilium.mtu or nodePools[gpu].gpu.perNode")
    return path, shown


def _item(items: list, selector: str, key: str, shown: str) -> int:
    if selector.isdigit() and int(selector) < len(items):
        return int(selector)
    for i, item in enumerate(items):
        if isinstance(item, dict) and any(item.get(k) == selector for k in _SELECTORS):
            return i
    names = [str(item.get(k)) for item in items if isinstance(item, dict) for k in _SELECTORS if k in item]
    raise _no_such(key, f"{shown}[{selector}]", names)


def _no_such(key: str, where: str, known: list, word: str = "") -> InputError:
    close = difflib.get_close_matches(word, [str(k) for k in known], n=1) if word else []
    hint = f"did you mean {close[0]!r}?" if close else (f"known here: {', '.join(map(str, known))}" if known else "")
    return InputError(f"no key {key!r} in the input (stopped at {where or 'the top level'!r})", hint=hint)
