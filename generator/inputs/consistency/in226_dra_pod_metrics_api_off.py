"""``gpu.nvidia.draPodMetrics`` on a cluster whose API server does not serve ``resource.k8s.io/v1beta1``.

Rationale: the pinned dcgm-exporter reads ResourceSlices at ``resource.k8s.io/v1beta1`` to
label DRA GPUs' metrics with their pods; that version is off by default from Kubernetes 1.34
(a beta API since 1.24 is served only when ``--runtime-config`` turns it on:
``generator/kube/runtimeconfig.py``), so unless the input's ``apiServer.runtimeConfig`` lists
it, the exporter waits for the API for ever and serves no metrics at all.

Fix: once the API server runs with the flag, add ``apiServer: {runtimeConfig:
[resource.k8s.io/v1beta1]}``; else remove ``draPodMetrics``.

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.34"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    apiServer: {runtimeConfig: [resource.k8s.io/v1beta1]}
    gpu: {nvidia: {draPodMetrics: true}}
    nodePools:
      - name: b200
        nodeSelector: {agentpool: b200}
        gpu: {vendor: nvidia, model: B200, perNode: 8, nodes: 2, allocation: dra}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.34"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    gpu: {nvidia: {draPodMetrics: true}}
    nodePools:
      - name: b200
        nodeSelector: {agentpool: b200}
        gpu: {vendor: nvidia, model: B200, perNode: 8, nodes: 2, allocation: dra}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.advertised import dra_pools
from generator.inputs.protocol import InputCheck
from generator.kube import runtimeconfig
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN226",
    "dra-pod-metrics-api-off",
    "error",
    "draPodMetrics needs an API version the API server does not serve",
    __doc__,
)

# The pinned dcgm-exporter reads ResourceSlices at resource.k8s.io/v1beta1 to label DRA GPUs'
# metrics with their pods (the key's description in schemas/cluster.schema.json); that version
# is off by default (runtimeconfig), so the API server must turn it on.
_EXPORTER_API = "resource.k8s.io/v1beta1"


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    nvidia = spec["gpu"].get("nvidia", {})
    served = spec.get("apiServer", {}).get("runtimeConfig", [])
    if not nvidia.get("draPodMetrics") or not dra_pools(spec) or _EXPORTER_API in served:
        return
    minor = int(spec["kubernetesVersion"].split(".")[1])
    if not runtimeconfig.off_by_default(_EXPORTER_API, "ResourceSlice", (1, minor)):
        return
    yield doc.error(
        f"gpu.nvidia.draPodMetrics needs the API server to serve {_EXPORTER_API}, which Kubernetes "
        f"{spec['kubernetesVersion']} serves only with {runtimeconfig.flag(_EXPORTER_API)}, and "
        "apiServer.runtimeConfig does not list it: the exporter would wait for that API and serve no metrics at all",
        ("gpu", "nvidia", "draPodMetrics"),
        f"once the API server runs with the flag, add `apiServer: {{runtimeConfig: [{_EXPORTER_API}]}}`; "
        "else remove draPodMetrics",
    )


CHECK = InputCheck(meta=META, check=check)
