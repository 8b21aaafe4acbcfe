"""A fabric network's ``exclude`` that is not inside its ``range``.

Rationale: nv-ipam skips the excluded addresses when it hands out the range's addresses: an
exclude outside the range keeps nothing out, so the addresses it was meant to reserve (a gateway,
the nodes' own fabric addresses) stay in the range and go to pods; and nv-ipam's own validation
refuses an IPPool whose exclusions leave its subnet (Mellanox/nvidia-k8s-ipam
``api/v1alpha1/validate_exclusions.go``).

Fix: exclude only addresses of the range, or widen the range.

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
        fabric: {type: infiniband, nics: 8, network: {master: ib0, range: 172.30.0.0/16, exclude: [172.30.0.0/24]}}
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
        fabric: {type: infiniband, nics: 8, network: {master: ib0, range: 172.30.0.0/16, exclude: [172.31.0.0/24]}}
    workloads:
      - {namespace: training, type: training, podSecurity: baseline-ipc-lock}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator import addresses
from generator.errors import InputError
from generator.inputs.consistency.in314_fabric_range_invalid import valid_ranges
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN315", "fabric-exclude-outside-range", "error", "A fabric network excludes addresses outside its range", __doc__
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for _, _, network, base, rng in valid_ranges(spec):
        for j, cidr in enumerate(network.get("exclude", [])):
            excluded = addresses.parse_cidr(cidr)
            if addresses.cidr_problems(cidr) or excluded is None:
                continue  # IN314
            if excluded.version != rng.version or not excluded.subnet_of(rng):  # type: ignore[arg-type]
                yield doc.error(
                    f"exclude {cidr!r} is not inside the range {network['range']}",
                    (*base, "exclude", j),
                    f"exclude only addresses of {network['range']}",
                    at_value=True,
                )


CHECK = InputCheck(meta=META, check=check)
