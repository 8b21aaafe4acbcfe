"""Node pools: unique names, and storage classes that do not clash."""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.repeats import repeats
from generator.yamlio.positions import Located


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    pools = spec["nodePools"]
    for i, first, name in repeats((i, pool["name"]) for i, pool in enumerate(pools)):
        yield doc.error(
            f"node pool name {name!r} is used twice (first at nodePools[{first}])",
            ("nodePools", i, "name"),
            "pool names must be unique: they name the objects rendered for each pool",
            at_value=True,
        )
    classes = ((i, pool["localNvme"]["storageClass"]) for i, pool in enumerate(pools) if pool.get("localNvme"))
    for i, first, cls in repeats(classes):
        yield doc.error(
            f"StorageClass {cls!r} is used twice (first by nodePools[{first}])",
            ("nodePools", i, "localNvme", "storageClass"),
            "give each pool's NVMe disks their own storageClass name",
            at_value=True,
        )
