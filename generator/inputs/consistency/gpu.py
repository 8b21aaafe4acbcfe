"""GPU pools: MIG layouts that exist on the declared model, sharing modes that can coexist,
MIG quotas the pools can honour, and admission policies the cluster version can serve."""

from __future__ import annotations

import difflib
from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs import mig
from generator.yamlio.positions import Located

# ValidatingAdmissionPolicy admissionregistration.k8s.io/v1 is GA (served) from Kubernetes 1.30.
VAP_MIN_MINOR = 30


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    layouts_valid = True
    for i, pool in enumerate(spec["nodePools"]):
        if "gpu" in pool:
            errors = list(_check_pool(pool["gpu"], ("nodePools", i, "gpu"), doc))
            layouts_valid &= not errors
            yield from errors
    yield from _check_operator_strategy(spec, doc)
    yield from _check_operator_config_names(spec, doc)
    yield from _check_amd_driver_image(spec, facts, doc)
    if layouts_valid:  # against a broken layout, a MIG quota error would only repeat the layout's error
        yield from _check_mig_quotas(spec, doc)
    yield from _check_admission_version(spec, doc)


def _check_pool(gpu: dict, at: tuple, doc: Located) -> Iterator[InputError]:
    strategy = gpu["mig"]["strategy"]
    profiles = gpu["mig"]["profiles"]
    if "timeSlicing" in gpu and gpu["vendor"] != "nvidia":
        yield doc.error(
            "time-slicing is not available for AMD GPUs",
            at + ("timeSlicing",),
            "remove timeSlicing: the ROCm device plugin does not time-slice",
        )
    elif "timeSlicing" in gpu and strategy != "none":
        yield doc.error(
            "time-slicing cannot be combined with MIG in one pool",
            at + ("timeSlicing",),
            "time-slicing shares whole GPUs: remove timeSlicing or set mig.strategy: none",
        )
    if strategy == "none":
        if profiles:
            yield doc.error(
                "mig.profiles are set but mig.strategy is none, so MIG stays off",
                at + ("mig", "profiles"),
                "set mig.strategy to single or mixed, or remove the profiles",
            )
        return
    if gpu["vendor"] != "nvidia":
        yield doc.error(
            "MIG is an NVIDIA feature",
            at + ("mig", "strategy"),
            "AMD GPUs are partitioned by the AMD GPU Operator; set mig.strategy: none",
            at_value=True,
        )
        return
    model_name = gpu.get("model")
    if model_name is None:
        yield doc.error(
            "MIG needs gpu.model to know which profiles exist", at, f"add model: one of {', '.join(sorted(mig.MODELS))}"
        )
        return
    model = mig.MODELS.get(model_name)
    if model is None:
        yield doc.error(
            f"GPU model {model_name!r} has no known MIG profiles",
            at + ("model",),
            f"MIG models: {', '.join(sorted(mig.MODELS))}; or set mig.strategy: none",
            at_value=True,
        )
        return
    if not profiles:
        yield doc.error(
            f"mig.strategy is {strategy} but no mig.profiles are given",
            at + ("mig",),
            f"add profiles, e.g. {next(iter(model.profiles))}: 1",
        )
        return
    bad = False
    for name, count in profiles.items():
        profile = model.profiles.get(name)
        if profile is None:
            close = _suggest(name, model)
            yield doc.error(
                f"MIG profile {name!r} does not exist on {model_name}",
                at + ("mig", "profiles", name),
                (f"did you mean {close!r}? " if close else "") + f"{model_name} profiles: {', '.join(model.profiles)}",
            )
            bad = True
        elif count > profile.max_count:
            yield doc.error(
                f"{model_name} fits at most {profile.max_count} x {name} per GPU, not {count}",
                at + ("mig", "profiles", name),
                f"lower {name} to {profile.max_count} or fewer",
                at_value=True,
            )
            bad = True
    if bad:
        return
    if strategy == "single" and len(profiles) > 1:
        yield doc.error(
            f"mig.strategy single advertises every slice as nvidia.com/gpu, so a GPU must use one "
            f"profile; got {len(profiles)} ({', '.join(profiles)})",
            at + ("mig", "profiles"),
            "keep one profile, or use mig.strategy: mixed to advertise each profile by name",
        )
        return
    compute = sum(model.profiles[n].compute * c for n, c in profiles.items())
    if compute > model.compute:
        yield doc.error(
            f"the MIG layout uses {compute} compute slices; {model_name} has {model.compute}",
            at + ("mig", "profiles"),
            f"remove slices until their 'Ng' parts add up to {model.compute} or less",
        )
    elif not mig.fits(model, profiles):
        yield doc.error(
            f"the MIG layout does not fit on one {model_name}: its memory slices overlap",
            at + ("mig", "profiles"),
            "each GPU has 8 memory slices; 3g/4g take 4, 2g and double-memory 1g take 2 at even "
            "offsets; check `nvidia-smi mig -lgipp` and drop or shrink a profile",
        )


