"""The GPU Operator with an unmanaged driver on node images that ship the driver and its toolkit.

Rationale: with ``gpu.nvidia.driver.managed: false`` the node image brings the driver, and on
providers whose GPU images ship it with the NVIDIA Container Toolkit (``nodeImageNvidiaToolkit``
in docs/providers.md: AKS) the operator would install its own toolkit over the image's and
rewrite its containerd configuration. Microsoft's and NVIDIA's AKS guides skip the image's
driver (node pools created with ``--gpu-driver none``) and let the operator install both.

Fix: create the GPU node pools with ``--gpu-driver none`` and set
``gpu.nvidia.driver.managed: true``, or use ``gpu.nvidia.mode: device-plugin`` with the
image's driver and toolkit.

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    gpu: {nvidia: {mode: operator, driver: {managed: true}}}
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
    gpu: {nvidia: {mode: operator, driver: {managed: false}}}
    nodePools:
      - name: h100
        nodeSelector: {agentpool: h100}
        gpu: {vendor: nvidia, model: H100, perNode: 8, nodes: 2}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN204",
    "operator-toolkit-over-node-image",
    "error",
    "The GPU Operator's toolkit over a node image that ships its own",
    __doc__,
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    nvidia = spec["gpu"]["nvidia"]
    if not facts["nodeImageNvidiaToolkit"] or nvidia["mode"] != "operator" or nvidia["driver"]["managed"]:
        return
    if not [p for p in spec["nodePools"] if p.get("gpu", {}).get("vendor") == "nvidia"]:
        return
    provider = spec["provider"]
    yield doc.error(
        f"gpu.nvidia.driver.managed is false, so {provider}'s node image brings the driver, and with it its own "
        "NVIDIA Container Toolkit: the GPU Operator would install its toolkit over the image's",
        ("gpu", "nvidia", "driver", "managed"),
        "create the GPU node pools with --gpu-driver none and set gpu.nvidia.driver.managed: true (the operator "
        f"installs driver and toolkit; provisioned pools get gpu.mode: None), or use gpu.nvidia.mode: device-plugin "
        f"with {provider}'s driver and toolkit",
        at_value=True,
    )


CHECK = InputCheck(meta=META, check=check)
