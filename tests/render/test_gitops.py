"""rendered/<cluster>/gitops/: Flux and Argo CD objects that sync the rendered layers."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import needs_crd_schemas
from ruamel.yaml import YAML

from generator.inputs import load as inputs
from generator.library import registry
from generator.paths import Project
from generator.render import gitops
from tests.inputs.test_gpu_consistency import AKS
from tests.inputs.test_gpu_consistency import edit as edit_input
from tests.inputs.test_gpu_consistency import line_of as input_line_of
from tests.inputs.test_gpu_consistency import render_fails as input_render_fails

YAML_SAFE = YAML(typ="safe")

NETPOL = {
    "apiVersion": "networking.k8s.io/v1",
    "kind": "NetworkPolicy",
    "metadata": {"name": "deny", "namespace": "team"},
    "spec": {"podSelector": {}},
}
CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "scaledobjects.keda.sh"},
}
HELM_RELEASE = {
    "apiVersion": "helm.toolkit.fluxcd.io/v2",
    "kind": "HelmRelease",
    "metadata": {"name": "keda", "namespace": "keda"},
}
SCALED_OBJECT = {
    "apiVersion": "keda.sh/v1alpha1",
    "kind": "ScaledObject",
    "metadata": {"name": "llm", "namespace": "team"},
}


def _layers(**by_layer: list[dict]) -> list[tuple[str, list[tuple[str, list[dict]]]]]:
    """Every registry layer in order, with objects only in the layers named (00=..., 20=...)."""
    reg = registry.load(Path(__file__).resolve().parents[2] / "libsonnet")
    return [(layer, [("c", by_layer.get(f"l{layer[:2]}", []))]) for layer in reg.layers]


def _sync_objects(project: Path, cluster: str, edit=None, **by_layer) -> dict[str, dict]:
    proj = Project(project)
    loaded = inputs.load_cluster(proj, cluster)
    if edit:
        edit(loaded.spec)
    return {o["metadata"]["name"]: o for o in gitops.objects(proj, loaded, _layers(**by_layer))}


def _read(path: Path) -> dict:
    return YAML_SAFE.load(path.read_text(encoding="utf-8"))


def test_flux_kustomizations_depend_only_on_rendered_earlier_layers(project):
    objs = _sync_objects(project, "aks-h100-training", l00=[HELM_RELEASE], l20=[NETPOL], l30=[SCALED_OBJECT])
    first, workloads, autoscaling = (
        objs[f"aks-h100-training-{layer}"] for layer in ("00-crds-operators", "20-workloads", "30-autoscaling")
    )
    assert "aks-h100-training-10-platform" not in objs  # empty layer: no Kustomization
    assert "dependsOn" not in first["spec"]
    assert workloads["spec"]["dependsOn"] == [{"name": "aks-h100-training-00-crds-operators"}]
    assert autoscaling["spec"]["dependsOn"] == [
        {"name": "aks-h100-training-00-crds-operators"},
        {"name": "aks-h100-training-20-workloads"},
    ]
    for k in (first, workloads, autoscaling):
        assert k["spec"]["prune"] is True
        assert k["spec"]["sourceRef"] == {"kind": "GitRepository", "name": "aks-h100-training"}
    assert first["spec"]["wait"] is True and workloads["spec"]["wait"] is True
    # ScaledObjects are Ready only once the application's Deployment exists: not waited on
    assert autoscaling["spec"]["wait"] is False
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
    assert options["eks-mi300x-inference-00-crds-operators"] == [
        "ServerSideApply=true",
        "SkipDryRunOnMissingResource=true",
    ]
    assert options["eks-mi300x-inference-20-workloads"] == []  # built-in kinds only
    assert options["eks-mi300x-inference-30-autoscaling"] == ["SkipDryRunOnMissingResource=true"]
    parent = objs["eks-mi300x-inference-gitops"]
    assert parent["spec"]["source"]["path"] == "rendered/eks-mi300x-inference/gitops"
    assert "annotations" not in parent["metadata"]


DAEMONSET = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "check", "namespace": "gpu-validation"}}


def test_per_node_layer_is_never_waited_on_flux(project):
    """A DaemonSet that fails on one bad node by design must not freeze the later layers: its
    layer is applied without waiting, and nothing depends on it."""
    objs = _sync_objects(
        project, "aks-h100-training", l00=[HELM_RELEASE], l10=[DAEMONSET], l20=[NETPOL], l40=[DAEMONSET]
    )
    per_node = objs["aks-h100-training-40-per-node"]
    assert per_node["spec"]["wait"] is False and "healthChecks" not in per_node["spec"]
    assert per_node["spec"]["dependsOn"] == [
        {"name": "aks-h100-training-00-crds-operators"},
        {"name": "aks-h100-training-10-platform"},
    ]
    layers = [o for o in objs.values() if o["kind"] == "Kustomization"]
    assert not [o for o in layers if {"name": "aks-h100-training-40-per-node"} in o["spec"].get("dependsOn", [])]
    assert objs["aks-h100-training-10-platform"]["spec"]["wait"] is True


def test_application_owned_state_gates_no_platform_layer_flux(project):
    """On a fresh cluster no application Deployment exists, so no ScaledObject is Ready: the
    per-node layer (tuning, huge pages, disks, validation) must not wait on the autoscaling
    layer, nor on the workloads layer it does not need."""
    objs = _sync_objects(
        project,
        "aks-h100-training",
        l00=[HELM_RELEASE],
        l10=[DAEMONSET],
        l20=[NETPOL],
        l30=[SCALED_OBJECT],
        l40=[DAEMONSET],
    )
    needs = {
        n: [d["name"] for d in o["spec"].get("dependsOn", [])] for n, o in objs.items() if o["kind"] == "Kustomization"
    }
    assert needs["aks-h100-training-40-per-node"] == [
        "aks-h100-training-00-crds-operators",
        "aks-h100-training-10-platform",
    ]
    assert not [n for n, d in needs.items() if "aks-h100-training-30-autoscaling" in d]
    assert objs["aks-h100-training-30-autoscaling"]["spec"]["wait"] is False


def test_application_owned_state_gates_no_platform_layer_argocd(project):
    """Argo CD applies the waves in order and waits on each: the per-node layer's wave comes
    before autoscaling's, and autoscaling is not waited on (a Degraded ScaledObject while its
    Deployment is missing or Prometheus is down passes as Healthy to the parent)."""
    objs = _sync_objects(
        project,
        "eks-mi300x-inference",
        l00=[HELM_RELEASE],
        l10=[DAEMONSET],
        l20=[NETPOL],
        l30=[SCALED_OBJECT],
        l40=[DAEMONSET],
    )
    wave = {
        n: int(o["metadata"]["annotations"]["argocd.argoproj.io/sync-wave"])
        for n, o in objs.items()
        if "annotations" in o["metadata"]
    }
    assert wave["eks-mi300x-inference-40-per-node"] < wave["eks-mi300x-inference-30-autoscaling"]
    assert wave["eks-mi300x-inference-40-per-node"] > wave["eks-mi300x-inference-10-platform"]
    autoscaling = objs["eks-mi300x-inference-30-autoscaling"]["metadata"]["annotations"]
    assert autoscaling["gpu-gitops.io/wait"] == "false"


def test_per_node_layer_is_never_waited_on_argocd(project):
    objs = _sync_objects(project, "eks-mi300x-inference", l10=[DAEMONSET], l40=[DAEMONSET])
    per_node = objs["eks-mi300x-inference-40-per-node"]["metadata"]["annotations"]
    assert per_node["gpu-gitops.io/wait"] == "false"
    assert "gpu-gitops.io/wait" not in objs["eks-mi300x-inference-10-platform"]["metadata"]["annotations"]
    # the documented Application health check is what lets the parent's waves pass it
    docs = (Path(__file__).resolve().parents[2] / "docs" / "gitops.md").read_text(encoding="utf-8")
    assert 'obj.metadata.annotations["gpu-gitops.io/wait"] == "false"' in docs


def test_node_checks_render_outside_the_waited_on_layers():
    """GPU validation, disk preparation and node tuning fail on a bad node by design."""
    reg = registry.load(Path(__file__).resolve().parents[2] / "libsonnet")
    layer_of = {c.name: c.layer for c in reg.components}
    data = json.loads((Path(__file__).resolve().parents[2] / "libsonnet" / "registry.json").read_text(encoding="utf-8"))
    unwaited = {layer["name"] for layer in data["layers"] if layer.get("wait") is False}
    for component in ("gpu-validation", "local-storage", "node-tuning"):
        assert layer_of[component] in unwaited, component
    # the per-node layer is the last of the library's: its checks see the device plugins and
    # node labels (only the layer of a cluster's own components may follow); besides it only
    # the autoscaling layer, whose ScaledObjects wait on applications, is not waited on
    last = max((c.layer for c in reg.components), key=reg.layers.index)
    assert unwaited == {last, layer_of["autoscaling"]}
    assert reg.layers.index(reg.own_layer) > reg.layers.index(last)


def test_layer_facts_mark_custom_resources(project):
    facts = gitops.layer_facts(_layers(l00=[CRD], l30=[SCALED_OBJECT]), "1.32")
    assert [f["name"] for f in facts] == ["00-crds-operators", "30-autoscaling"]
    assert facts[0]["kinds"] == [
        {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "builtin": True}
    ]
    assert facts[1]["kinds"][0]["builtin"] is False


def test_layer_facts_look_each_kind_up_once_a_process(project, monkeypatch):
    """A fleet's clusters hold the same kinds: each is looked up in the bundled schemas once."""
    from generator.validate import kubernetes

    asked = []
    real = kubernetes.builtin_schema
    monkeypatch.setattr(kubernetes, "builtin_schema", lambda *a: asked.append(a) or real(*a))
    gitops._builtin.cache_clear()
    first = gitops.layer_facts(_layers(l00=[CRD], l30=[SCALED_OBJECT]), "1.32")
    assert gitops.layer_facts(_layers(l00=[CRD], l30=[SCALED_OBJECT]), "1.32") == first
    assert len(asked) == 2 == len(set(asked))
    gitops._builtin.cache_clear()


