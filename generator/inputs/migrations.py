"""Every key removed or renamed in the input since the first release, and how ``migrate``
rewrites it: the one registry ``migrate`` applies, the schema errors word their hint from, and
docs/upgrading-gpu-gitops.md lists.

A migration acts on each mapping at ``where`` (``nodePools[].localNvme``: the ``localNvme`` of
every pool) that holds ``key``, in place (ruamel's round-trip mappings keep the key order and
comments of the rest), and says what it changed; a value it cannot carry over is a
``Stuck`` with the reason and what to write instead.

May import: nothing of generator but the contract.
"""

from __future__ import annotations

import json
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass

from generator.inputs.contract import CURRENT, OLDER


class Stuck(Exception):
    """A value a migration cannot carry over by itself: ``hint`` says what to write."""

    def __init__(self, message: str, hint: str):
        super().__init__(message)
        self.hint = hint


@dataclass(frozen=True)
class Context:
    """What a migration may need beyond the file: the default ``localNvme.diskIdPattern`` of
    each provider of the clusters that use the file (None: the provider has none)."""

    disk_id_defaults: dict[str, str | None]


@dataclass(frozen=True)
class Migration:
    to: str  # the version that made the change
    where: str  # the mappings it acts on, `a.b[].c`
    key: str  # the key removed or renamed there
    summary: str  # what changed and why, for the docs
    hint: str  # what to write instead, for the schema error of the old key
    apply: Callable[[MutableMapping, Context], str]  # rewrites one mapping, returns what it did


_BY_ID = "/dev/disk/by-id/"


def _device_pattern(nvme: MutableMapping, context: Context) -> str:
    """``devicePattern`` (a /dev glob) → ``diskIdPattern`` (a /dev/disk/by-id glob)."""
    old = nvme["devicePattern"]
    if "diskIdPattern" in nvme:
        del nvme["devicePattern"]
        return f"removed devicePattern {old!r}: diskIdPattern is set"
    rest = old[len(_BY_ID) :] if isinstance(old, str) and old.startswith(_BY_ID) else None
    if rest and "/" not in rest:
        rest = type(old)(rest)  # quoted as the old value was (ruamel's scalar strings are str)
        keys = list(nvme)
        position = keys.index("devicePattern")
        del nvme["devicePattern"]
        insert = getattr(nvme, "insert", None)
        if insert is not None:  # a round-trip mapping: the new key where the old one was
            insert(position, "diskIdPattern", rest)
        else:
            nvme["diskIdPattern"] = rest
        return f"devicePattern {old!r} → diskIdPattern {rest!r} (the same disks)"
    defaults = context.disk_id_defaults
    if defaults and all(defaults.values()):
        del nvme["devicePattern"]
        chosen = ", ".join(f"{p}: {d!r}" for p, d in sorted(defaults.items()))
        return (
            f"removed devicePattern {old!r}: diskIdPattern defaults to the provider's local NVMe model ({chosen}); "
            "kernel names also matched remote NVMe disks (EBS)"
        )
    providers = ", ".join(sorted(p for p, d in defaults.items() if not d)) or "unknown"
    raise Stuck(
        f"localNvme.devicePattern {old!r} cannot be carried over: kernel names do not say which disk is local, "
        f"and the provider ({providers}) has no default diskIdPattern",
        "replace it by `diskIdPattern: <glob of the disks' names under /dev/disk/by-id>` (`ls /dev/disk/by-id` on a "
        "node; e.g. 'nvme-SAMSUNG_MZ*'), then run migrate again",
    )


def _gpu_limits(admission: MutableMapping, _context: Context) -> str:
    """``admission.enforceGpuLimits`` removed: the rule it switched never fired."""
    old = admission["enforceGpuLimits"]
    del admission["enforceGpuLimits"]
    return (
        f"removed enforceGpuLimits {json.dumps(old)}: the API server itself refuses a GPU request without a limit "
        "or unequal to it, before admission policies run"
    )


MIGRATIONS = (
    Migration(
        to=CURRENT,
        where="nodePools[].localNvme",
        key="devicePattern",
        summary=(
            "`localNvme.devicePattern` (a `/dev` glob of kernel names, e.g. `/dev/nvme[0-7]n1`) is replaced by "
            "`diskIdPattern`, a glob of the disks' names under `/dev/disk/by-id`, which carry the disk model: "
            "kernel names cannot tell local disks from remote ones (EBS volumes are NVMe too, on Nitro). "
            "`migrate` turns a `/dev/disk/by-id/<glob>` pattern into `<glob>`, drops the key where the "
            "provider has a default (eks `nvme-Amazon_EC2_NVMe_Instance_Storage_*`, aks "
            "`nvme-Microsoft_NVMe_Direct_Disk_*`), and otherwise stops and asks for the pattern"
        ),
        hint=(
            "replace it with `diskIdPattern`, a glob of the disks' /dev/disk/by-id names, which carry the model "
            "(eks and aks have a default): kernel names (/dev/nvmeXnY) cannot tell local disks from remote ones"
        ),
        apply=_device_pattern,
    ),
    Migration(
        to=CURRENT,
        where="admission",
        key="enforceGpuLimits",
        summary=(
            "`admission.enforceGpuLimits` is removed: a GPU requested without a limit, or with a request other than "
            "its limit, is refused by the API server's own validation before any admission policy runs "
            "(kubernetes/kubernetes `pkg/apis/core/validation/validation.go`, `ValidateResourceRequirements`: "
            '"Limit must be set for non overcommitable resources"), so the policy rule it switched never fired; '
            "`migrate` removes the key (docs/gpu.md)"
        ),
        hint="remove it: the API server already refuses GPU requests without an equal limit (docs/gpu.md)",
        apply=_gpu_limits,
    ),
)

assert all(m.to == CURRENT or m.to in OLDER for m in MIGRATIONS)

# (the mapping a removed key sat in, the key) → the hint of its schema error
REMOVED = {
    (m.where.rsplit(".", 1)[-1].removesuffix("[]"), m.key): f"{m.hint}; `gpu-gitops migrate` rewrites it"
    for m in MIGRATIONS
}


def mappings(data: object, where: str) -> list[tuple[str, MutableMapping]]:
    """The mappings at ``where`` in ``data``, each with its path as shown (``nodePools[1].localNvme``)."""
    found: list[tuple[str, object]] = [("", data)]
    for part in where.split("."):
        name, many = part.removesuffix("[]"), part.endswith("[]")
        step: list[tuple[str, object]] = []
        for shown, node in found:
            value = node.get(name) if isinstance(node, MutableMapping) else None
            here = f"{shown}.{name}" if shown else name
            if many and isinstance(value, list):
                step.extend((f"{here}[{i}]", item) for i, item in enumerate(value))
            elif not many and value is not None:
                step.append((here, value))
        found = step
    return [(shown, node) for shown, node in found if isinstance(node, MutableMapping)]
