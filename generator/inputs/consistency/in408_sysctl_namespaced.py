"""A namespaced sysctl in ``nodePools[].sysctls``.

Rationale: namespaced sysctls (``net.ipv4.*``, most of ``net.*``, ``kernel.shm*``,
``kernel.msg*``, ``kernel.sem``, ``fs.mqueue.*``: Kubernetes docs, "Using sysctls in a
Kubernetes Cluster") exist once per network or IPC namespace. Set on the node they change only
the host's namespace, never a pod's; pods get them through ``securityContext.sysctls``.
``net.core.rmem_max`` and the other node-wide ``net.*`` keys are fine here.

Fix: set it in the pod's ``securityContext.sysctls`` (unsafe ones also need the kubelet's
``--allowed-unsafe-sysctls``); ``nodePools[].sysctls`` is for node-level keys.

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: gpu
        nodeSelector: {agentpool: gpu}
        sysctls: {net.core.rmem_max: "67108864"}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: gpu
        nodeSelector: {agentpool: gpu}
        sysctls: {net.ipv4.tcp_rmem: "4096 87380 67108864"}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.protocol import InputCheck
from generator.inputs.tuning import is_namespaced
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta("IN408", "sysctl-namespaced", "error", "A namespaced sysctl set on the node", __doc__)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, pool in enumerate(spec["nodePools"]):
        for key in pool["sysctls"]:
            if is_namespaced(key):
                yield doc.error(
                    f"{key} is a namespaced sysctl: set on the node it changes only the host's namespace, "
                    "not the pods'",
                    ("nodePools", i, "sysctls", key),
                    "set it in the pod's securityContext.sysctls (unsafe ones also need the kubelet's "
                    "--allowed-unsafe-sysctls); nodePools[].sysctls is for node-level keys",
                )


CHECK = InputCheck(meta=META, check=check)
