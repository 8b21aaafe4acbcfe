"""``fabric.nics`` of an EFA pool differs from the EFA interface count of its instance type.

Rationale: Karpenter attaches every EFA interface the instance type has
(aws/karpenter-provider-aws pkg/providers/launchtemplate, ``efaCount`` from the instance type's
``vpc.amazonaws.com/efa``) and the device plugin advertises each; the table records the counts
it knows (``fabrics.efaInstanceTypes``). A different ``nics`` makes quotas and the NCCL test
count the wrong number.

Fix: set ``fabric.nics`` to the instance type's count the message gives.

PASS:

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
        fabric: {type: efa, nics: 32}

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
        fabric: {type: efa, nics: 8}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.fabrics import instance_types, offered_fabrics
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN308", "efa-nics-mismatch", "error", "fabric.nics differs from the instance type's EFA interfaces", __doc__
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    table = facts["fabrics"]["efaInstanceTypes"]
    for i, pool in offered_fabrics(spec, facts):
        fabric = pool["fabric"]
        if fabric["type"] != "efa" or "nics" not in fabric:
            continue
        for name, _where in instance_types(pool):
            if table.get(name) is not None and fabric["nics"] != table[name]:
                yield doc.error(
                    f"fabric.nics is {fabric['nics']}, but {name} has {table[name]} EFA interfaces, all of which "
                    "Karpenter attaches and the device plugin advertises",
                    ("nodePools", i, "fabric", "nics"),
                    f"set fabric.nics: {table[name]}",
                    at_value=True,
                )


CHECK = InputCheck(meta=META, check=check)
