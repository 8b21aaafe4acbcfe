"""rendered/<cluster>/gitops/: Flux and Argo CD objects that sync the rendered layers."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from conftest import crd_args, needs_crd_schemas
from generator import gitops, inputs, registry
from generator.paths import Project

YAML_SAFE = YAML(typ="safe")

NETPOL = {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
          "metadata": {"name": "deny", "namespace": "team"}, "spec": {"podSelector": {}}}
CRD = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
       "metadata": {"name": "scaledobjects.keda.sh"}}
HELM_RELEASE = {"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
                "metadata": {"name": "keda", "namespace": "keda"}}
SCALED_OBJECT = {"apiVersion": "keda.sh/v1alpha1", "kind": "ScaledObject",
                 "metadata": {"name": "llm", "namespace": "team"}}


def _layers(**by_layer: list[dict]) -> list[tuple[str, list[tuple[str, list[dict]]]]]:
    """Every registry layer in order, with objects only in the layers named (00=..., 20=...)."""
    reg = registry.load(Path(__file__).resolve().parent.parent / "libsonnet")
    return [(layer, [("c", by_layer.get(f"l{layer[:2]}", []))]) for layer in reg.layers]


def _sync_objects(project: Path, cluster: str, edit=None, **by_layer) -> dict[str, dict]:
    proj = Project(project)
    loaded = inputs.load_cluster(proj, cluster)
    if edit:
        edit(loaded.spec)
    return {o["metadata"]["name"]: o for o in gitops.objects(proj, loaded, _layers(**by_layer))}


def _read(path: Path) -> dict:
    return YAML_SAFE.load(path.read_text())


def test_flux_kustomizations_depend_only_on_rendered_earlier_layers(project):
    objs = _sync_objects(project, "aks-h100-training", l00=[HELM_RELEASE], l20=[NETPOL], l30=[SCALED_OBJECT])
    first, workloads, autoscaling = (objs[f"aks-h100-training-{layer}"] for layer in
                                     ("00-crds-operators", "20-workloads", "30-autoscaling"))
    assert "aks-h100-training-10-platform" not in objs  # empty layer: no Kustomization
    assert "dependsOn" not in first["spec"]
    assert workloads["spec"]["dependsOn"] == [{"name": "aks-h100-training-00-crds-operators"}]
    assert autoscaling["spec"]["dependsOn"] == [{"name": "aks-h100-training-00-crds-operators"},
                                                {"name": "aks-h100-training-20-workloads"}]
    for k in (first, workloads, autoscaling):
        assert k["spec"]["prune"] is True and k["spec"]["wait"] is True
        assert k["spec"]["sourceRef"] == {"kind": "GitRepository", "name": "aks-h100-training"}
    assert first["spec"]["path"] == "./rendered/aks-h100-training/00-crds-operators"
    # Helm installs of operators take longer than plain objects
    assert first["spec"]["timeout"] != workloads["spec"]["timeout"]
    repo = objs["aks-h100-training"]
    assert repo["kind"] == "GitRepository"
    assert repo["spec"]["url"] == "https://git.example.com/platform/gitops.git"
    assert repo["spec"]["ref"] == {"branch": "main"}


def test_flux_source_name_uses_an_existing_repository(project):
    def edit(spec):
        spec["gitops"]["sourceName"] = "flux-system"
        spec["gitops"]["path"] = "fleet/aks"

    objs = _sync_objects(project, "aks-h100-training", edit, l20=[NETPOL])
    assert not [o for o in objs.values() if o["kind"] == "GitRepository"]
    layer = objs["aks-h100-training-20-workloads"]
    assert layer["spec"]["sourceRef"]["name"] == "flux-system"
    assert layer["spec"]["path"] == "./fleet/aks/20-workloads"
    assert objs["aks-h100-training-gitops"]["spec"]["path"] == "./fleet/aks/gitops"


def test_argocd_applications_waves_and_sync_options(project):
    objs = _sync_objects(project, "eks-mi300x-inference", l00=[CRD, HELM_RELEASE], l20=[NETPOL], l30=[SCALED_OBJECT])
    reg_layers = list(registry.load(project / "libsonnet").layers)
    for layer in ("00-crds-operators", "20-workloads", "30-autoscaling"):
        app = objs[f"eks-mi300x-inference-{layer}"]
        assert app["metadata"]["annotations"]["argocd.argoproj.io/sync-wave"] == str(reg_layers.index(layer))
        assert app["spec"]["project"] == "gpu-platform"
        assert app["spec"]["source"]["path"] == f"rendered/eks-mi300x-inference/{layer}"
        assert app["spec"]["syncPolicy"]["automated"] == {"prune": True, "selfHeal": True}
    options = {name: o["spec"]["syncPolicy"].get("syncOptions", []) for name, o in objs.items()}
    assert options["eks-mi300x-inference-00-crds-operators"] == ["ServerSideApply=true",
                                                                 "SkipDryRunOnMissingResource=true"]
    assert options["eks-mi300x-inference-20-workloads"] == []  # built-in kinds only
    assert options["eks-mi300x-inference-30-autoscaling"] == ["SkipDryRunOnMissingResource=true"]
    parent = objs["eks-mi300x-inference-gitops"]
    assert parent["spec"]["source"]["path"] == "rendered/eks-mi300x-inference/gitops"
    assert "annotations" not in parent["metadata"]


def test_layer_facts_mark_custom_resources(project):
    facts = gitops.layer_facts(_layers(l00=[CRD], l30=[SCALED_OBJECT]), "1.32")
    assert [f["name"] for f in facts] == ["00-crds-operators", "30-autoscaling"]
    assert facts[0]["kinds"] == [{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                                  "builtin": True}]
    assert facts[1]["kinds"][0]["builtin"] is False


@needs_crd_schemas()
def test_examples_render_valid_gitops_objects_upstream(project, run):
    result = run(project, "render", "--require-schemas", *crd_args())
    assert result.exit_code == 0, result.output + result.stderr
    for cluster in ("aks-h100-training", "eks-mi300x-inference", "ocp-a100-tuned"):
        folder = project / "rendered" / cluster / "gitops"
        kinds = {_read(p)["kind"] for p in folder.glob("*_*.yaml")}
        assert kinds, cluster
        root = _read(project / "rendered" / cluster / "kustomization.yaml")
        assert "gitops" not in root["resources"]  # a Kustomization on the root must not re-apply these
    engine_kinds = {c: {_read(p)["kind"] for p in (project / "rendered" / c / "gitops").glob("*_*.yaml")}
                    for c in ("aks-h100-training", "eks-mi300x-inference", "ocp-a100-tuned")}
    assert engine_kinds["aks-h100-training"] == {"GitRepository", "Kustomization"}
    assert engine_kinds["ocp-a100-tuned"] == {"Kustomization"}  # sourceName: flux-system
    assert engine_kinds["eks-mi300x-inference"] == {"Application"}


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl not installed")
def test_kubectl_kustomize_builds_every_layer_and_gitops(project, run):
    assert run(project, "render").exit_code == 0
    for cluster in (project / "rendered").iterdir():
        # bootstrap/ holds the CNI's Helm values for its first install: no kustomize folder
        folders = [cluster] + [p for p in cluster.iterdir() if p.is_dir() and p.name != "bootstrap"]
        assert cluster / "gitops" in folders
        for folder in folders:
            done = subprocess.run(["kubectl", "kustomize", str(folder)], capture_output=True, text=True)
            assert done.returncode == 0, f"{folder}: {done.stderr}"


@pytest.mark.parametrize("edit, message, line", [
    ("  engine: argocd\n  repository: https://git.example.com/x.git\n  sourceName: flux-system\n",
     "gitops.sourceName is only used with engine flux, but gitops.engine is argocd", 10),
    ("  engine: flux\n  repository: https://git.example.com/x.git\n  project: team\n",
     "gitops.project is only used with engine argocd, but gitops.engine is flux", 10),
    ("  engine: flux\n  repository: https://git.example.com/x.git\n  path: rendered/../etc\n",
     "gitops.path 'rendered/../etc' is not a plain repository path", 10),
])
def test_gitops_block_mistakes_are_located(project, run, edit, message, line):
    path = project / "clusters" / "aks-h100-training" / "cluster.yaml"
    text = path.read_text()
    start = text.index("gitops:\n") + len("gitops:\n")
    end = text.index("network:")
    path.write_text(text[:start] + edit + text[end:])
    result = run(project, "render", "aks-h100-training")
    assert result.exit_code == 2
    assert f"clusters/aks-h100-training/cluster.yaml:{line}:" in result.stderr
    assert message in result.stderr
    assert "hint:" in result.stderr
