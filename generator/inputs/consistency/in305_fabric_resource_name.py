"""A ``fabric.resourceName`` that the fabric's device plugin never advertises.

Rationale: the EFA device plugin advertises only ``vpc.amazonaws.com/efa`` (aws-efa-k8s-device-plugin);
the RDMA shared device plugin advertises its resources under its default prefix ``rdma/``
(Mellanox/k8s-rdma-shared-dev-plugin, ``resourcePrefix``). Pods requesting any other name stay
Pending.

Fix: remove ``fabric.resourceName`` for the default (``vpc.amazonaws.com/efa``, ``rdma/ib``,
``rdma/roce``), or name it ``rdma/<name>``.

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
        fabric: {type: infiniband, nics: 8, resourceName: rdma/ndr}

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
        fabric: {type: infiniband, nics: 8, resourceName: nvidia.com/ib}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.conventions import FABRIC_RESOURCES
from generator.inputs.fabrics import offered_fabrics
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN305", "fabric-resource-name", "error", "A fabric resourceName its device plugin does not advertise", __doc__
)


RDMA_PREFIX = "rdma/"


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, pool in offered_fabrics(spec, facts):
        fabric = pool["fabric"]
        name = fabric["resourceName"]
        at = ("nodePools", i, "fabric", "resourceName")
        if fabric["type"] == "efa" and name != FABRIC_RESOURCES["efa"]:
            yield doc.error(
                f"resourceName {name!r}: the EFA device plugin advertises only {FABRIC_RESOURCES['efa']}",
                at,
                "remove fabric.resourceName (it defaults to vpc.amazonaws.com/efa)",
                at_value=True,
            )
        elif fabric["type"] != "efa" and not name.startswith(RDMA_PREFIX):
            yield doc.error(
                f"resourceName {name!r}: the RDMA shared device plugin advertises its resources under {RDMA_PREFIX}",
                at,
                f"name it {RDMA_PREFIX}<name>, e.g. {FABRIC_RESOURCES[fabric['type']]}",
                at_value=True,
            )


CHECK = InputCheck(meta=META, check=check)