@needs_crd_schemas()
def test_examples_render_valid_gitops_objects_upstream(strict_render):
    project, result = strict_render  # rendered with --require-schemas and the upstream locations
    assert result.exit_code == 0, result.output + result.stderr
    for cluster in ("aks-h100-training", "eks-mi300x-inference", "ocp-a100-tuned"):
        folder = project / "rendered" / cluster / "gitops"
        kinds = {_read(p)["kind"] for p in folder.glob("*_*.yaml")}
        assert kinds, cluster
        root = _read(project / "rendered" / cluster / "kustomization.yaml")
        assert "gitops" not in root["resources"]  # a Kustomization on the root must not re-apply these
    engine_kinds = {
        c: {_read(p)["kind"] for p in (project / "rendered" / c / "gitops").glob("*_*.yaml")}
        for c in ("aks-h100-training", "eks-mi300x-inference", "ocp-a100-tuned")
    }
    assert engine_kinds["aks-h100-training"] == {"GitRepository", "Kustomization"}
    assert engine_kinds["ocp-a100-tuned"] == {"Kustomization"}  # sourceName: flux-system
    assert engine_kinds["eks-mi300x-inference"] == {"Application"}


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl not installed")
def test_kubectl_kustomize_builds_every_layer_and_gitops(rendered):
    """Every folder the root kustomization does not build (gitops/) builds on its own. kustomize
    builds each folder the root lists as a kustomization of its own, so the root's build, which
    test_kubectl_kustomize_builds_the_committed_tree runs for every example (the committed trees
    are these bytes: test_committed_render_is_current), is each layer's build too."""
    for cluster in rendered.iterdir():
        listed = set(_read(cluster / "kustomization.yaml")["resources"])
        # bootstrap/ holds the CNI's Helm values for its first install: no kustomize folder
        folders = [p for p in cluster.iterdir() if p.is_dir() and p.name not in listed | {"bootstrap"}]
        assert cluster / "gitops" in folders
        for folder in folders:
            done = subprocess.run(["kubectl", "kustomize", str(folder)], capture_output=True, encoding="utf-8")
            assert done.returncode == 0, f"{folder}: {done.stderr}"


