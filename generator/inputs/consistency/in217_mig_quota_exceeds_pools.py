"""A workload's ``quota.mig`` larger than the slices the ``mixed`` MIG pools advertise.

Rationale: under ``mig.strategy: mixed`` the device plugin advertises each profile as
``nvidia.com/mig-<profile>``: per node the layout's count × ``perNode`` GPUs, over ``nodes``
nodes. A quota above that admits pods that stay Pending; a profile no mixed pool has is quota'd
for nothing (``single`` pools advertise their slices as ``nvidia.com/gpu``; ``dra`` pools
publish them in ResourceSlices). Not checked while a pool's MIG layout is itself wrong (IN211,
IN212).

Fix: lower the quota, or add the profile to a mixed pool's ``mig.profiles``.

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
          mig: {strategy: mixed, profiles: {1g.10gb: 7}}
    workloads:
      - {namespace: notebooks, type: training, quota: {mig: {1g.10gb: 112}}}

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
          mig: {strategy: mixed, profiles: {1g.10gb: 7}}
    workloads:
      - {namespace: notebooks, type: training, quota: {mig: {1g.10gb: 113}}}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.consistency import in211_time_slicing_unavailable, in212_mig_layout_invalid
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN217", "mig-quota-exceeds-pools", "error", "A workload's MIG quota is more than the mixed pools have", __doc__
)


def _layouts_valid(spec: dict, doc: Located, facts: dict) -> bool:
    """Against a broken layout, a MIG quota error would only repeat the layout's error (IN211, IN212)."""
    return not any(
        True
        for check in (in211_time_slicing_unavailable, in212_mig_layout_invalid)
        for _ in check.check(spec, doc, facts)
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


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    if not _layouts_valid(spec, doc, facts):
        return
    capacity = mixed_capacity(spec)
    for i, workload in enumerate(spec["workloads"]):
        if workload.get("gpuVendor") != "nvidia":
            continue  # IN216's
        for name, count in workload["quota"].get("mig", {}).items():
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


CHECK = InputCheck(meta=META, check=check)
