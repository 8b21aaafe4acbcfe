"""``gitops.path`` is not where the engine finds the cluster's tree in the project's git repository.

Rationale: where the project is in a git work tree, the folder it sits in is known (``git
rev-parse --show-prefix``), so the path the engine reads (Flux's Kustomization ``spec.path``,
Argo CD's Application ``spec.source.path``) is ``<that folder>/rendered/<name>``. Any other
path (the default ``rendered/<name>`` of a project in a subfolder among them) names a tree the
engine does not find, or another project's. Outside a git work tree there is nothing to check
against (IN105 still holds the path to this cluster's tree). The examples below are projects
at the top of their repository.

Fix: set ``gitops.path`` to the path the message gives.

PASS:

    # gpu-gitops-project: git
    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: system
        nodeSelector: {agentpool: system}

FAIL:

    # gpu-gitops-project: git
    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git, path: platform/rendered/x}
    nodePools:
      - name: system
        nodeSelector: {agentpool: system}
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from generator import git
from generator.errors import InputError
from generator.inputs.protocol import ProjectInputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN111",
    "gitops-path-not-in-repository",
    "error",
    "gitops.path is not where the project's tree sits in its git repository",
    __doc__,
)


def check(spec: dict, doc: Located, facts: dict, root: Path) -> Iterator[InputError]:
    path, own = spec["gitops"]["path"], f"rendered/{spec['name']}"
    if path != own and not path.endswith("/" + own):
        return  # IN105's
    folder = git.prefix(root)
    if folder is None or path == folder + own:
        return
    written = "path" in (doc.data.get("gitops") or {})
    where = f"the repository's {folder.rstrip('/')}/ folder" if folder else "the top of its repository"
    yield doc.error(
        f"gitops.path {path!r}{'' if written else ' (the default)'} is not where the engine finds this "
        f"cluster's tree: the project is at {where}, so its tree is {folder + own}",
        ("gitops", "path"),
        f"set gitops.path: {folder + own}",
        at_value=written,
    )


CHECK = ProjectInputCheck(meta=META, check=check)
