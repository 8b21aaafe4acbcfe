"""A pool's ``fabric.network`` that no workload namespace uses.

Rationale: the fabric's NetworkAttachmentDefinition renders in each namespace whose
``podSecurity`` is ``baseline-ipc-lock`` (the namespaces that run RDMA training and may lock
memory): with none, the network renders nowhere and no pod can attach it. It renders, so this
is a warning.

Fix: set ``podSecurity: baseline-ipc-lock`` on the training namespaces, or remove
``fabric.network``.

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
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: h100
        nodeSelector: {agentpool: h100}
        gpu: {vendor: nvidia, model: H100, perNode: 8, nodes: 2}
        fabric: {type: infiniband, nics: 8, network: {master: ib0, range: 192.168.64.0/18}}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.consistency.in314_fabric_range_invalid import valid_ranges
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta("IN317", "fabric-network-unused", "warning", "A fabric network no workload namespace uses", __doc__)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    if any(w["podSecurity"] == "baseline-ipc-lock" for w in spec["workloads"]):
        return
    for _, pool, _, base, _ in valid_ranges(spec):
        yield doc.warning(
            f"node pool {pool['name']} has a fabric.network, but no workload namespace uses the fabric: its "
            "NetworkAttachmentDefinition renders in each namespace with podSecurity baseline-ipc-lock",
            base,
            "set podSecurity: baseline-ipc-lock on the training namespaces, or remove fabric.network",
        )


CHECK = InputCheck(meta=META, check=check)
