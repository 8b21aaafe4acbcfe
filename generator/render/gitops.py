"""The GitOps engine's own objects for ``rendered/<cluster>/gitops/``.

``libsonnet/gitops.libsonnet`` decides what they are; this module only gathers the facts it
needs and that only exist after the components are evaluated: which layers are non-empty
(an empty layer is not rendered, so no Kustomization may depend on it) and which kinds each
holds (CRDs and custom resources change Argo CD's sync options).
"""

from __future__ import annotations

import functools

from generator.errors import InputError
from generator.inputs.load import Cluster
from generator.library import jsonnet
from generator.paths import Project
from generator.validate import kubernetes

FOLDER = "gitops"
# Several clusters' objects in one evaluation: a call of the Jsonnet helper costs ~10 ms of CPU
# beside this library's own evaluation (~1 ms a cluster).
ENTRY_FOR_MANY = "local gitops = import 'gitops.libsonnet';\nfunction(params) [gitops(p) for p in params]"


def layer_facts(layers: list[tuple[str, list[tuple[str, list[dict]]]]], kubernetes_version: str) -> list[dict]:
    """Per non-empty layer, in apply order: its name and the kinds it holds.

    ``builtin`` says whether the cluster's Kubernetes version serves the kind itself, as
    opposed to a custom resource whose CRD must exist first.
    """
    version = kubernetes.resolve_version(kubernetes_version)
    facts = []
    for layer, components in layers:
        kinds = {(obj["apiVersion"], obj["kind"]) for _component, objects in components for obj in objects}
        if not kinds:
            continue
        facts.append(
            {
                "name": layer,
                "kinds": [
                    {
                        "apiVersion": api,
                        "kind": kind,
                        "builtin": _builtin(version, api, kind),
                    }
                    for api, kind in sorted(kinds)
                ],
            }
        )
    return facts


# Asked for every kind of every cluster (a file looked up for each); the bundled schemas do not
# change while the process runs.
@functools.lru_cache(maxsize=4096)
def _builtin(version: tuple[int, int], api_version: str, kind: str) -> bool:
    return kubernetes.builtin_schema(version, api_version, kind) is not None


def params(cluster: Cluster, layers: list[tuple[str, list[tuple[str, list[dict]]]]]) -> dict:
    """What ``gitops.libsonnet`` is given for this cluster's rendered layers."""
    spec = cluster.spec
    return {
        "cluster": spec["name"],
        "gitops": spec["gitops"],
        "layers": layer_facts(layers, spec["kubernetesVersion"]),
    }


def objects(project: Project, cluster: Cluster, layers: list[tuple[str, list[tuple[str, list[dict]]]]]) -> list[dict]:
    """Evaluate ``gitops.libsonnet`` for this cluster's rendered layers."""
    return objects_many(project, [params(cluster, layers)])[0]


def objects_many(project: Project, many: list[dict]) -> list[list[dict]]:
    """Evaluate ``gitops.libsonnet`` once for the ``params`` of several clusters: each one's objects."""
    sandbox = jsonnet.Sandbox(project.libsonnet, None, project.root)
    result = jsonnet.evaluate(ENTRY_FOR_MANY, sandbox, {"params": many}, home=project.libsonnet)
    assert isinstance(result, list) and len(result) == len(many)  # ENTRY_FOR_MANY maps the list
    for one in result:
        if not isinstance(one, list):
            raise InputError(
                "gitops.libsonnet must return a list of objects",
                path=project.display(project.libsonnet / "gitops.libsonnet"),
            )
    return result
