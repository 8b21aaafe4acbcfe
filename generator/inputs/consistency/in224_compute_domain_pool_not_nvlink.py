"""A ComputeDomain that names a pool which is not a DRA pool with ``multiNodeNVLink``.

Rationale: a ComputeDomain hands its pods IMEX channels across the NVLink domain of the nodes
they land on (k8s-dra-driver-gpu, "ComputeDomains"); the NVIDIA DRA driver's compute-domain
plugin runs on the pools with ``allocation: dra`` and ``multiNodeNVLink: true``, and on any
other pool the domain's pods never find a channel and stay Pending.

Fix: name a Multi-Node NVLink pool, or set ``multiNodeNVLink: true`` (and ``allocation: dra``)
on the NVLink pool.

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.34"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: gb200
        nodeSelector: {agentpool: gb200}
        gpu: {vendor: nvidia, model: GB200, perNode: 4, nodes: 18, allocation: dra, multiNodeNVLink: true}
    workloads:
      - namespace: training
        type: training
        computeDomains: [{name: nvl72, pool: gb200}]

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.34"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: gb200
        nodeSelector: {agentpool: gb200}
        gpu: {vendor: nvidia, model: GB200, perNode: 4, nodes: 18, allocation: dra, multiNodeNVLink: true}
      - name: b200
        nodeSelector: {agentpool: b200}
        gpu: {vendor: nvidia, model: B200, perNode: 8, nodes: 2, allocation: dra}
    workloads:
      - namespace: training
        type: training
        computeDomains: [{name: nvl72, pool: b200}]
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.advertised import dra_pools
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN224", "compute-domain-pool-not-nvlink", "error", "A ComputeDomain on a pool without Multi-Node NVLink", __doc__
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    nvlink = sorted(n for n, p in dra_pools(spec).items() if p["gpu"]["multiNodeNVLink"])
    for i, workload in enumerate(spec["workloads"]):
        for j, domain in enumerate(workload["computeDomains"]):
            if domain["pool"] not in nvlink:
                yield doc.error(
                    f"ComputeDomain {domain['name']!r} names pool {domain['pool']!r}, which is not a dra pool with "
                    "multiNodeNVLink: true",
                    ("workloads", i, "computeDomains", j, "pool"),
                    f"Multi-Node NVLink pools: {', '.join(nvlink)}"
                    if nvlink
                    else "set multiNodeNVLink: true (and allocation: dra) on the NVLink pool",
                    at_value=True,
                )


CHECK = InputCheck(meta=META, check=check)
