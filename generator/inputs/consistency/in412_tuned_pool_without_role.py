"""Huge pages reserved through TuneD on a pool whose nodeSelector names no MachineConfigPool role.

Rationale: the tuned backend reserves huge pages (2Mi too) on the kernel command line through
TuneD's ``[bootloader]``, and the Node Tuning Operator applies kernel arguments through a
MachineConfigPool, chosen by the Tuned's ``machineConfigLabels`` (OpenShift docs, "Using the
Node Tuning Operator"). The pool's MachineConfigPool is found from its
``node-role.kubernetes.io/<role>`` selector label; without one, no MachineConfigPool can be
named and the pages reach no node.

Fix: select the pool by its MachineConfigPool role, e.g. ``nodeSelector:
{node-role.kubernetes.io/worker-gpu: ""}``.

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.30"
    provider: openshift
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    network: {cilium: {enabled: false}}
    tuning: {backend: tuned}
    nodePools:
      - name: workers
        nodeSelector: {node-role.kubernetes.io/worker: ""}
        hugepages: {2Mi: 1024}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.30"
    provider: openshift
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    network: {cilium: {enabled: false}}
    tuning: {backend: tuned}
    nodePools:
      - name: workers
        nodeSelector: {gpu-pool: "a"}
        hugepages: {2Mi: 1024}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.protocol import InputCheck
from generator.inputs.tuning import mcp_roles, tuned_reserves_hugepages
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN412",
    "tuned-pool-without-role",
    "error",
    "TuneD huge pages on a pool its MachineConfigPool cannot be found for",
    __doc__,
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, pool in enumerate(spec["nodePools"]):
        if tuned_reserves_hugepages(spec, pool) and not mcp_roles(pool):
            yield doc.error(
                f"nodePools[{i}] reserves huge pages through TuneD [bootloader], which reaches nodes through "
                "their MachineConfigPool, but its nodeSelector names no node-role.kubernetes.io/<role> label",
                ("nodePools", i, "nodeSelector"),
                "select the pool by its MachineConfigPool role, e.g. nodeSelector: "
                '{node-role.kubernetes.io/worker-gpu: ""}',
            )


CHECK = InputCheck(meta=META, check=check)
