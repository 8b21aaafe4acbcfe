"""``values.kubeProxyReplacement`` is one of the legacy strings ``strict``, ``partial``,
``probe`` or ``disabled``.

Rationale: Cilium 1.14 replaced those modes by ``true`` and ``false`` and later releases no longer read
them as before (cilium/cilium#32711): such a value silently means something else.

Fix: use the typed ``network.cilium.kubeProxyReplacement: true`` or ``false`` instead.

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
        kubeProxyReplacement: true
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
        values: {kubeProxyReplacement: strict}
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
    "IN349", "cilium-legacy-kpr-value", "error", "A legacy kubeProxyReplacement string in the free-form values", __doc__
)


def find(spec: dict, doc: Located, facts: dict, c: dict) -> Iterator[InputError]:
    legacy = c["values"].get("kubeProxyReplacement")
    if isinstance(legacy, str) and legacy in cilium.LEGACY_KPR:
        yield doc.error(
            f"kubeProxyReplacement {legacy!r} is a legacy value the chart no longer understands as before",
            BASE + ("values", "kubeProxyReplacement"),
            "use the typed network.cilium.kubeProxyReplacement: true or false instead",
            at_value=True,
        )


CHECK = InputCheck(meta=META, check=cilium.configured(find))
