"""Direct server return (``loadBalancer.mode`` ``dsr`` or ``hybrid``) over a tunnel the agent
refuses: over VXLAN, through a tunnel without Geneve dispatch, or Geneve dispatch without a
Geneve tunnel.

Rationale: the agent refuses to start with each of these: "Node Port ... mode cannot be used
with vxlan tunneling", "Tunnel routing with Node Port ... mode requires geneve dispatch", "...
with geneve dispatch requires geneve tunnel protocol" (pkg/kpr/initializer/kube_proxy_replacement.go,
InitKubeProxyReplacementOptions, cilium/cilium v1.19). DSR carries the client's address to the
backend, which through a tunnel only Geneve's option header (``dsrDispatch: geneve``) can do.

Fix: use ``loadBalancer.mode: snat``; or ``routing.tunnelProtocol: geneve`` with
``loadBalancer.dsrDispatch: geneve``; or native routing.

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
        loadBalancer: {mode: dsr}
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
        routing: {mode: tunnel, tunnelProtocol: geneve}
        loadBalancer: {mode: dsr}
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

META = RuleMeta("IN338", "cilium-dsr-tunnel", "error", "DSR load balancing over a tunnel the agent refuses", __doc__)


def find(spec: dict, doc: Located, facts: dict, c: dict) -> Iterator[InputError]:
    lb, routing = c["loadBalancer"], c["routing"]
    tunnel = routing["mode"] == "tunnel"
    dsr = lb["mode"] in ("dsr", "hybrid")  # LoadBalancerUsesDSR(): both
    dispatch = lb.get("dsrDispatch", "opt")
    if dsr and tunnel and routing["tunnelProtocol"] == "vxlan":
        yield doc.error(
            f"loadBalancer.mode {lb['mode']} cannot be used with VXLAN tunnelling: the agent refuses to start",
            BASE + ("loadBalancer", "mode"),
            "use loadBalancer.mode: snat, or routing.tunnelProtocol: geneve with loadBalancer.dsrDispatch: geneve, "
            "or native routing",
            at_value=True,
        )
    elif dsr and tunnel and dispatch != "geneve":
        yield doc.error(
            f"tunnel routing with loadBalancer.mode {lb['mode']} requires Geneve dispatch",
            BASE + ("loadBalancer", "dsrDispatch") if "dsrDispatch" in lb else BASE + ("loadBalancer", "mode"),
            "set network.cilium.loadBalancer.dsrDispatch: geneve",
            at_value=True,
        )
    if dsr and dispatch == "geneve" and not (tunnel and routing["tunnelProtocol"] == "geneve"):
        yield doc.error(
            "loadBalancer.dsrDispatch geneve requires the Geneve tunnel protocol",
            BASE + ("loadBalancer", "dsrDispatch"),
            "set routing.mode: tunnel with tunnelProtocol: geneve, or dsrDispatch: opt (native routing)",
            at_value=True,
        )


CHECK = InputCheck(meta=META, check=cilium.configured(find))
