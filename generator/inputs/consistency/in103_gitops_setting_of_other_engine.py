"""A ``gitops`` setting that only the other GitOps engine reads.

Rationale: ``interval`` and ``sourceName`` are Flux's (the ``spec.interval`` of its
Kustomizations and GitRepository, the ``sourceRef`` of an existing GitRepository);
``project`` is Argo CD's (an Application's ``spec.project``). Given for the other engine, the
value would be silently ignored: the user believes the cluster syncs every minute, or in its
own AppProject, and it does not.

Fix: remove the setting, or set ``gitops.engine`` to the engine that reads it.

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: argocd, repository: https://git.example.com/fleet.git, project: gpu}
    nodePools:
      - name: system
        nodeSelector: {agentpool: system}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git, project: gpu}
    nodePools:
      - name: system
        nodeSelector: {agentpool: system}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN103",
    "gitops-setting-of-other-engine",
    "error",
    "A gitops setting is only read by the engine the cluster does not use",
    __doc__,
)

# Settings that only one engine reads; given for the other, they would be silently ignored.
_ENGINE_ONLY = {"sourceName": "flux", "project": "argocd", "interval": "flux"}


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    engine_in_use = spec["gitops"]["engine"]
    written = doc.data.get("gitops") or {}
    for key, engine in _ENGINE_ONLY.items():
        if key in written and engine_in_use != engine:
            yield doc.error(
                f"gitops.{key} is only used with engine {engine}, but gitops.engine is {engine_in_use}",
                ("gitops", key),
                f"remove gitops.{key}, or set gitops.engine: {engine}",
            )


CHECK = InputCheck(meta=META, check=check)
