"""The GPU Operator upgrades the driver automatically while DRA pools sit beside device-plugin pools.

Rationale: each node's driver upgrade waits in ``validation-required`` for the operator's
validator pod on the node to be Ready, 600 s, then marks the node ``upgrade-failed`` and leaves
it cordoned (NVIDIA/k8s-operator-libs pkg/upgrade/validation_manager.go). While any pool keeps
the operator's device plugin, the validator's plugin check waits for ``nvidia.com/gpu`` in the
node's allocatable (gpu-operator cmd/nvidia-validator ``validateGPUResource``), which a DRA node
never advertises: every driver upgrade would fail on every DRA node.

Fix: set ``gpu.nvidia.driver.upgradePolicy.autoUpgrade: false`` and roll a new driver node by
node by deleting the node's driver pod (the driver DaemonSet is OnDelete); or move every
NVIDIA pool to ``allocation: dra``; or keep the two kinds of pools in separate clusters.

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.34"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    gpu: {nvidia: {mode: operator, driver: {managed: true, upgradePolicy: {autoUpgrade: false}}}}
    nodePools:
      - name: h100
        nodeSelector: {agentpool: h100}
        gpu: {vendor: nvidia, model: H100, perNode: 8, nodes: 2, allocation: dra}
      - name: l40s
        nodeSelector: {agentpool: l40s}
        gpu: {vendor: nvidia, model: L40S, perNode: 4, nodes: 2}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.34"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    gpu: {nvidia: {mode: operator, driver: {managed: true, upgradePolicy: {autoUpgrade: true}}}}
    nodePools:
      - name: h100
        nodeSelector: {agentpool: h100}
        gpu: {vendor: nvidia, model: H100, perNode: 8, nodes: 2, allocation: dra}
      - name: l40s
        nodeSelector: {agentpool: l40s}
        gpu: {vendor: nvidia, model: L40S, perNode: 4, nodes: 2}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.advertised import is_dra
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN218",
    "dra-driver-auto-upgrade",
    "error",
    "The GPU Operator's driver auto-upgrade with DRA pools beside device-plugin pools",
    __doc__,
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    nvidia = spec["gpu"]["nvidia"]
    driver = nvidia["driver"]
    if nvidia["mode"] != "operator" or not driver["managed"] or not driver["upgradePolicy"]["autoUpgrade"]:
        return
    gpus = [p for p in spec["nodePools"] if "gpu" in p and p["gpu"]["vendor"] == "nvidia"]
    dra = sorted(p["name"] for p in gpus if is_dra(p["gpu"]))
    plugin_pools = [p["name"] for p in gpus if not is_dra(p["gpu"])]
    if not dra or not plugin_pools:
        return
    yield doc.error(
        f"the GPU Operator's automatic driver upgrade waits on each node for its validator, whose device plugin "
        f"check never passes on the DRA pools ({', '.join(dra)}) while {', '.join(plugin_pools)} keep "
        "the operator's device plugin on: each upgrade would hold every DRA node cordoned 600 s and mark it "
        "upgrade-failed",
        ("gpu", "nvidia", "driver", "upgradePolicy", "autoUpgrade"),
        "set gpu.nvidia.driver.upgradePolicy.autoUpgrade: false and roll a new driver version node by node by "
        "deleting the node's driver pod (the driver DaemonSet is OnDelete); or move every NVIDIA pool to "
        "allocation: dra (the validator then has no plugin check); or keep the two kinds of pools in separate "
        "clusters",
        at_value=True,
    )


CHECK = InputCheck(meta=META, check=check)
