"""Clusters evaluated together give what each gives alone: components, or its own error."""

from __future__ import annotations

import shutil

from conftest import EXAMPLES

from generator.errors import InputError
from generator.inputs.load import load_cluster
from generator.paths import Project
from generator.render import evaluation

CLUSTER = "aks-h100-training"
# a component of the cluster's own, keyed like the library's
OWN = (
    "{ 'team-settings': { x: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'default' } } } }"
)


def _copy_cluster(project: Project, source: str, name: str) -> None:
    shutil.copytree(project.clusters / source, project.clusters / name)
    path = project.clusters / name / "cluster.yaml"
    path.write_text(
        path.read_text(encoding="utf-8").replace(f"name: {source}\n", f"name: {name}\n", 1), encoding="utf-8"
    )


def _alone(project: Project, names: list[str]) -> list:
    results = []
    for name in names:
        try:
            results.append(evaluation.evaluate(project, load_cluster(project, name)))
        except InputError as exc:
            results.append(exc)
    return results


def test_the_examples_evaluated_together_give_what_each_gives_alone(project):
    proj = Project(project)
    (project / "clusters" / CLUSTER / "overrides.libsonnet").write_text(OWN, encoding="utf-8")
    clusters = [load_cluster(proj, name) for name in EXAMPLES]
    together = evaluation.evaluate_many(proj, clusters)
    assert together == _alone(proj, EXAMPLES)
    assert together[EXAMPLES.index(CLUSTER)]["team-settings"][0]["kind"] == "ConfigMap"  # its overrides.libsonnet


def test_more_clusters_than_one_evaluation_takes_keep_their_order(project, monkeypatch):
    proj = Project(project)
    monkeypatch.setattr(evaluation, "MANY", 3)
    names = [f"copy-{i}" for i in range(7)]
    for i, name in enumerate(names):
        _copy_cluster(proj, EXAMPLES[i % len(EXAMPLES)], name)
    together = evaluation.evaluate_many(proj, [load_cluster(proj, name) for name in names])
    assert together == _alone(proj, names)


def test_a_cluster_the_library_fails_on_gets_its_own_error_and_the_others_their_components(project):
    proj = Project(project)
    main = project / "libsonnet" / "main.libsonnet"
    text = main.read_text(encoding="utf-8")
    assert "local components(spec) = {" in text
    main.write_text(
        text.replace(
            "local components(spec) = {",
            "local components(spec) = assert spec.name != 'refused' : 'this cluster is refused';\n{",
            1,
        ),
        encoding="utf-8",
    )
    _copy_cluster(proj, CLUSTER, "refused")
    names = [CLUSTER, "refused", "ocp-a100-tuned"]
    together = evaluation.evaluate_many(proj, [load_cluster(proj, name) for name in names])
    assert isinstance(together[1], InputError) and "this cluster is refused" in str(together[1])
    assert str(together[1]) == str(_alone(proj, ["refused"])[0])
    assert together[0] == _alone(proj, [CLUSTER])[0] and together[2] == _alone(proj, ["ocp-a100-tuned"])[0]


def test_a_cluster_with_a_main_libsonnet_of_its_own_is_evaluated_with_it(project):
    proj = Project(project)
    (project / "clusters" / CLUSTER / "main.libsonnet").write_text(
        "local lib = import '../../libsonnet/main.libsonnet';\n"
        f"lib {{ components(spec):: lib.components(spec) + {OWN} }}",
        encoding="utf-8",
    )
    together = evaluation.evaluate_many(proj, [load_cluster(proj, name) for name in EXAMPLES])
    assert together[EXAMPLES.index(CLUSTER)]["team-settings"][0]["kind"] == "ConfigMap"
    assert together == _alone(proj, EXAMPLES)


def test_a_cluster_with_a_dangling_main_libsonnet_link_is_evaluated_alone(project, tmp_path):
    """A ``main.libsonnet`` link to nowhere is still the cluster's own Jsonnet: evaluated
    alone it is refused, so it must not be evaluated with the library's in a batch."""
    proj = Project(project)
    (project / "clusters" / CLUSTER / "main.libsonnet").symlink_to(tmp_path / "gone.libsonnet")
    together = evaluation.evaluate_many(proj, [load_cluster(proj, name) for name in EXAMPLES])
    assert isinstance(together[EXAMPLES.index(CLUSTER)], InputError)
    assert [str(r) if isinstance(r, InputError) else r for r in together] == [
        str(r) if isinstance(r, InputError) else r for r in _alone(proj, EXAMPLES)
    ]
