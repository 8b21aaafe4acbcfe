"""A ``fabric.network`` on a pool whose fabric has no network device to attach.

Rationale: the secondary network is a NetworkAttachmentDefinition made from a NIC's netdev:
IPoIB on InfiniBand, Macvlan on RoCE (NVIDIA Network Operator's ``secondaryNetwork``). An EFA
device has no netdev: NCCL reaches it through libfabric (the aws-ofi-nccl plug-in), without an
interface in the pod, so a network on it would attach nothing.

Fix: remove ``fabric.network`` from the pool (EFA needs none).

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: h100
        nodeSelector: {agentpool: h100}
        gpu: {vendor: nvidia, model: H100, perNode: 8, nodes: 2}
        fabric: {type: infiniband, nics: 8, network: {master: ib0, range: 192.168.64.0/18}}
    workloads:
      - {namespace: training, type: training, podSecurity: baseline-ipc-lock}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: eks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: h100
        nodeSelector: {node.kubernetes.io/instance-type: p5.48xlarge}
        gpu: {vendor: nvidia, model: H100-80GB, perNode: 8, nodes: 2}
        hugepages: {2Mi: 5120}
        fabric: {type: efa, nics: 32, network: {master: eth1, range: 172.30.0.0/16}}
    workloads:
      - {namespace: training, type: training, podSecurity: baseline-ipc-lock}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN313",
    "fabric-network-without-netdev",
    "error",
    "A fabric network on a fabric whose NICs have no netdev (EFA)",
    __doc__,
)

NETDEV_FABRICS = ("infiniband", "roce")


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, pool in enumerate(spec["nodePools"]):
        kind = pool["fabric"]["type"]
        if pool["fabric"].get("network") is not None and kind not in NETDEV_FABRICS:
            yield doc.error(
                f"node pool {pool['name']} has a fabric.network on a {kind} fabric: only InfiniBand "
                "(IPoIB) and RoCE (Macvlan) NICs have a netdev a pod's interface is made from",
                ("nodePools", i, "fabric", "network"),
                "remove fabric.network (NCCL reaches EFA through libfabric, without an interface in the pod)",
            )


CHECK = InputCheck(meta=META, check=check)