def _suggest(name: str, model: mig.Model) -> str | None:
    """The profile of ``model`` with the same compute size (and media extensions) as ``name``.

    A wrong name is usually another model's memory size (3g.40gb on an A100-40GB), so the
    compute part is kept and the closest memory size chosen.
    """
    compute, _, rest = name.partition(".")
    media = rest.endswith("+me")
    memory = int(rest.removesuffix("+me").removesuffix("gb"))
    same = [p for p in model.profiles if p.startswith(compute + ".") and p.endswith("+me") == media]
    if same:
        return min(same, key=lambda p: abs(int(p.partition(".")[2].removesuffix("+me").removesuffix("gb")) - memory))
    close = difflib.get_close_matches(name, list(model.profiles), n=1)
    return close[0] if close else None


def _check_operator_strategy(spec: dict, doc: Located) -> Iterator[InputError]:
    """The GPU Operator has one cluster-wide mig.strategy."""
    if spec["gpu"]["nvidia"]["mode"] != "operator":
        return
    first = None
    for i, pool in enumerate(spec["nodePools"]):
        gpu = pool.get("gpu")
        if not gpu or gpu["vendor"] != "nvidia" or gpu["mig"]["strategy"] == "none":
            continue
        if first is None:
            first = (pool["name"], gpu["mig"]["strategy"])
        elif gpu["mig"]["strategy"] != first[1]:
            yield doc.error(
                f"pool {pool['name']!r} uses mig.strategy {gpu['mig']['strategy']} but pool "
                f"{first[0]!r} uses {first[1]}: the GPU Operator has one strategy per cluster",
                ("nodePools", i, "gpu", "mig", "strategy"),
                "use the same strategy in every MIG pool, or gpu.nvidia.mode: device-plugin "
                "(one device plugin per pool)",
                at_value=True,
            )


# Config names the GPU Operator values use for nodes no pool claims: the device plugin's
# `default` entry and mig-parted's `all-disabled` layout (nvidia-gpu-operator.libsonnet).
RESERVED_CONFIG_NAMES = ("default", "all-disabled")


def _check_operator_config_names(spec: dict, doc: Located) -> Iterator[InputError]:
    """In operator mode a pool's configs are keyed by its name, next to the reserved ones."""
    if spec["gpu"]["nvidia"]["mode"] != "operator":
        return
    for i, pool in enumerate(spec["nodePools"]):
        if pool.get("gpu", {}).get("vendor") == "nvidia" and pool["name"] in RESERVED_CONFIG_NAMES:
            yield doc.error(
                f"NVIDIA pool name {pool['name']!r} is also the GPU Operator's config for unlabelled "
                "nodes: the pool's device plugin config or MIG layout would replace it",
                ("nodePools", i, "name"),
                "rename the pool (its configs and node labels use "
                f"its name; {' and '.join(RESERVED_CONFIG_NAMES)} are taken)",
                at_value=True,
            )


