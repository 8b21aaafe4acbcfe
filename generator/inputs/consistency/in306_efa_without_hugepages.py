"""A pool with an EFA fabric that reserves no 2Mi huge pages.

Rationale: libfabric's EFA provider takes its bounce buffers from 2Mi huge pages, and the EKS
guide's EFA pods request ``hugepages-2Mi`` (docs.aws.amazon.com/eks/latest/userguide/
device-management-efa.html); without them NCCL over EFA fails to register memory.

Fix: reserve them: ``nodePools[].hugepages.2Mi`` (5120 pages = 10Gi per node is the EKS guide's
figure for a pod's ``hugepages-2Mi`` request).

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
        fabric: {type: efa, nics: 32}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.fabrics import offered_fabrics
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta("IN306", "efa-without-hugepages", "error", "An EFA pool that reserves no 2Mi huge pages", __doc__)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, pool in offered_fabrics(spec, facts):
        if pool["fabric"]["type"] == "efa" and not (pool.get("hugepages") or {}).get("2Mi"):
            yield doc.error(
                f"node pool {pool['name']} has an efa fabric but reserves no 2Mi huge pages: libfabric's EFA "
                "provider takes its buffers from them, and NCCL over EFA fails to register memory without them",
                ("nodePools", i, "fabric", "type"),
                f"reserve them: nodePools[{i}].hugepages.2Mi (5120 pages = 10Gi per node is the EKS guide's "
                "figure for a pod's hugepages-2Mi request)",
                at_value=True,
            )


CHECK = InputCheck(meta=META, check=check)
