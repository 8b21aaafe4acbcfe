"""Huge pages reserved through a ``vm.nr_hugepages*`` sysctl.

Rationale: ``vm.nr_hugepages`` counts pages of the default size only (kernel
Documentation/admin-guide/mm/hugetlbpage.rst) and says nothing of which size the kubelet
should advertise; ``nodePools[].hugepages`` reserves each size (2Mi, 1Gi) the way the tuning
backend can deliver it, and the quota checks count them.

Fix: remove the sysctl and set ``nodePools[].hugepages`` (2Mi / 1Gi page counts) instead.

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
        hugepages: {2Mi: 1024}

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
        sysctls: {vm.nr_hugepages: "1024"}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.protocol import InputCheck
from generator.inputs.tuning import HUGEPAGE_KEYS, is_namespaced
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN409", "sysctl-hugepages", "error", "Huge pages set through vm.nr_hugepages instead of hugepages", __doc__
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, pool in enumerate(spec["nodePools"]):
        for key in pool["sysctls"]:
            if key in HUGEPAGE_KEYS and not is_namespaced(key):
                yield doc.error(
                    f"{key} counts huge pages of the default size only",
                    ("nodePools", i, "sysctls", key),
                    f"remove it and set nodePools[{i}].hugepages (2Mi / 1Gi page counts) instead",
                )


CHECK = InputCheck(meta=META, check=check)
