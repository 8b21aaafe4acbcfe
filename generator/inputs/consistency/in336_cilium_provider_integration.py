"""A routing or IPAM setting the provider's Cilium integration does not support
(``ciliumConstraints`` in ``libsonnet/providers.json``).

Rationale: the managed clouds constrain a self-installed Cilium, and the chart enforces it: AKS "bring
your own CNI" (``aksbyocni``) needs tunnel routing over VXLAN, as the Azure network does not
route pod CIDRs; GKE needs native routing on the nodes' own pod CIDRs (the VPC alias ranges,
``ipam.mode: kubernetes``) (cilium/cilium#29674, #36226). Each constraint names its source in
``providers.json``.

Fix: follow the message's hint for the provider; for what the integration does not offer, use
the provider's managed Cilium and ``network.cilium.enabled: false``.

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    network:
      cilium:
        k8sServiceHost: api.example.com
        routing: {mode: tunnel, tunnelProtocol: vxlan}
    nodePools:
      - name: system
        nodeSelector: {agentpool: system}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    network:
      cilium:
        k8sServiceHost: api.example.com
        routing: {mode: tunnel, tunnelProtocol: geneve}
    nodePools:
      - name: system
        nodeSelector: {agentpool: system}
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from generator.errors import InputError
from generator.inputs import cilium
from generator.inputs.cilium import BASE
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN336",
    "cilium-provider-integration",
    "error",
    "Routing or IPAM the provider's Cilium integration does not support",
    __doc__,
)


def _at(c: dict, path: list[str]) -> Any:
    for key in path:
        c = c[key]
    return c


def find(spec: dict, doc: Located, facts: dict, c: dict) -> Iterator[InputError]:
    for rule in facts["ciliumConstraints"]:
        when = rule.get("when")
        if when is not None and _at(c, when["path"]) != when["equals"]:
            continue
        value = _at(c, rule["path"])
        if value not in rule["allowed"]:
            yield doc.error(
                rule["message"].format(value=value), BASE + tuple(rule["path"]), rule["hint"], at_value=True
            )


CHECK = InputCheck(meta=META, check=cilium.configured(find))
