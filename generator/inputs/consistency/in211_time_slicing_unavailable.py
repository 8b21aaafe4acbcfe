"""``timeSlicing`` where it cannot work: on AMD GPUs, or in a pool that uses MIG.

Rationale: time-slicing is a feature of NVIDIA's device plugin (k8s-device-plugin, "Shared
Access to GPUs"); the ROCm device plugin does not time-slice. NVIDIA's plugin time-slices whole
GPUs: with a MIG strategy the pool's GPUs are advertised as MIG slices, and the two sharing
modes cannot be combined in one pool.

Fix: remove ``timeSlicing`` (AMD), or choose one: remove ``timeSlicing`` or set
``mig.strategy: none``.

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
          timeSlicing: {replicas: 4}

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
          timeSlicing: {replicas: 4}
          mig: {strategy: single, profiles: {1g.10gb: 7}}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta("IN211", "time-slicing-unavailable", "error", "Time-slicing on AMD GPUs, or with MIG", __doc__)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, pool in enumerate(spec["nodePools"]):
        gpu = pool.get("gpu")
        if not gpu or "timeSlicing" not in gpu:
            continue
        at = ("nodePools", i, "gpu", "timeSlicing")
        if gpu["vendor"] != "nvidia":
            yield doc.error(
                "time-slicing is not available for AMD GPUs",
                at,
                "remove timeSlicing: the ROCm device plugin does not time-slice",
            )
        elif gpu["mig"]["strategy"] != "none":
            yield doc.error(
                "time-slicing cannot be combined with MIG in one pool",
                at,
                "time-slicing shares whole GPUs: remove timeSlicing or set mig.strategy: none",
            )


CHECK = InputCheck(meta=META, check=check)
