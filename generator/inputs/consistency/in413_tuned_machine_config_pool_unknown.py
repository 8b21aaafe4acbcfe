"""Huge pages reserved through TuneD in a MachineConfigPool that is neither built in nor listed.

Rationale: only the ``master`` and ``worker`` MachineConfigPools are built in; any other must
be created by the cluster's administrators. A Tuned whose ``machineConfigLabels`` match no
MachineConfigPool applies to no node, silently (OpenShift docs, "Using the Node Tuning
Operator"), so a pool of another role must be listed in ``tuning.machineConfigPools``, which
says it exists.

Fix: create the MachineConfigPool (``machineConfigSelector``: role in ``[worker, <role>]``,
``nodeSelector``: ``node-role.kubernetes.io/<role>``) and add it to
``tuning.machineConfigPools``.

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.30"
    provider: openshift
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    network: {cilium: {enabled: false}}
    tuning: {backend: tuned, machineConfigPools: [worker-gpu]}
    nodePools:
      - name: workers
        nodeSelector: {node-role.kubernetes.io/worker-gpu: ""}
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
        nodeSelector: {node-role.kubernetes.io/worker-gpu: ""}
        hugepages: {2Mi: 1024}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.protocol import InputCheck
from generator.inputs.tuning import BUILTIN_MACHINE_CONFIG_POOLS, MCP_ROLE_PREFIX, mcp_roles, tuned_reserves_hugepages
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN413",
    "tuned-machine-config-pool-unknown",
    "error",
    "TuneD huge pages through a MachineConfigPool that may not exist",
    __doc__,
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    known = BUILTIN_MACHINE_CONFIG_POOLS | set(spec["tuning"]["machineConfigPools"])
    for i, pool in enumerate(spec["nodePools"]):
        roles = mcp_roles(pool)
        if tuned_reserves_hugepages(spec, pool) and roles and roles[0] not in known:
            yield doc.error(
                f"nodePools[{i}] reserves huge pages through the MachineConfigPool {roles[0]!r}, which is "
                "neither built in (master, worker) nor listed in tuning.machineConfigPools: if it does not "
                "exist the Tuned profile applies to no node",
                ("nodePools", i, "nodeSelector", MCP_ROLE_PREFIX + roles[0]),
                f"create the MachineConfigPool {roles[0]} (machineConfigSelector: role in [worker, {roles[0]}], "
                f"nodeSelector: node-role.kubernetes.io/{roles[0]}) and add it to tuning.machineConfigPools",
            )


CHECK = InputCheck(meta=META, check=check)
