"""A pool with an EFA fabric names an instance type that has no Elastic Fabric Adapter.

Rationale: only some EC2 instance types have EFA (``fabrics.efaInstanceTypes`` in
docs/providers.md, after the EFA device plugin chart's own list); on the others the device
plugin finds no interface and pods requesting ``vpc.amazonaws.com/efa`` stay Pending. The
instance types are read from ``provisioning.instanceTypes`` and the pool's
``node.kubernetes.io/instance-type`` selector.

Fix: use an instance type with EFA, or set ``fabric.type: none``.

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
        nodeSelector: {node.kubernetes.io/instance-type: g6.48xlarge}
        gpu: {vendor: nvidia, model: H100-80GB, perNode: 8, nodes: 2}
        hugepages: {2Mi: 5120}
        fabric: {type: efa}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.fabrics import instance_types, offered_fabrics
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta("IN307", "efa-instance-type", "error", "An EFA pool on an instance type without EFA", __doc__)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    table = facts["fabrics"]["efaInstanceTypes"]
    known = ", ".join(sorted(table))
    for i, pool in offered_fabrics(spec, facts):
        if pool["fabric"]["type"] != "efa":
            continue
        for name, where in instance_types(pool):
            if name not in table:
                yield doc.error(
                    f"instance type {name!r} has no Elastic Fabric Adapter, but node pool {pool['name']} has an efa "
                    "fabric",
                    ("nodePools", i, *where),
                    f"use an instance type with EFA ({known}), or set fabric.type: none",
                    at_value=True,
                )


CHECK = InputCheck(meta=META, check=check)
