"""``loadBalancer.acceleration`` is on and ``network.cilium.devices`` is not set.

Rationale: without ``devices`` the agent attaches the XDP program to every device it detects, the GPU
nodes' RDMA NICs included, where a driver without native XDP support either refuses it or
falls back to generic XDP on the training fabric.

Fix: set ``network.cilium.devices`` to the nodes' service-facing interfaces, e.g. ``[eth0]`` or
``[bond0]``.

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: generic
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    network:
      cilium:
        k8sServiceHost: api.example.com
        loadBalancer: {acceleration: native}
        devices: [eth0]
    nodePools:
      - name: system
        nodeSelector: {agentpool: system}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: generic
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    network:
      cilium:
        k8sServiceHost: api.example.com
        loadBalancer: {acceleration: native}
    nodePools:
      - name: system
        nodeSelector: {agentpool: system}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs import cilium
from generator.inputs.cilium import BASE
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta("IN341", "cilium-xdp-without-devices", "error", "XDP acceleration without pinned devices", __doc__)


def find(spec: dict, doc: Located, facts: dict, c: dict) -> Iterator[InputError]:
    if c["loadBalancer"]["acceleration"] != "disabled" and "devices" not in c:
        yield doc.error(
            "XDP acceleration without network.cilium.devices attaches the XDP program to every detected "
            "device, the GPU nodes' RDMA NICs included",
            BASE + ("loadBalancer", "acceleration"),
            "set network.cilium.devices to the nodes' service-facing interfaces, e.g. [eth0] or [bond0]",
            at_value=True,
        )


CHECK = InputCheck(meta=META, check=cilium.configured(find))
