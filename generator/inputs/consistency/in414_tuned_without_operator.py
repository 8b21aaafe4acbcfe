"""``tuning.backend: tuned`` on a provider that does not run the Node Tuning Operator.

Rationale: the tuned backend renders the Node Tuning Operator's ``Tuned`` objects
(tuned.openshift.io/v1). The operator exists on OpenShift and on clusters that installed it
themselves (``generic``), not on the managed Kubernetes services (``nodeTuningOperator`` in
docs/providers.md): there the objects are refused for want of their CRD, or apply to nothing.

Fix: use ``tuning.backend: daemonset``, or ``provider: openshift`` (or ``generic``, with the
Node Tuning Operator installed).

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    tuning: {backend: daemonset}
    nodePools:
      - name: gpu
        nodeSelector: {agentpool: gpu}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    tuning: {backend: tuned}
    nodePools:
      - name: gpu
        nodeSelector: {agentpool: gpu}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN414",
    "tuned-without-operator",
    "error",
    "tuning.backend tuned on a provider without the Node Tuning Operator",
    __doc__,
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    if spec["tuning"]["backend"] == "tuned" and not facts["nodeTuningOperator"]:
        yield doc.error(
            f"tuning.backend tuned needs the Node Tuning Operator, which {spec['provider']} does not run",
            ("tuning", "backend"),
            "use tuning.backend: daemonset, or provider: openshift (or generic, with the "
            "Node Tuning Operator installed)",
            at_value=True,
        )


CHECK = InputCheck(meta=META, check=check)
