"""Karpenter-provisioned pools (``nodePools[].provisioning``): what the provider's Karpenter can
launch for the pool. These checks have no ID yet.

The NodePool is rendered from the pool itself (``components/node-provisioning.libsonnet``), so
these checks keep the pool definition one that Karpenter launches as written:

- every instance type and family is in the provider table, with the pool's ``gpu.model`` and
  ``gpu.perNode`` (a family must have a size that carries them);
- capacity types, image families and pinned versions the provider's node class takes;
- the NVIDIA driver branch a pinned EKS AMI ships (the table's ``imageDrivers``) against
  ``gpu.nvidia.driver.minVersion``: an older branch is an error, the same branch a warning
  (the patch release is the one the AMI build found); other images are not known.

They judge the pools IN416 and IN417 pass (``provisioned``). The other provisioning checks
have IDs: a maintenance window that never closes (IN418), a MIG ``mixed`` pool (IN419), the
GPU Operator's driver on EKS (IN420), the node class (IN421-IN423), the pool's taints
(IN424-IN426) and ``nodeSelector`` (IN427-IN429), ``workloads[].doNotDisrupt`` before
Kubernetes 1.36 (IN415).
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


def _check_image(spec: dict, pool: dict, karpenter: dict, base: tuple, doc: Located) -> Iterator[InputError]:
    image = pool["provisioning"]["image"]
    where = base + ("image",)
    if image["family"] not in karpenter["imageFamilies"]:
        yield doc.error(
            f"image family {image['family']!r} is not one the provider's node class takes",
            where + ("family",),
            "use one of: " + ", ".join(karpenter["imageFamilies"]),
            at_value=True,
        )
        return
    version = image["version"]
    if version == "latest":
        return
    if not karpenter["imagePinning"]:
        yield doc.error(
            f"{karpenter['nodeClass']['kind']} cannot pin an image version: nodes always get the newest image of the family",
            where + ("version",),
            "set image.version: latest, and pace image rolls with disruption.maxNodes and disruption.window",
            at_value=True,
        )
        return
    semantic = version.count(".") == 2
    if semantic != (image["family"] == "bottlerocket"):
        yield doc.error(
            f"image version {version!r} is not a {image['family']} release",
            where + ("version",),
            "al2023 releases are vYYYYMMDD (awslabs/amazon-eks-ami tags), bottlerocket releases vX.Y.Z",
            at_value=True,
        )
        return
    if pool["gpu"]["vendor"] == "nvidia":
        yield from _check_driver(spec, image, karpenter, where, doc)


def _check_driver(spec: dict, image: dict, karpenter: dict, where: tuple, doc: Located) -> Iterator[InputError]:
    releases = karpenter["imageDrivers"].get(image["family"], [])
    entry = next((r for r in releases if r["since"] <= image["version"]), None)
    if entry is None:
        return  # a release the table does not know: docs/node-platform.md says how to check it
    branch = entry["nvidia"].get(spec["kubernetesVersion"], entry["nvidia"]["default"])
    wanted = spec["gpu"]["nvidia"]["driver"]["minVersion"]
    major = wanted.split(".")[0]
    alias = f"{image['family']}@{image['version']}"
    if int(major) > int(branch):
        yield doc.error(
            f"{alias} ships the NVIDIA {branch} driver branch on Kubernetes {spec['kubernetesVersion']}, "
            f"older than gpu.nvidia.driver.minVersion {wanted}: the validation DaemonSet would fail every node",
            where + ("version",),
            "pin a newer release (`aws ssm get-parameters-by-path` lists them, docs/node-platform.md), or lower minVersion",
            at_value=True,
        )
    elif major == branch:
        yield doc.warning(
            f"{alias} ships an NVIDIA {branch}.x driver; whether it is at least gpu.nvidia.driver.minVersion {wanted} "
            "depends on the patch release the AMI was built with",
            where + ("version",),
            "check the release's notes (awslabs/amazon-eks-ami releases) or a node's nvidia-smi; the validation "
            "DaemonSet fails a node with an older driver",
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
        yield from _check_image(spec, pool, karpenter, base, doc)
