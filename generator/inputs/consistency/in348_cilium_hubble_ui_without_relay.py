"""``hubble.ui`` with Hubble on and ``hubble.relay: false``.

Rationale: the UI reads flows from Hubble Relay; the chart refuses to render the UI without it
(``templates/validate.yaml``: "Hubble UI requires .Values.hubble.relay.enabled=true").

Fix: set ``network.cilium.hubble.relay: true``, or ``ui: false``.

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
        hubble: {enabled: true, relay: true, ui: true}
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
        hubble: {enabled: true, relay: false, ui: true}
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

META = RuleMeta("IN348", "cilium-hubble-ui-without-relay", "error", "Hubble UI without Hubble Relay", __doc__)


def find(spec: dict, doc: Located, facts: dict, c: dict) -> Iterator[InputError]:
    hubble = c["hubble"]
    if hubble["enabled"] and hubble["ui"] and not hubble["relay"]:
        yield doc.error(
            "Hubble UI needs Hubble Relay: the chart refuses to render without it",
            BASE + ("hubble", "ui"),
            "set network.cilium.hubble.relay: true, or ui: false",
            at_value=True,
        )


CHECK = InputCheck(meta=META, check=cilium.configured(find))
