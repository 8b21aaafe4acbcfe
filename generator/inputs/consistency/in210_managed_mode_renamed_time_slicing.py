"""A time-sliced pool with ``renameByDefault`` where the platform runs the NVIDIA stack.

Rationale: GKE's time-sharing (node pool ``gpu-sharing-strategy=time-sharing``) advertises
the shared GPUs as ``nvidia.com/gpu`` (GKE docs, "Share GPUs with multiple workloads using GPU
time-sharing"); the upstream plugin's ``nvidia.com/gpu.shared`` would exist on no node.

Fix: set ``timeSlicing.renameByDefault: false``.

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
        gpu: {vendor: nvidia, model: L4, perNode: 4, nodes: 2, timeSlicing: {replicas: 2}}

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
      - name: l4
        nodeSelector: {cloud.google.com/gke-nodepool: l4}
        gpu: {vendor: nvidia, model: L4, perNode: 4, nodes: 2, timeSlicing: {replicas: 2, renameByDefault: true}}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.advertised import platform_nvidia_pools
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN210",
    "managed-mode-renamed-time-slicing",
    "error",
    "timeSlicing.renameByDefault on a managed NVIDIA stack",
    __doc__,
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, pool in platform_nvidia_pools(spec, facts):
        if pool["gpu"].get("timeSlicing", {}).get("renameByDefault"):
            yield doc.error(
                f"pool {pool['name']}: {spec['provider']} advertises time-shared GPUs as nvidia.com/gpu, "
                "not nvidia.com/gpu.shared",
                ("nodePools", i, "gpu", "timeSlicing", "renameByDefault"),
                "set timeSlicing.renameByDefault: false",
                at_value=True,
            )


CHECK = InputCheck(meta=META, check=check)
