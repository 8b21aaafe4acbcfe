"""A pool with ``mig.strategy: mixed`` where the platform runs the NVIDIA stack.

Rationale: GKE partitions GPUs by the node pool's ``gpu-partition-size`` and advertises each
MIG instance as ``nvidia.com/gpu``, one per instance (GKE docs, "Running multi-instance
GPUs"): no ``nvidia.com/mig-*`` resource would exist for pods or quotas to name.

Fix: use ``mig.strategy: single`` with the one profile the node pool's ``gpu-partition-size``
names.

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: gke
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    gpu: {nvidia: {mode: managed}}
    monitoring: {dcgmExporter: false}
    nodePools:
      - name: a100
        nodeSelector: {cloud.google.com/gke-nodepool: a100}
        gpu:
          vendor: nvidia
          model: A100-40GB
          perNode: 8
          nodes: 1
          mig: {strategy: single, profiles: {1g.5gb: 7}}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: gke
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    gpu: {nvidia: {mode: managed}}
    monitoring: {dcgmExporter: false}
    nodePools:
      - name: a100
        nodeSelector: {cloud.google.com/gke-nodepool: a100}
        gpu:
          vendor: nvidia
          model: A100-40GB
          perNode: 8
          nodes: 1
          mig: {strategy: mixed, profiles: {1g.5gb: 7}}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.advertised import platform_nvidia_pools
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta("IN208", "managed-mode-mixed-mig", "error", "mig.strategy mixed on a managed NVIDIA stack", __doc__)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, pool in platform_nvidia_pools(spec, facts):
        if pool["gpu"]["mig"]["strategy"] == "mixed":
            yield doc.error(
                f"pool {pool['name']} uses mig.strategy mixed, and {spec['provider']} advertises the MIG instances "
                "it makes (node pool gpu-partition-size) as nvidia.com/gpu, one per instance: no nvidia.com/mig-* "
                "resource would exist",
                ("nodePools", i, "gpu", "mig", "strategy"),
                "use mig.strategy: single with the one profile the node pool's gpu-partition-size names",
                at_value=True,
            )


CHECK = InputCheck(meta=META, check=check)
