"""A pool with ``allocation: dra`` where the platform's device plugin already advertises its GPUs.

Rationale: with ``gpu.nvidia.mode: managed`` GKE's device plugin advertises the pool's GPUs as
``nvidia.com/gpu``; the NVIDIA DRA driver beside it would publish the same GPUs in
ResourceSlices and hand them out a second time.

Fix: drop ``allocation: dra`` (GKE's device plugin advertises ``nvidia.com/gpu``).

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
      - name: l4
        nodeSelector: {cloud.google.com/gke-nodepool: l4}
        gpu: {vendor: nvidia, model: L4, perNode: 4, nodes: 2}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.34"
    provider: gke
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    gpu: {nvidia: {mode: managed}}
    monitoring: {dcgmExporter: false}
    nodePools:
      - name: l4
        nodeSelector: {cloud.google.com/gke-nodepool: l4}
        gpu: {vendor: nvidia, model: L4, perNode: 4, nodes: 2, allocation: dra}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.advertised import is_dra, platform_nvidia_pools
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta("IN209", "managed-mode-dra", "error", "allocation dra on a managed NVIDIA stack", __doc__)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, pool in platform_nvidia_pools(spec, facts):
        if is_dra(pool["gpu"]):
            yield doc.error(
                f"pool {pool['name']} has allocation: dra, and with gpu.nvidia.mode managed {spec['provider']}'s "
                "device plugin already advertises its GPUs: the NVIDIA DRA driver beside it would hand out the same "
                "GPUs again",
                ("nodePools", i, "gpu", "allocation"),
                "drop allocation: dra (GKE's device plugin advertises nvidia.com/gpu)",
                at_value=True,
            )


CHECK = InputCheck(meta=META, check=check)
