"""A pool's MIG settings that no GPU of its model can run.

Rationale: NVIDIA's MIG manager (mig-parted) applies the layout ``mig.profiles`` names to each
GPU of the pool; a layout the model cannot run leaves the node in a failed state
(``nvidia.com/mig.config.state=failed``) and its GPUs unadvertised. The profiles of each model,
their counts and the memory slices they take are NVIDIA's ("MIG User Guide", supported
profiles; ``generator/inputs/mig.py``). One rule with several findings: profiles without a
strategy (MIG stays off), MIG on AMD GPUs, MIG without a model or on a model without MIG, a
strategy without profiles, an unknown profile (with the likely one), more of a profile than
fit, several profiles under ``single`` (which advertises every slice as ``nvidia.com/gpu``), more
compute slices than the GPU has, and memory slices that overlap.

Fix: use the profiles and counts of the pool's model (``nvidia-smi mig -lgip`` lists them), one
profile per GPU with ``strategy: single``, or ``mig.strategy: none``.

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: a100
        nodeSelector: {agentpool: a100}
        gpu:
          vendor: nvidia
          model: A100-80GB
          perNode: 8
          nodes: 2
          mig: {strategy: mixed, profiles: {3g.40gb: 1, 2g.20gb: 1, 1g.10gb: 2}}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: a100
        nodeSelector: {agentpool: a100}
        gpu:
          vendor: nvidia
          model: A100-80GB
          perNode: 8
          nodes: 2
          mig: {strategy: mixed, profiles: {3g.40gb: 2, 2g.20gb: 1}}
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs import mig
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta("IN212", "mig-layout-invalid", "error", "A pool's MIG layout does not exist on its GPU model", __doc__)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, pool in enumerate(spec["nodePools"]):
        if "gpu" in pool:
            yield from _check_pool(pool["gpu"], ("nodePools", i, "gpu"), doc)


def _check_pool(gpu: dict, at: tuple, doc: Located) -> Iterator[InputError]:
    strategy = gpu["mig"]["strategy"]
    profiles = gpu["mig"]["profiles"]
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


CHECK = InputCheck(meta=META, check=check)
