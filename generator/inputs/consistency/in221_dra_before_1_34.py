"""``allocation: dra`` on a cluster older than Kubernetes 1.34.

Rationale: ``resource.k8s.io/v1`` is GA and served by default from Kubernetes 1.34 (KEP-4381);
the chart nvidia-dra-driver-gpu 25.12.0 installs from 1.32 (its Chart.yaml ``kubeVersion``), but
before 1.34 only the beta versions exist, which are off unless the API server enables them, and
the rendered ResourceClaimTemplates and DeviceClasses are ``resource.k8s.io/v1``.

Fix: upgrade the cluster and set ``kubernetesVersion: "1.34"``, or keep
``allocation: device-plugin``.

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.34"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: h100
        nodeSelector: {agentpool: h100}
        gpu: {vendor: nvidia, model: H100, perNode: 8, nodes: 2, allocation: dra}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: h100
        nodeSelector: {agentpool: h100}
        gpu: {vendor: nvidia, model: H100, perNode: 8, nodes: 2, allocation: dra}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.advertised import is_dra
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta("IN221", "dra-before-1-34", "error", "allocation dra on a Kubernetes version before 1.34", __doc__)

# resource.k8s.io/v1 is GA and served by default from Kubernetes 1.34 (KEP-4381); the chart
# nvidia-dra-driver-gpu 25.12.0 itself has kubeVersion >=1.32.0-0 (Chart.yaml), but before 1.34 only
# the beta versions exist, which are off unless the API server enables them.
DRA_MIN_MINOR = 34


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    version = spec["kubernetesVersion"]
    if int(version.split(".")[1]) >= DRA_MIN_MINOR:
        return
    for i, pool in enumerate(spec["nodePools"]):
        gpu = pool.get("gpu")
        if gpu and is_dra(gpu) and gpu["vendor"] == "nvidia":
            yield doc.error(
                f"allocation: dra needs Kubernetes 1.{DRA_MIN_MINOR} or newer (resource.k8s.io/v1, served by default "
                f"from 1.{DRA_MIN_MINOR}); this cluster is {version}",
                ("nodePools", i, "gpu", "allocation"),
                f'upgrade the cluster and set kubernetesVersion: "1.{DRA_MIN_MINOR}", or keep allocation: '
                "device-plugin (the chart itself installs from 1.32, where only the beta APIs exist and are off "
                "by default)",
                at_value=True,
            )


CHECK = InputCheck(meta=META, check=check)
