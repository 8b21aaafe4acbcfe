"""``loadBalancer.dsrDispatch`` is set while ``loadBalancer.mode`` is ``snat``.

Rationale: the dispatch (``opt``, ``ipip``, ``geneve``) says how DSR carries the client's address to the
backend; with SNAT there is no DSR, and the setting would suggest a mode the cluster does not
run.

Fix: drop ``dsrDispatch``, or set ``loadBalancer.mode: dsr``.

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: generic
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    network:
      cilium:
        k8sServiceHost: api.example.com
        routing: {mode: native, ipv4NativeRoutingCIDR: 10.244.0.0/16}
        ipam: {podCIDRs: [10.244.0.0/16]}
        loadBalancer: {mode: dsr, dsrDispatch: opt}
    nodePools:
      - name: system
        nodeSelector: {agentpool: system}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: generic
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    network:
      cilium:
        k8sServiceHost: api.example.com
        routing: {mode: native, ipv4NativeRoutingCIDR: 10.244.0.0/16}
        ipam: {podCIDRs: [10.244.0.0/16]}
        loadBalancer: {mode: snat, dsrDispatch: opt}
    nodePools:
      - name: system
        nodeSelector: {agentpool: system}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs import cilium
from generator.inputs.cilium import BASE
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta("IN339", "cilium-dsr-dispatch-without-dsr", "error", "loadBalancer.dsrDispatch without DSR", __doc__)


def find(spec: dict, doc: Located, facts: dict, c: dict) -> Iterator[InputError]:
    lb = c["loadBalancer"]
    if "dsrDispatch" in lb and lb["mode"] not in ("dsr", "hybrid"):
        yield doc.error(
            f"loadBalancer.dsrDispatch only applies to DSR, not to mode {lb['mode']}",
            BASE + ("loadBalancer", "dsrDispatch"),
            "drop dsrDispatch, or set loadBalancer.mode: dsr",
            at_value=True,
        )


CHECK = InputCheck(meta=META, check=cilium.configured(find))
