"""1Gi huge pages asked for at runtime from the DaemonSet tuning backend.

Rationale: a 1Gi page needs 1 GiB of physically contiguous free memory; on a node that has run
for a while there rarely is, so a runtime reservation (``nr_hugepages`` written by the
DaemonSet) comes up short (kernel Documentation/admin-guide/mm/hugetlbpage.rst: "1GB pages ...
must be allocated at boot"). They must be reserved at boot: on the kernel command line by the
node image (``bootReserved``: the DaemonSet only checks them) or through TuneD's
``[bootloader]`` (``tuning.backend: tuned``).

Fix: use ``tuning.backend: tuned``, or put the pages on the node image's kernel command line
and set ``hugepages.bootReserved: true``.

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
        hugepages: {1Gi: 16, bootReserved: true}

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
        hugepages: {1Gi: 16}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN411", "runtime-1gi-hugepages", "error", "1Gi huge pages at runtime with the DaemonSet tuning backend", __doc__
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    if spec["tuning"]["backend"] != "daemonset":
        return
    for i, pool in enumerate(spec["nodePools"]):
        pages = pool.get("hugepages")
        if pages and pages["1Gi"] and not pages["bootReserved"]:
            yield doc.error(
                f"nodePools[{i}] asks for {pages['1Gi']} 1Gi huge pages at runtime: the DaemonSet backend cannot "
                "reserve them reliably (1 GiB of contiguous memory per page is rarely free after boot)",
                ("nodePools", i, "hugepages", "1Gi"),
                "reserve them at boot: use tuning.backend: tuned (TuneD [bootloader] hugepagesz=1G hugepages=N), "
                "or put them on the node image's kernel command line and set hugepages.bootReserved: true "
                "(then they are only checked)",
                at_value=True,
            )


CHECK = InputCheck(meta=META, check=check)
