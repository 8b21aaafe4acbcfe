"""The component registry, ``libsonnet/registry.json``: read by Jsonnet and by Python alike.

It names every component and the layer it renders into; ``main.libsonnet`` asserts that its
components are exactly these, so a component cannot be added in one place and forgotten in
the other. A layer with ``"wait": false`` is applied but never waited on by the GitOps engine,
and no layer depends on it (``gitops.libsonnet``). A layer's ``"dependsOn"`` names the earlier,
waited-on layers it needs; without it, a layer depends on every earlier waited-on layer.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator.library import tables


@dataclass(frozen=True)
class Component:
    name: str
    layer: str
    description: str


@dataclass(frozen=True)
class Registry:
    layers: tuple[str, ...]
    components: tuple[Component, ...]
    own_layer: str | None = None  # where components an overrides.libsonnet adds are laid out


SHAPE = "{layers: [{name, description, wait?, dependsOn?}], components: [{name, layer, description}], ownLayer?}"


def load(library: Path) -> Registry:
    """Read the registry (once per version of the file); a malformed one, in a customised
    library, is an input error."""
    return tables.load(library / "registry.json", _registry, "component registry", SHAPE)


def _registry(data: Any) -> Registry:
    layers = tuple(layer["name"] for layer in data["layers"])
    if not all(isinstance(layer.get("wait", True), bool) for layer in data["layers"]):
        raise TypeError("a layer's wait must be true or false")
    for i, layer in enumerate(data["layers"]):
        earlier = {e["name"] for e in data["layers"][:i] if e.get("wait", True)}
        needs = layer.get("dependsOn", [])
        if not isinstance(needs, list) or not set(needs) <= earlier:
            raise ValueError(f"layer {layer['name']}: dependsOn must list earlier waited-on layers")
    components = tuple(Component(c["name"], c["layer"], c["description"]) for c in data["components"])
    own_layer = data.get("ownLayer")
    unknown = [c.name for c in components if c.layer not in layers]
    if own_layer is not None and own_layer not in layers:
        unknown.append(f"(ownLayer) {own_layer}")
    if unknown:
        raise ValueError(f"components in unknown layers: {', '.join(unknown)}")
    return Registry(layers, components, own_layer)
