"""``images.digests`` keys checked against the images the components actually rendered.

A digest is applied by exact reference (k.image in libsonnet/lib/k.libsonnet), so a key with a
typo, or one left behind when a component's default tag moved, pins nothing and would pass
silently. The check runs after evaluation, on the rendered pod specs, so it follows whatever
images the components (and an overrides.libsonnet) render, wherever their versions come from.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator

from generator.errors import InputError
from generator.yamlio.positions import Located

_CONTAINER_LISTS = ("containers", "initContainers", "ephemeralContainers")
# Image references an operator's custom resource names for the pods it runs (AMD DeviceConfig
# spec.devicePlugin, amd-device-plugin.libsonnet).
_IMAGE_FIELDS = ("devicePluginImage", "nodeLabellerImage")


def rendered_images(components: dict[str, list[dict]]) -> set[str]:
    """Every container image reference in the objects, and every image an operator is told to
    run, without its ``@sha256:`` pin."""
    found: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in _CONTAINER_LISTS and isinstance(value, list):
                    found.update(
                        c["image"].split("@", 1)[0]
                        for c in value
                        if isinstance(c, dict) and isinstance(c.get("image"), str)
                    )
                if key in _IMAGE_FIELDS and isinstance(value, str):
                    found.add(value.split("@", 1)[0])
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    for objects in components.values():
        walk(objects)
    return found


def unused(spec: dict, doc: Located, components: dict[str, list[dict]]) -> Iterator[InputError]:
    """An error, located at the key, for each digest whose image no container renders."""
    images = sorted(rendered_images(components))
    for ref in spec["images"]["digests"]:
        if ref in images:
            continue
        close = difflib.get_close_matches(ref, images, n=1, cutoff=0.6)
        hint = (
            f"did you mean {close[0]!r}?"
            if close
            else "key digests by an image this cluster renders: `grep -rh 'image:' rendered/` lists them"
        )
        yield doc.error(
            f"images.digests has a digest for {ref!r}, which no rendered container uses",
            ("images", "digests", ref),
            hint,
        )


def check(spec: dict, doc: Located, components: dict[str, list[dict]]) -> None:
    """Raise the first unused digest key (in input order), so nothing is rendered with it.

    A cluster with no digest keys (most) has nothing to check: its objects are not walked."""
    if not spec["images"]["digests"]:
        return
    for error in unused(spec, doc, components):
        raise error
