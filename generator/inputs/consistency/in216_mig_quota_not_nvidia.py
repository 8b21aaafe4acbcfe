"""A workload with ``quota.mig`` whose GPU vendor is not NVIDIA.

Rationale: MIG slices are NVIDIA resources (``nvidia.com/mig-<profile>``, advertised by the
device plugin under ``mig.strategy: mixed``); the workload's ``gpuVendor`` says which vendor's
resources its quota counts, and a MIG quota for an AMD namespace, or one without a vendor,
quotas nothing it can use. Not checked while a pool's MIG layout is itself wrong (IN211,
IN212): the finding would only repeat it.

Fix: set ``gpuVendor: nvidia``, or remove ``quota.mig``.

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
      - {namespace: notebooks, type: training, gpuVendor: nvidia, quota: {mig: {1g.10gb: 16}}}

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
      - {namespace: notebooks, type: training, gpuVendor: amd, quota: {mig: {1g.10gb: 16}}}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.consistency import in211_time_slicing_unavailable, in212_mig_layout_invalid
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN216", "mig-quota-not-nvidia", "error", "A MIG quota in a workload whose GPU vendor is not NVIDIA", __doc__
)


def _layouts_valid(spec: dict, doc: Located, facts: dict) -> bool:
    """Against a broken layout, a MIG quota error would only repeat the layout's error (IN211, IN212)."""
    return not any(
        True
        for check in (in211_time_slicing_unavailable, in212_mig_layout_invalid)
        for _ in check.check(spec, doc, facts)
    )


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    if not _layouts_valid(spec, doc, facts):
        return
    for i, workload in enumerate(spec["workloads"]):
        if workload["quota"].get("mig") and workload.get("gpuVendor") != "nvidia":
            yield doc.error(
                f"workloads[{i}] ({workload['namespace']}) has a MIG quota but its GPU vendor is "
                f"{workload.get('gpuVendor', 'not set')}",
                ("workloads", i, "quota", "mig"),
                "MIG slices are NVIDIA resources: set gpuVendor: nvidia or remove quota.mig",
            )


CHECK = InputCheck(meta=META, check=check)
