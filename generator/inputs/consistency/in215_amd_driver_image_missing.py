"""The AMD GPU Operator builds the driver, but ``gpu.amd.driverImage`` says nowhere to push it.

Rationale: with ``driverManaged`` the AMD GPU Operator builds the amdgpu driver image in the
cluster and pushes it to the DeviceConfig's ``spec.driver.image``; without one it falls back to
the CRD default ``image-registry:5000/...``, OpenShift's internal registry (AMD GPU Operator,
DeviceConfig CRD). Other clusters have no such registry (``internalImageRegistry`` in
docs/providers.md): the build never lands and no node gets a driver.

Fix: set ``gpu.amd.driverImage`` to a registry repository without tag (e.g.
``registry.example.com/gpu/amdgpu-driver``) and ``gpu.amd.imageRegistrySecret`` to a push/pull
secret, or ``driverManaged: false`` when the node image ships amdgpu.

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: generic
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    network: {cilium: {enabled: false}}
    gpu: {amd: {mode: operator, driverManaged: false}}
    nodePools:
      - name: mi300x
        nodeSelector: {pool: mi300x}
        gpu: {vendor: amd, model: MI300X, perNode: 8, nodes: 1}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: generic
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    network: {cilium: {enabled: false}}
    gpu: {amd: {mode: operator, driverManaged: true}}
    nodePools:
      - name: mi300x
        nodeSelector: {pool: mi300x}
        gpu: {vendor: amd, model: MI300X, perNode: 8, nodes: 1}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN215", "amd-driver-image-missing", "error", "A managed AMD driver without gpu.amd.driverImage", __doc__
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    amd = spec["gpu"]["amd"]
    has_pools = any(p.get("gpu", {}).get("vendor") == "amd" for p in spec["nodePools"])
    if (
        amd["mode"] != "operator"
        or not amd["driverManaged"]
        or not has_pools
        or "driverImage" in amd
        or facts["internalImageRegistry"]
    ):
        return
    yield doc.error(
        "the AMD GPU Operator installs the driver (gpu.amd.driverManaged) but gpu.amd.driverImage "
        "is not set: the build would be pushed to the CRD default image-registry:5000, which exists "
        "only on OpenShift",
        ("gpu", "amd", "driverManaged"),  # the `amd:` key when driverManaged is defaulted
        "set gpu.amd.driverImage to a registry repository without tag (e.g. "
        "registry.example.com/gpu/amdgpu-driver) and gpu.amd.imageRegistrySecret to a push/pull "
        "secret, or driverManaged: false when the node image ships amdgpu",
        at_value=True,
    )


CHECK = InputCheck(meta=META, check=check)
