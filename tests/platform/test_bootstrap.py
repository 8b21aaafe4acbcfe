"""The first Cilium install: the values and command under bootstrap/ are the engine's release, outside every layer."""

from __future__ import annotations

import re
import shlex

import pytest
import yaml
from clusterinput import BASE, replace, write
from conftest import EXAMPLES, REPO, cilium_enabled

from generator.inputs.load import load_cluster
from generator.library import providers
from generator.paths import Project
from generator.render import bootstrap, evaluation, layout

WITH_CILIUM = [name for name in EXAMPLES if cilium_enabled(name)]


def tree_of(root, name):
    project = Project(root)
    cluster = load_cluster(project, name)
    components = evaluation.evaluate(project, cluster)
    return layout.lay_out(project, cluster, components), components


def helm_install(text: str) -> list[str]:
    """The `helm install` command written in the file's header, as argv."""
    (line,) = [line for line in text.splitlines() if line.startswith("#   helm install ")]
    return shlex.split(line[2:])


@pytest.mark.parametrize("name", WITH_CILIUM)
def test_committed_bootstrap_values_and_command_are_the_release(name):
    text = (REPO / "rendered" / name / bootstrap.VALUES_FILE).read_text(encoding="utf-8")
    _, components = tree_of(REPO, name)
    release = bootstrap.cilium_release(components["cilium"])
    assert yaml.safe_load(text) == release.values
    argv = helm_install(text)
    assert argv[:4] == ["helm", "install", release.name, release.chart]
    options = dict(zip(argv[4::2], argv[5::2], strict=True))
    assert options == {
        "--repo": release.repo_url,
        "--version": release.version,
        "--namespace": release.namespace,
        "--values": f"rendered/{name}/{bootstrap.VALUES_FILE}",
    }
    assert (release.name, release.namespace, release.chart) == ("cilium", "kube-system", "cilium")


@pytest.mark.parametrize("engine", ["flux", "argocd"])
def test_values_follow_the_release_for_both_engines(project, engine):
    write(
        project,
        replace(
            "engine: flux",
            f"engine: {engine}",
            replace("    bigTCP: {ipv4: true}\n", "    bigTCP: {ipv4: true}\n    values: {debug: {enabled: true}}\n"),
        ),
    )
    tree, components = tree_of(project, "t")
    values = yaml.safe_load(tree.files[bootstrap.VALUES_FILE])
    assert values == bootstrap.cilium_release(components["cilium"]).values
    assert values["debug"] == {"enabled": True}
    assert ("tls" in values["hubble"]) == (engine == "argocd")


def test_flux_adopts_the_helm_install(project):
    """helm-controller upgrades the release it finds under releaseName in storageNamespace."""
    write(project, BASE)
    _, components = tree_of(project, "t")
    (release,) = [o for o in components["cilium"] if o["kind"] == "HelmRelease"]
    argv = helm_install(
        bootstrap.files("t", providers.facts("generic"), components["cilium"])[bootstrap.VALUES_FILE].decode()
    )
    options = dict(zip(argv[4::2], argv[5::2], strict=True))
    assert (release["spec"]["releaseName"], release["spec"]["storageNamespace"]) == (argv[2], options["--namespace"])


def test_bootstrap_is_in_no_kustomize_layer_and_no_engine_path():
    for name in WITH_CILIUM:
        folder = REPO / "rendered" / name
        for kustomization in folder.rglob("kustomization.yaml"):
            assert "bootstrap" not in yaml.safe_load(kustomization.read_text(encoding="utf-8"))["resources"]
        assert not (folder / "bootstrap" / "kustomization.yaml").exists()
        assert "/bootstrap" not in "".join(p.read_text(encoding="utf-8") for p in (folder / "gitops").glob("*.yaml"))
        assert not list((folder / "bootstrap").glob("*.yaml")), "a *.yaml there would be linted as an object"


def test_no_cilium_no_bootstrap(project):
    write(project, replace("    kubeProxyReplacement: true\n", "    enabled: false\n    kubeProxyReplacement: true\n"))
    tree, _ = tree_of(project, "t")
    assert not [f for f in tree.files if f.startswith("bootstrap/")]


@pytest.mark.parametrize(("kpr", "kube_proxy_step"), [(True, True), (False, False)])
def test_eks_says_what_happens_to_aws_node_and_kube_proxy(project, kpr, kube_proxy_step):
    text = replace(
        "provider: generic",
        "provider: eks",
        replace(
            "      mode: native\n      ipv4NativeRoutingCIDR: 10.244.0.0/16\n",
            "      mode: tunnel\n",
            replace("    bigTCP: {ipv4: true}\n", ""),
        ),
    )
    if not kpr:
        text = text.replace(
            "    kubeProxyReplacement: true\n", "    kubeProxyReplacement: false\n    bpf: {masquerade: false}\n"
        )
    write(project, text)
    tree, _ = tree_of(project, "t")
    header = tree.files[bootstrap.VALUES_FILE].decode()
    assert re.search(r"patch daemonset aws-node .*\n.*io.cilium/aws-node-enabled", header)
    assert ("delete-addon --cluster-name <eks-cluster-name> --addon-name kube-proxy" in header) == kube_proxy_step
    assert header.index("aws-node") < header.index("helm install")


def test_other_providers_have_no_eks_steps():
    assert "aws-node" not in (REPO / "rendered" / "aks-h100-training" / bootstrap.VALUES_FILE).read_text(
        encoding="utf-8"
    )
