"""Local ``$ref`` following in the input schema, for the readers of its structure (defaults,
merge keys, docs): one small module below ``load`` and ``merge``, so that neither imports the
other."""

from __future__ import annotations

# Each reference is followed once: the schema is shared and its readers never change it
# (``load.load_schema``), and the defaults and the merge follow the same references for every
# cluster of a fleet. The root and node are kept, so their ids are not reused. Bounded: emptied
# when full.
_FOLLOWED: dict[tuple[int, int], tuple[dict, dict, dict]] = {}
_FOLLOWED_MAX = 4096


def resolve_ref(root: dict, node: dict) -> dict:
    """Follow a local ``$ref`` (``#/$defs/name``), keeping the referring node's description."""
    ref = node.get("$ref")
    if not ref or not ref.startswith("#/"):
        return node
    known = _FOLLOWED.get((id(root), id(node)))
    if known is not None and known[0] is root and known[1] is node:
        return known[2]
    target = root
    for part in ref.removeprefix("#/").split("/"):
        target = target[part]
    if "description" in node:
        target = {**target, "description": node["description"]}
    if len(_FOLLOWED) >= _FOLLOWED_MAX:
        _FOLLOWED.clear()
    _FOLLOWED[(id(root), id(node))] = (root, node, target)
    return target