@pytest.mark.parametrize(
    "edit, message, line",
    [
        (
            "  engine: argocd\n  repository: https://git.example.com/x.git\n  sourceName: flux-system\n",
            "gitops.sourceName is only used with engine flux, but gitops.engine is argocd",
            12,
        ),
        (
            "  engine: flux\n  repository: https://git.example.com/x.git\n  project: team\n",
            "gitops.project is only used with engine argocd, but gitops.engine is flux",
            12,
        ),
        (
            "  engine: flux\n  repository: https://git.example.com/x.git\n  path: rendered/../etc\n",
            "gitops.path 'rendered/../etc' is not a plain repository path",
            12,
        ),
    ],
)
def test_gitops_block_mistakes_are_located(project, run, edit, message, line):
    path = project / "clusters" / "aks-h100-training" / "cluster.yaml"
    text = path.read_text(encoding="utf-8")
    start = text.index("gitops:\n") + len("gitops:\n")
    end = text.index("network:")
    path.write_text(text[:start] + edit + text[end:], encoding="utf-8")
    result = run(project, "render", "aks-h100-training")
    assert result.exit_code == 2
    assert f"clusters/aks-h100-training/cluster.yaml:{line}:" in result.stderr
    assert message in result.stderr
    assert "hint:" in result.stderr


