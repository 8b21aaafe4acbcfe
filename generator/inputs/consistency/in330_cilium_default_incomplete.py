"""Cilium is on only by the provider's default, and its defaults need settings the input does not give.

The input writes no ``network.cilium``, the provider turns Cilium on by default
(``ciliumByDefault``, docs/providers.md), and the Cilium checks IN331-IN350 find errors in the
defaulted settings. Nothing about Cilium is written to point at, so their findings fold into
this one error, at ``provider``, naming each check's ID and message.

Rationale: a cluster that already runs a CNI, moved to a provider whose default is Cilium, would
otherwise get errors about settings it never wrote, each pointing at the top of the file; the
smallest edit that renders is to say which CNI the cluster has.

Fix: set ``network.cilium.enabled: false`` if the cluster already runs a CNI; to install
Cilium, write ``network.cilium`` with what the message asks for (e.g. ``k8sServiceHost``).

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: generic
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    network:
      cilium: {enabled: false}
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
    nodePools:
      - name: system
        nodeSelector: {agentpool: system}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs import cilium
from generator.inputs.consistency import (
    in331_cilium_api_server_unreachable,
    in332_cilium_native_routing_cidr_missing,
    in333_cilium_mask_size_of_kubernetes_ipam,
    in334_cilium_node_range_exceeds_pod_cidr,
    in335_cilium_pod_cidr_not_routed,
    in336_cilium_provider_integration,
    in337_cilium_kernel_too_old,
    in338_cilium_dsr_tunnel,
    in339_cilium_dsr_dispatch_without_dsr,
    in340_cilium_big_tcp_datapath,
    in341_cilium_xdp_without_devices,
    in342_cilium_direct_routes_with_tunnel,
    in343_cilium_masquerade_without_kpr,
    in344_cilium_bbr_prerequisites,
    in345_cilium_xdp_without_kpr,
    in346_cilium_netkit_legacy_host_routing,
    in347_cilium_big_tcp_prerequisites,
    in348_cilium_hubble_ui_without_relay,
    in349_cilium_legacy_kpr_value,
    in350_cilium_value_shadows_typed_field,
)
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN330", "cilium-default-incomplete", "error", "Cilium is on by the provider's default and needs settings", __doc__
)

# The checks whose findings fold here, in the order the message lists them.
FOLDED: tuple[tuple[RuleMeta, cilium.Finder], ...] = tuple(
    (module.META, module.find)
    for module in (
        in331_cilium_api_server_unreachable,
        in332_cilium_native_routing_cidr_missing,
        in333_cilium_mask_size_of_kubernetes_ipam,
        in334_cilium_node_range_exceeds_pod_cidr,
        in335_cilium_pod_cidr_not_routed,
        in336_cilium_provider_integration,
        in337_cilium_kernel_too_old,
        in338_cilium_dsr_tunnel,
        in339_cilium_dsr_dispatch_without_dsr,
        in340_cilium_big_tcp_datapath,
        in341_cilium_xdp_without_devices,
        in342_cilium_direct_routes_with_tunnel,
        in343_cilium_masquerade_without_kpr,
        in344_cilium_bbr_prerequisites,
        in345_cilium_xdp_without_kpr,
        in346_cilium_netkit_legacy_host_routing,
        in347_cilium_big_tcp_prerequisites,
        in348_cilium_hubble_ui_without_relay,
        in349_cilium_legacy_kpr_value,
        in350_cilium_value_shadows_typed_field,
    )
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    if not cilium.on_by_default(spec, doc):
        return
    c = spec["network"]["cilium"]
    found = [(meta.id, error) for meta, find in FOLDED for error in find(spec, doc, facts, c)]
    if not found:
        return
    yield doc.error(
        f"Cilium is on by default for provider {spec['provider']} (ciliumByDefault in docs/providers.md), "
        "and its defaults need settings the input does not give: "
        + "; ".join(f"{e.message} ({check_id})" for check_id, e in found),
        ("provider",),
        "set network.cilium.enabled: false if the cluster already runs a CNI; to install Cilium, "
        + "; ".join(e.hint for _, e in found),
        at_value=True,
    )


CHECK = InputCheck(meta=META, check=check)
