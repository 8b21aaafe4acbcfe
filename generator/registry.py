"""The component registry, ``libsonnet/registry.json``: read by Jsonnet and by Python alike.

It names every component and the layer it renders into; ``main.libsonnet`` asserts that its
components are exactly these, so a component cannot be added in one place and forgotten in
the other.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Component:
    name: str
    layer: str
    description: str


@dataclass(frozen=True)
class Registry:
    layers: tuple[str, ...]
    components: tuple[Component, ...]

    def layer_of(self, component: str) -> str:
        for c in self.components:
            if c.name == component:
                return c.layer
        raise KeyError(component)


def load(library: Path) -> Registry:
    data = json.loads((library / "registry.json").read_text())
    layers = tuple(layer["name"] for layer in data["layers"])
    components = tuple(Component(c["name"], c["layer"], c["description"]) for c in data["components"])
    unknown = [c.name for c in components if c.layer not in layers]
    if unknown:
        raise ValueError(f"registry.json: components in unknown layers: {unknown}")
    return Registry(layers, components)
