"""``gitops.path`` is not a plain repository path.

Rationale: ``gitops.path`` is where the engine reads the cluster's tree in the repository
(Flux's Kustomization ``spec.path``, Argo CD's Application ``spec.source.path``). A path with
``.``, ``..``, an empty part (``//``) or a trailing ``/`` names the same folder in several
spellings, or a folder outside the one render writes; the check that the path is this
cluster's own tree (IN105) can only compare plain paths.

Fix: write it relative to the repository root without ``.``, ``..``, ``//`` or a trailing
``/``, e.g. ``rendered/my-cluster``.

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git, path: platform/rendered/x}
    nodePools:
      - name: system
        nodeSelector: {agentpool: system}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git, path: ./rendered/x}
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

META = RuleMeta("IN104", "gitops-path-not-plain", "error", "gitops.path has '.', '..', '//' or a trailing '/'", __doc__)


def is_plain(path: str) -> bool:
    """No trailing ``/`` and no empty, ``.`` or ``..`` part."""
    return not path.endswith("/") and all(part not in ("", ".", "..") for part in path.split("/"))


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    path = (doc.data.get("gitops") or {}).get("path")
    if isinstance(path, str) and not is_plain(path):
        yield doc.error(
            f"gitops.path {path!r} is not a plain repository path",
            ("gitops", "path"),
            "write it relative to the repository root without '.', '..', '//' or a trailing '/', "
            "e.g. rendered/my-cluster",
            at_value=True,
        )


CHECK = InputCheck(meta=META, check=check)