def _helm_releases(root: Path, cluster: str) -> dict[str, dict]:
    found = {}
    for path in (root / "rendered" / cluster / "00-crds-operators").rglob("helmrelease_*.yaml"):
        obj = _read(path)
        found[obj["metadata"]["name"]] = obj
    return found


def test_flux_releases_wait_for_the_cilium_cni(project, run):
    """Where Cilium is the CNI, no other release installs before it is Ready."""
    assert run(project, "render", "aks-h100-training", "ocp-a100-tuned").exit_code == 0
    releases = _helm_releases(project, "aks-h100-training")
    assert "cilium" in releases and "dependsOn" not in releases["cilium"]["spec"]
    others = [r for name, r in releases.items() if name != "cilium"]
    assert others
    for release in others:
        assert {"name": "cilium", "namespace": "flux-system"} in release["spec"]["dependsOn"], release["metadata"]
    # no Cilium release, no dependency on one
    ocp = _helm_releases(project, "ocp-a100-tuned")
    assert ocp and not [r for r in ocp.values() if "cilium" in str(r["spec"].get("dependsOn", []))]


def test_flux_drift_detection_ignores_injected_ca_bundles(project, run):
    assert run(project, "render", "aks-h100-training").exit_code == 0
    for release in _helm_releases(project, "aks-h100-training").values():
        drift = release["spec"]["driftDetection"]
        assert drift["mode"] == "enabled"
        ignored = {(rule["target"]["kind"], path) for rule in drift["ignore"] for path in rule["paths"]}
        for kind in ("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"):
            assert (kind, "/webhooks/0/clientConfig/caBundle") in ignored
            assert (kind, "/webhooks/1/clientConfig/caBundle") in ignored
        assert ("CustomResourceDefinition", "/spec/conversion/webhook/clientConfig/caBundle") in ignored
        assert ("APIService", "/spec/caBundle") in ignored
        assert all(path.startswith("/") for _kind, path in ignored)  # JSON Pointers


def test_argocd_releases_leave_injected_ca_bundles_alone(project, run):
    """selfHeal would otherwise write the chart's caBundle back over the injected one."""
    assert run(project, "render", "eks-mi300x-inference").exit_code == 0
    apps = [
        _read(p)
        for p in (project / "rendered" / "eks-mi300x-inference" / "00-crds-operators").rglob("application_*.yaml")
    ]
    assert apps
    for app in apps:
        rules = {r["kind"]: r for r in app["spec"]["ignoreDifferences"]}
        for kind in ("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"):
            assert rules[kind]["jqPathExpressions"] == [".webhooks[]?.clientConfig.caBundle"]
        assert rules["CustomResourceDefinition"]["jsonPointers"] == ["/spec/conversion/webhook/clientConfig/caBundle"]
        assert rules["APIService"]["jsonPointers"] == ["/spec/caBundle"]
        assert "RespectIgnoreDifferences=true" in app["spec"]["syncPolicy"]["syncOptions"]


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("rendered/aks-nap-h100", "points the engine at cluster aks-nap-h100's tree"),
        ("rendered/nothing-here/x", "points the engine at no tree gpu-gitops renders"),
        ("deploy/aks-h100-training", "points the engine at no tree gpu-gitops renders"),
    ],
)
def test_a_gitops_path_that_is_not_the_clusters_own_tree_is_located(project, run, path, message):
    text = edit_input(project, AKS, "  branch: main\n", f"  branch: main\n  path: {path}\n")
    input_render_fails(run, project, AKS, input_line_of(text, f"  path: {path}"), message, f"write rendered/{AKS}")


