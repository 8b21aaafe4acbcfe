"""``gpu.nvidia.mode: device-plugin`` on a provider that runs its own NVIDIA driver and device plugin.

Rationale: GKE installs the driver and runs its own device plugin on GPU node pools
(``managedNvidiaStack`` in docs/providers.md; GKE docs, "Run GPUs in GKE Standard node pools").
The upstream plugin beside it would advertise ``nvidia.com/gpu`` a second time, and its pods'
``runtimeClassName: nvidia`` has no handler in GKE's containerd.

Fix: set ``gpu.nvidia.mode: managed`` and create the GPU node pools with
``--accelerator type=<gpu>,count=<n>,gpu-driver-version=default`` (docs/gpu.md, GKE).

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
    kubernetesVersion: "1.33"
    provider: gke
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    gpu: {nvidia: {mode: device-plugin}}
    monitoring: {dcgmExporter: false}
    nodePools:
      - name: l4
        nodeSelector: {cloud.google.com/gke-nodepool: l4}
        gpu: {vendor: nvidia, model: L4, perNode: 4, nodes: 2}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.advertised import nvidia_pools
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN205",
    "device-plugin-on-managed-stack",
    "error",
    "gpu.nvidia.mode device-plugin where the platform runs its own",
    __doc__,
)

MANAGED = (
    "create the GPU node pools with --accelerator type=<gpu>,count=<n>,gpu-driver-version=default (or latest), "
    "time-sharing with gpu-sharing-strategy=time-sharing,max-shared-clients-per-gpu=<replicas> (docs/gpu.md, GKE)"
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    if facts["managedNvidiaStack"] and spec["gpu"]["nvidia"]["mode"] == "device-plugin" and nvidia_pools(spec):
        provider = spec["provider"]
        yield doc.error(
            f"gpu.nvidia.mode device-plugin does not fit {provider}'s managed GPU stack: {provider} installs the "
            "driver and runs its own device plugin on GPU node pools, so the upstream plugin would advertise "
            "nvidia.com/gpu a second time, and runtimeClassName: nvidia has no handler in its containerd",
            ("gpu", "nvidia", "mode"),
            f"set gpu.nvidia.mode: managed and {MANAGED}",
            at_value=True,
        )


CHECK = InputCheck(meta=META, check=check)
