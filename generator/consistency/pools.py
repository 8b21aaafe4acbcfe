"""Node pools: unique names, and storage classes that do not clash."""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.yamlpos import Located


def check(spec: dict, doc: Located) -> Iterator[InputError]:
    seen: dict[str, int] = {}
    classes: dict[str, int] = {}
    for i, pool in enumerate(spec["nodePools"]):
        name = pool["name"]
        if name in seen:
            yield doc.error(
                f"node pool name {name!r} is used twice (first at nodePools[{seen[name]}])",
                ("nodePools", i, "name"),
                "pool names must be unique: they name the objects rendered for each pool",
                at_value=True,
            )
        seen.setdefault(name, i)
        nvme = pool.get("localNvme")
        if nvme:
            cls = nvme["storageClass"]
            if cls in classes:
                yield doc.error(
                    f"StorageClass {cls!r} is used twice (first by nodePools[{classes[cls]}])",
                    ("nodePools", i, "localNvme", "storageClass"),
                    "give each pool's NVMe disks their own storageClass name",
                    at_value=True,
                )
            classes.setdefault(cls, i)