def test_a_gitops_path_under_the_projects_folder_renders(project, run):
    edit_input(project, AKS, "  branch: main\n", f"  branch: main\n  path: platform/rendered/{AKS}\n")
    assert run(project, "render", AKS).exit_code == 0


def _git_init(folder: Path) -> None:
    subprocess.run(["git", "init", "-q", str(folder)], check=True, capture_output=True)


def test_in_a_repositorys_subfolder_the_path_starts_with_the_projects_folder(project, run):
    """The project is proj/ of its repository: the default rendered/<name> names a tree the
    engine does not find there; proj/rendered/<name> renders."""
    _git_init(project.parent)
    text = (project / "clusters" / AKS / "cluster.yaml").read_text(encoding="utf-8")
    input_render_fails(
        run,
        project,
        AKS,
        input_line_of(text, "gitops:"),
        f"gitops.path 'rendered/{AKS}' (the default) is not where the engine finds this cluster's tree: "
        f"the project is at the repository's proj/ folder, so its tree is proj/rendered/{AKS}",
        f"set gitops.path: proj/rendered/{AKS}",
    )
    edit_input(project, AKS, "  branch: main\n", f"  branch: main\n  path: proj/rendered/{AKS}\n")
    assert run(project, "render", AKS).exit_code == 0


def test_at_the_top_of_a_repository_the_path_has_no_folder(project, run):
    _git_init(project)
    text = edit_input(project, AKS, "  branch: main\n", f"  branch: main\n  path: platform/rendered/{AKS}\n")
    input_render_fails(
        run,
        project,
        AKS,
        input_line_of(text, f"  path: platform/rendered/{AKS}"),
        f"the project is at the top of its repository, so its tree is rendered/{AKS}",
        f"set gitops.path: rendered/{AKS}",
    )


def test_a_batch_of_clusters_gets_its_gitops_objects_from_one_evaluation_as_each_alone(project, monkeypatch):
    """``cluster.gitops_many``: one Jsonnet call for the batch, each cluster's objects what its
    own evaluation gives."""
    from generator.library import jsonnet
    from generator.render import evaluation
    from generator.render.cluster import gitops_many
    from generator.render.layout import layers_of

    proj = Project(project)
    clusters = [inputs.load_cluster(proj, name) for name in proj.cluster_names()]
    evaluated = list(zip(clusters, evaluation.evaluate_many(proj, clusters), strict=True))
    calls: list[str] = []
    real = jsonnet.evaluate
    monkeypatch.setattr(jsonnet, "evaluate", lambda code, *a, **k: calls.append(code) or real(code, *a, **k))
    together = gitops_many(proj, evaluated)
    assert calls == [gitops.ENTRY_FOR_MANY]
    alone = [gitops.objects(proj, c, layers_of(proj, c, components)) for c, components in evaluated]
    assert together == alone and all(together)


def test_a_cluster_that_hands_a_release_over_gets_its_gitops_objects_after_hydration(project):
    """Its layers' kinds are known only once its releases are shipped as their mode says."""
    from generator.render import evaluation
    from generator.render.cluster import gitops_many

    proj = Project(project)
    cluster = inputs.load_cluster(proj, AKS)
    other = inputs.load_cluster(proj, "gke-l4-inference")
    cluster.spec["gitops"]["charts"] = {"cilium": "hydrated"}
    clusters = [cluster, other]
    found = gitops_many(proj, list(zip(clusters, evaluation.evaluate_many(proj, clusters), strict=True)))
    assert found[0] is None and found[1]
