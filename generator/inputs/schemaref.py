"""Local ``$ref`` following in the input schema, for the readers of its structure (defaults,
merge keys, docs): one small module below ``load`` and ``merge``, so that neither imports the
other."""

from __future__ import annotations


def resolve_ref(root: dict, node: dict) -> dict:
    """Follow a local ``$ref`` (``#/$defs/name``), keeping the referring node's description."""
    ref = node.get("$ref")
    if not ref or not ref.startswith("#/"):
        return node
    target = root
    for part in ref.removeprefix("#/").split("/"):
        target = target[part]
    if "description" not in node:
        return target
    return {**target, "description": node["description"]}