def _check_amd_driver_image(spec: dict, facts: dict, doc: Located) -> Iterator[InputError]:
    """A managed AMD driver is built in the cluster and pushed to ``driverImage``.

    Without it the DeviceConfig falls back to the CRD default ``image-registry:5000/...``, the
    OpenShift internal registry, which other clusters do not have: the build never lands.
    """
    amd = spec["gpu"]["amd"]
    has_pools = any(p.get("gpu", {}).get("vendor") == "amd" for p in spec["nodePools"])
    if (
        amd["mode"] != "operator"
        or not amd["driverManaged"]
        or not has_pools
        or "driverImage" in amd
        or facts["internalImageRegistry"]
    ):
        return
    yield doc.error(
        "the AMD GPU Operator installs the driver (gpu.amd.driverManaged) but gpu.amd.driverImage "
        "is not set: the build would be pushed to the CRD default image-registry:5000, which exists "
        "only on OpenShift",
        ("gpu", "amd", "driverManaged"),  # the `amd:` key when driverManaged is defaulted
        "set gpu.amd.driverImage to a registry repository without tag (e.g. "
        "registry.example.com/gpu/amdgpu-driver) and gpu.amd.imageRegistrySecret to a push/pull "
        "secret, or driverManaged: false when the node image ships amdgpu",
        at_value=True,
    )


def mixed_capacity(spec: dict) -> dict[str, int]:
    """Slices per MIG profile that the ``mixed`` device-plugin pools advertise at their largest size
    (a ``dra`` pool publishes its MIG devices in ResourceSlices instead)."""
    capacity: dict[str, int] = {}
    for pool in spec["nodePools"]:
        gpu = pool.get("gpu")
        if gpu and gpu["vendor"] == "nvidia" and gpu["mig"]["strategy"] == "mixed" and gpu.get("allocation") != "dra":
            for name, count in gpu["mig"]["profiles"].items():
                capacity[name] = capacity.get(name, 0) + count * gpu["perNode"] * gpu["nodes"]
    return capacity


def _check_mig_quotas(spec: dict, doc: Located) -> Iterator[InputError]:
    capacity = mixed_capacity(spec)
    for i, workload in enumerate(spec["workloads"]):
        quota = workload["quota"].get("mig", {})
        if quota and workload.get("gpuVendor") != "nvidia":
            yield doc.error(
                f"workloads[{i}] ({workload['namespace']}) has a MIG quota but its GPU vendor is "
                f"{workload.get('gpuVendor', 'not set')}",
                ("workloads", i, "quota", "mig"),
                "MIG slices are NVIDIA resources: set gpuVendor: nvidia or remove quota.mig",
            )
            continue
        for name, count in quota.items():
            have = capacity.get(name, 0)
            if count > have:
                yield doc.error(
                    f"workloads[{i}] ({workload['namespace']}) quota asks for {count} x {name} MIG "
                    f"slices; the mig.strategy mixed pools have {have}",
                    ("workloads", i, "quota", "mig", name),
                    "lower the quota, or add the profile to a mixed pool's mig.profiles"
                    + (f" (offered: {', '.join(sorted(capacity))})" if capacity else ""),
                    at_value=True,
                )


def _check_admission_version(spec: dict, doc: Located) -> Iterator[InputError]:
    """Admission defaults to off before 1.30: only an explicit ``enabled: true`` gets here."""
    minor = int(spec["kubernetesVersion"].split(".")[1])
    if spec["admission"]["enabled"] and spec["workloads"] and minor < VAP_MIN_MINOR:
        yield doc.error(
            f"admission.enabled is true, but admission policies need Kubernetes 1.{VAP_MIN_MINOR} or newer "
            f"(ValidatingAdmissionPolicy v1); this cluster is {spec['kubernetesVersion']}",
            ("admission", "enabled"),
            f"remove admission.enabled (it defaults to off before 1.{VAP_MIN_MINOR}), or upgrade the cluster",
        )
