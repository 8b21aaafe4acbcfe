"""A workload allows egress to the API server, but no policy can name it.

Rationale: a Kubernetes NetworkPolicy selects destinations by pod, namespace or ``ipBlock``;
the API server is none of the first two, and a policy sees the endpoints' addresses after the
Service is translated, not the ``kubernetes`` ClusterIP (NetworkPolicy docs: "the behavior of
ipBlock for traffic to Services ... is undefined"). So ``allowEgressToApiServer`` renders an
``ipBlock`` per address of ``network.apiServerCIDRs``; Cilium alone can name the API server as
an entity (``toEntities: [kube-apiserver]``).

Fix: set ``network.apiServerCIDRs`` to the addresses of ``kubectl get endpointslices -n default
-l kubernetes.io/service-name=kubernetes``, or enable ``network.cilium``.

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    network: {apiServerCIDRs: [10.224.0.4/32]}
    nodePools:
      - name: system
        nodeSelector: {agentpool: system}
    workloads:
      - {namespace: pipelines, type: training, allowEgressToApiServer: true}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: system
        nodeSelector: {agentpool: system}
    workloads:
      - {namespace: pipelines, type: training, allowEgressToApiServer: true}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN301",
    "api-server-egress-without-cidrs",
    "error",
    "Egress to the API server without Cilium needs network.apiServerCIDRs",
    __doc__,
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    if spec["network"].get("cilium", {}).get("enabled", False) or spec["network"]["apiServerCIDRs"]:
        return
    for i, workload in enumerate(spec["workloads"]):
        if workload["allowEgressToApiServer"]:
            yield doc.error(
                f"workloads[{i}] ({workload['namespace']}) allows egress to the API server, but without Cilium a "
                "NetworkPolicy can only name its endpoints' addresses, and network.apiServerCIDRs is empty",
                ("workloads", i, "allowEgressToApiServer"),
                "set network.apiServerCIDRs to the addresses of `kubectl get endpointslices -n default -l "
                "kubernetes.io/service-name=kubernetes`, or enable network.cilium",
            )


CHECK = InputCheck(meta=META, check=check)
