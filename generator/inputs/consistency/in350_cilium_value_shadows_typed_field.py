"""A key of ``network.cilium.values`` is a chart value a typed field of ``network.cilium`` sets
(``TYPED_VALUES``).

Rationale: ``values`` is merged over what the typed fields render (libsonnet/components/cilium.libsonnet),
so the typed field would be overridden past every Cilium check (IN331-IN348) that keeps the
settings coherent. ``ipam`` stays open: ENI IPAM, read by keda.libsonnet, is only reachable
through ``values``.

Fix: set the typed field the message names instead.

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
        routing: {mode: tunnel, tunnelProtocol: geneve}
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
        values: {tunnelProtocol: geneve}
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

META = RuleMeta(
    "IN350", "cilium-value-shadows-typed-field", "error", "A free-form Cilium value overrides a typed field", __doc__
)

# Chart values the typed input sets (cilium.libsonnet), by the typed field that owns them.
TYPED_VALUES = {
    ("kubeProxyReplacement",): "kubeProxyReplacement",
    ("k8sServiceHost",): "k8sServiceHost",
    ("k8sServicePort",): "k8sServicePort",
    ("routingMode",): "routing.mode",
    ("tunnelProtocol",): "routing.tunnelProtocol",
    ("ipv4NativeRoutingCIDR",): "routing.ipv4NativeRoutingCIDR",
    ("autoDirectNodeRoutes",): "routing.autoDirectNodeRoutes",
    ("devices",): "devices",
    ("enableIPv4BIGTCP",): "bigTCP.ipv4",
    ("enableIPv6BIGTCP",): "bigTCP.ipv6",
    ("bandwidthManager", "enabled"): "bandwidthManager.enabled",
    ("bandwidthManager", "bbr"): "bandwidthManager.bbr",
    ("bpf", "masquerade"): "bpf.masquerade",
    ("bpf", "hostLegacyRouting"): "bpf.hostLegacyRouting",
    ("bpf", "datapathMode"): "bpf.datapathMode",
    ("loadBalancer", "acceleration"): "loadBalancer.acceleration",
    ("loadBalancer", "mode"): "loadBalancer.mode",
    ("loadBalancer", "dsrDispatch"): "loadBalancer.dsrDispatch",
    ("hubble", "enabled"): "hubble.enabled",
    ("hubble", "relay", "enabled"): "hubble.relay",
    ("hubble", "ui", "enabled"): "hubble.ui",
}
_ABSENT = object()


def find(spec: dict, doc: Located, facts: dict, c: dict) -> Iterator[InputError]:
    for path, typed in TYPED_VALUES.items():
        node = c["values"]
        for key in path:
            node = node.get(key, _ABSENT) if isinstance(node, dict) else _ABSENT
        if node is _ABSENT or (path == ("kubeProxyReplacement",) and node in cilium.LEGACY_KPR):
            continue  # a legacy string is IN349's
        yield doc.error(
            f"values.{'.'.join(path)} overrides the typed network.cilium.{typed}, past the checks that keep "
            "Cilium's settings coherent",
            BASE + ("values",) + path,
            f"set network.cilium.{typed} instead",
            at_value=True,
        )


CHECK = InputCheck(meta=META, check=cilium.configured(find))
