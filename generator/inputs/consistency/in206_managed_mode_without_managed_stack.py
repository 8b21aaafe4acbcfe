"""``gpu.nvidia.mode: managed`` on a provider that does not run the NVIDIA driver and device plugin.

Rationale: ``managed`` renders no NVIDIA node software: it leaves the driver and the device
plugin to the platform. Only providers with a ``managedNvidiaStack`` (docs/providers.md: GKE)
run them; elsewhere no node would advertise ``nvidia.com/gpu``.

Fix: use ``gpu.nvidia.mode: operator`` (or ``device-plugin`` where the node image ships the
driver).

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    gpu: {nvidia: {mode: operator}}
    nodePools:
      - name: h100
        nodeSelector: {agentpool: h100}
        gpu: {vendor: nvidia, model: H100, perNode: 8, nodes: 2}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    gpu: {nvidia: {mode: managed}}
    nodePools:
      - name: h100
        nodeSelector: {agentpool: h100}
        gpu: {vendor: nvidia, model: H100, perNode: 8, nodes: 2}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.advertised import nvidia_pools
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN206",
    "managed-mode-without-managed-stack",
    "error",
    "gpu.nvidia.mode managed on a provider that runs no NVIDIA stack",
    __doc__,
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    if spec["gpu"]["nvidia"]["mode"] == "managed" and not facts["managedNvidiaStack"] and nvidia_pools(spec):
        yield doc.error(
            f"gpu.nvidia.mode managed leaves the NVIDIA driver and device plugin to the platform, and "
            f"{spec['provider']} runs neither",
            ("gpu", "nvidia", "mode"),
            "use gpu.nvidia.mode: operator (or device-plugin where the node image ships the driver)",
            at_value=True,
        )


CHECK = InputCheck(meta=META, check=check)
