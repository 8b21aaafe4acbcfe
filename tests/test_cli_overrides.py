"""overrides.libsonnet as docs/overrides.md describes it: each example renders, an own component
lands in its layer and is synced after the library's layers, and a bad one is one clear error."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import REPO
from ruamel.yaml import YAML

from generator import registry

DOC = REPO / "docs" / "overrides.md"
EXAMPLES = re.findall(r"```jsonnet\n// clusters/([a-z0-9-]+)/overrides\.libsonnet\n(.*?)```", DOC.read_text(), re.S)
OWN_LAYER = registry.load(REPO / "libsonnet").own_layer


def _read(path: Path) -> dict:
    return YAML(typ="safe").load(path.read_text())


def _objects(tree: Path) -> dict[str, bytes]:
    return {p.relative_to(tree).as_posix(): p.read_bytes() for p in sorted(tree.rglob("*.yaml"))}


def _override(project: Path, cluster: str, text: str) -> None:
    (project / "clusters" / cluster / "overrides.libsonnet").write_text(text)


def test_the_doc_has_examples():
    assert len(EXAMPLES) >= 3


@pytest.mark.parametrize("cluster, text", EXAMPLES, ids=[f"example{i}" for i in range(len(EXAMPLES))])
def test_every_documented_override_renders(project, run, cluster, text):
    _override(project, cluster, text)
    result = run(project, "render", cluster)
    assert result.exit_code == 0, result.stderr
    assert run(project, "check", cluster).exit_code == 0


def test_patching_one_object_changes_only_that_object(project, run):
    cluster, text = EXAMPLES[0]
    assert "Namespace" in text
    assert run(project, "render", cluster).exit_code == 0
    before = _objects(project / "rendered" / cluster)
    _override(project, cluster, text)
    assert run(project, "render", cluster).exit_code == 0
    after = _objects(project / "rendered" / cluster)
    assert before.keys() == after.keys()
    assert [rel for rel in before if before[rel] != after[rel]] == [
        "20-workloads/workload-isolation/namespace_gpu-training.yaml"
    ]
    ns = _read(project / "rendered" / cluster / "20-workloads" / "workload-isolation" / "namespace_gpu-training.yaml")
    assert ns["metadata"]["labels"]["team.example.com/owner"] == "ml-platform"


def test_an_own_component_renders_into_its_layer_and_is_synced_last(project, run):
    cluster, text = EXAMPLES[1]
    _override(project, cluster, text)
    assert run(project, "render", cluster).exit_code == 0
    tree = project / "rendered" / cluster
    assert (
        _read(tree / OWN_LAYER / "team-settings" / "configmap_gpu-training_team-settings.yaml")["data"]["owner"]
        == "ml-platform"
    )
    assert OWN_LAYER in _read(tree / "kustomization.yaml")["resources"]
    sync = _read(tree / "gitops" / f"kustomization_flux-system_{cluster}-{OWN_LAYER}.yaml")
    waited = [f"{cluster}-{layer}" for layer in ("00-crds-operators", "10-platform", "20-workloads", "30-autoscaling")]
    assert [d["name"] for d in sync["spec"]["dependsOn"]] == waited


def test_an_own_component_on_argo_cd_comes_in_the_last_sync_wave(project, run):
    _override(
        project,
        "eks-mi300x-inference",
        "{ 'team-settings': [{ apiVersion: 'v1', kind: 'ConfigMap', "
        "metadata: { name: 'team-settings', namespace: 'default' } }] }",
    )
    assert run(project, "render", "eks-mi300x-inference").exit_code == 0
    apps = {
        _read(p)["metadata"]["name"]: _read(p)
        for p in (project / "rendered" / "eks-mi300x-inference" / "gitops").glob("application_*.yaml")
    }
    own = apps[f"eks-mi300x-inference-{OWN_LAYER}"]
    waves = [int(a["metadata"].get("annotations", {}).get("argocd.argoproj.io/sync-wave", -1)) for a in apps.values()]
    assert int(own["metadata"]["annotations"]["argocd.argoproj.io/sync-wave"]) == max(waves)


def test_an_own_component_with_a_name_that_is_no_folder_is_one_error_at_the_override(project, run):
    _override(
        project,
        "aks-h100-training",
        "{ myTeam: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'default' } }] }",
    )
    result = run(project, "render", "aks-h100-training")
    assert result.exit_code == 2
    assert result.stderr == (
        "clusters/aks-h100-training/overrides.libsonnet: error: invalid component name 'myTeam': a component "
        "of one's own is named like a folder\n  hint: use lower-case letters, digits and '-', e.g. 'team-settings'\n"
    )


def test_dropping_a_library_component_names_it_once(project, run):
    _override(project, "aks-h100-training", "{ keda:: super.keda }")
    result = run(project, "render", "aks-h100-training")
    assert result.exit_code == 2
    assert "missing: keda" in result.stderr and "; \n" not in result.stderr and not result.stderr.count("; ;")
