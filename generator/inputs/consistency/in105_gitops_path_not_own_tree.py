"""``gitops.path`` points the engine at another cluster's tree, or at none.

Rationale: render writes the cluster's tree to ``rendered/<name>`` of the project, so the path
the engine reads (Flux's Kustomization ``spec.path``, Argo CD's Application
``spec.source.path``) is that, or that under the folder the project sits in within the
repository (``platform/rendered/<name>``). Any other path points the engine at another
cluster's tree (it would apply that cluster's NodePools, quotas and policies here) or at
nothing. Each cluster's path then ends in its own unique name, so no two clusters of the fleet
share one.

Fix: write ``rendered/<name>`` (or ``<the project's folder in the repository>/rendered/<name>``),
or remove ``gitops.path`` for the default.

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git, path: rendered/x}
    nodePools:
      - name: system
        nodeSelector: {agentpool: system}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git, path: rendered/y}
    nodePools:
      - name: system
        nodeSelector: {agentpool: system}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.consistency.in104_gitops_path_not_plain import is_plain
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN105", "gitops-path-not-own-tree", "error", "gitops.path is not this cluster's rendered/<name>", __doc__
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    path = (doc.data.get("gitops") or {}).get("path")
    if not isinstance(path, str) or not is_plain(path):
        return  # IN104's
    own = f"rendered/{spec['name']}"
    if path != own and not path.endswith("/" + own):
        parts = path.split("/")
        other = parts[-1] if len(parts) >= 2 and parts[-2] == "rendered" else None
        where = f"cluster {other}'s tree" if other else "no tree gpu-gitops renders"
        yield doc.error(
            f"gitops.path {path!r} points the engine at {where}, not at this cluster's {own}",
            ("gitops", "path"),
            f"write {own} (or <the project's folder in the repository>/{own}), or remove gitops.path",
            at_value=True,
        )


CHECK = InputCheck(meta=META, check=check)
