"""A pool's fabric rails (``fabric.networks``) that cannot each be their own NIC's network.

Rationale: each rail is the secondary network of one of the node's fabric NICs, made from that
NIC's netdev (``master``): a pod joins every rail to reach every HCA, and on RoCE NCCL addresses
an HCA by the GID of its netdev, which the pod has only with an interface on it. Two rails on one
``master`` give the pod two interfaces on one NIC and none on another; more rails than the pool's
``nics`` name NICs the node does not have, and a pod waits in ``ContainerCreating`` while the CNI
plugin looks for the missing netdev. Two rails of one name render one object name twice
(``fabric-<pool>-<name>``). ``network`` and ``networks`` both describe the pool's network: one
or the other.

Fix: one rail per fabric NIC, each with its own ``master`` and ``name``, no more than ``nics``;
keep ``network`` (one network) or ``networks`` (one per rail), not both.

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
        fabric:
          type: infiniband
          nics: 8
          networks:
            - {master: ib0, range: 192.168.64.0/24}
            - {master: ib1, range: 192.168.65.0/24}
    workloads:
      - {namespace: training, type: training, podSecurity: baseline-ipc-lock}

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
        gpu: {vendor: nvidia, model: H100, perNode: 8, nodes: 2}
        fabric:
          type: infiniband
          nics: 8
          networks:
            - {master: ib0, range: 192.168.64.0/24}
            - {master: ib0, range: 192.168.65.0/24}
    workloads:
      - {namespace: training, type: training, podSecurity: baseline-ipc-lock}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.consistency.in313_fabric_network_without_netdev import NETDEV_FABRICS
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN319",
    "fabric-rails-invalid",
    "error",
    "A pool's fabric rails share a master or a name, outnumber its NICs, or come beside fabric.network",
    __doc__,
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, pool in enumerate(spec["nodePools"]):
        fabric = pool["fabric"]
        rails = fabric.get("networks")
        if rails is None or fabric["type"] not in NETDEV_FABRICS:
            continue  # IN313
        base = ("nodePools", i, "fabric", "networks")
        if fabric.get("network") is not None:
            yield doc.error(
                f"node pool {pool['name']} has both fabric.network and fabric.networks",
                ("nodePools", i, "fabric", "network"),
                "keep fabric.network for one network, or fabric.networks for one per rail",
            )
        nics = fabric.get("nics")
        if nics is not None and len(rails) > nics:
            yield doc.error(
                f"node pool {pool['name']} has {len(rails)} fabric rails but {nics} fabric NICs (fabric.nics): "
                "each rail is one NIC's network",
                base,
                f"at most {nics} rails, one per NIC, or the node's NIC count in fabric.nics",
            )
        for key in ("master", "name"):
            seen: dict[str, int] = {}
            for j, rail in enumerate(rails):
                first = seen.setdefault(rail[key], j)
                if first != j:
                    why = (
                        "each rail is its own NIC's netdev"
                        if key == "master"
                        else f"both would render fabric-{pool['name']}-{rail[key]}"
                    )
                    yield doc.error(
                        f"node pool {pool['name']}'s fabric rails {first} and {j} have the same {key} "
                        f"{rail[key]!r}: {why}",
                        (*base, j, key),
                        f"give each rail its own {key}",
                        at_value=True,
                    )


CHECK = InputCheck(meta=META, check=check)
