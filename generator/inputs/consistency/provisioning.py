"""Karpenter-provisioned pools (``nodePools[].provisioning``): what the provider's Karpenter can
launch for the pool. These checks have no ID yet.

The NodePool is rendered from the pool itself (``components/node-provisioning.libsonnet``), so
these checks keep the pool definition one that Karpenter launches as written:

- every instance type and family is in the provider table, with the pool's ``gpu.model`` and
  ``gpu.perNode`` (a family must have a size that carries them);
- capacity types the provider's Karpenter launches.

They judge the pools IN416 and IN417 pass (``provisioned``). The other provisioning checks
have IDs: a maintenance window that never closes (IN418), a MIG ``mixed`` pool (IN419), the
GPU Operator's driver on EKS (IN420), the node class (IN421-IN423), the pool's taints
(IN424-IN426) and ``nodeSelector`` (IN427-IN429), the node image and its NVIDIA driver
(IN430-IN434), ``workloads[].doNotDisrupt`` before Kubernetes 1.36 (IN415).
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.consistency.in416_provisioning_without_karpenter import provisioned
from generator.yamlio.positions import Located


def _types_of(karpenter: dict, family: str) -> dict[str, dict]:
    prefix = family + karpenter["familySeparator"]
    return {name: t for name, t in karpenter["instanceTypes"].items() if name.startswith(prefix)}


def _known_for(karpenter: dict, gpu: dict) -> str:
    names = [n for n, t in karpenter["instanceTypes"].items() if t["gpuModel"] == gpu.get("model")]
    fitting = [n for n in names if karpenter["instanceTypes"][n]["gpus"] == gpu["perNode"]]
    if fitting:
        return "the provider table knows these with " + f"{gpu['perNode']} x {gpu.get('model')}: " + ", ".join(fitting)
    if names:
        return f"the provider table knows these with {gpu.get('model')}: " + ", ".join(names)
    return "the provider table knows no instance type with GPU model " + repr(gpu.get("model"))


def _check_instances(gpu: dict, prov: dict, karpenter: dict, base: tuple, doc: Located) -> Iterator[InputError]:
    if "instanceTypes" not in prov and "instanceFamilies" not in prov:
        yield doc.error(
            "provisioning names no instanceTypes or instanceFamilies: Karpenter would launch any instance type "
            "that fits a pending pod, GPU or not",
            base,
            _known_for(karpenter, gpu),
        )
    for j, name in enumerate(prov.get("instanceTypes", [])):
        known = karpenter["instanceTypes"].get(name)
        where = base + ("instanceTypes", j)
        if known is None:
            yield doc.error(
                f"unknown instance type {name!r}: not in the provider table",
                where,
                _known_for(karpenter, gpu),
                at_value=True,
            )
        elif known["gpuModel"] != gpu.get("model") or known["gpus"] != gpu["perNode"]:
            yield doc.error(
                f"instance type {name!r} has {known['gpus']} x {known['gpuModel']}, but the pool declares "
                f"{gpu['perNode']} x {gpu.get('model')}",
                where,
                _known_for(karpenter, gpu),
                at_value=True,
            )
    families = prov.get("instanceFamilies", [])
    if families and karpenter["familyLabel"] is None:
        yield doc.error(
            "instanceFamilies is not supported on this provider",
            base + ("instanceFamilies",),
            "list instanceTypes instead",
        )
        return
    for j, family in enumerate(families):
        sizes = _types_of(karpenter, family)
        where = base + ("instanceFamilies", j)
        if not sizes:
            yield doc.error(
                f"unknown instance family {family!r}: not in the provider table",
                where,
                _known_for(karpenter, gpu),
                at_value=True,
            )
        elif not any(t["gpuModel"] == gpu.get("model") and t["gpus"] == gpu["perNode"] for t in sizes.values()):
            model = next(iter(sizes.values()))["gpuModel"]
            yield doc.error(
                f"instance family {family!r} has no size with {gpu['perNode']} x {gpu.get('model')} (it carries {model}, "
                f"{sorted({t['gpus'] for t in sizes.values()})} per instance)",
                where,
                _known_for(karpenter, gpu),
                at_value=True,
            )


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for _, pool, karpenter, base in provisioned(spec, facts):
        prov = pool["provisioning"]
        yield from _check_instances(pool["gpu"], prov, karpenter, base, doc)
        for j, capacity in enumerate(prov["capacityTypes"]):
            if capacity not in karpenter["capacityTypes"]:
                yield doc.error(
                    f"capacity type {capacity!r} is not one the provider's Karpenter launches",
                    base + ("capacityTypes", j),
                    "use one of: " + ", ".join(karpenter["capacityTypes"]),
                    at_value=True,
                )
