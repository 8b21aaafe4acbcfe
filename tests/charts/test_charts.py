"""Charts as locked inputs, inflated offline: `charts pull`, the lock, the cache, `helm template`
as the engines run it, the preview in the tree, and what the review says of a chart bump."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import (
    CHARTS,
    MISMATCHED_DEPLOYMENT,
    REPO,
    copy_repository,
    helm_missing,
    helm_repository,
    needs_helm,
    widget_crd,
)

from generator.charts import helm, inflate, lock, releases, store
from generator.cli import cli

CLUSTER = "aks-h100-training"
CILIUM_CONFIG = "charts/cilium/configmap_kube-system_cilium-config.yaml"


def _git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=ci@example.com", "-c", "user.name=ci", *args],
        cwd=root,
        check=True,
        capture_output=True,
    )


@pytest.fixture(scope="module")
def locked(tmp_path_factory) -> Path:
    """A copy of the project whose charts are locked from ../shared/charts (`charts pull --from`)
    and inflated into its trees, committed in git. The repository itself keeps no lock: its
    examples' trees would then hold the charts' own objects, which are upstream's to publish."""
    reason = helm_missing()
    if reason:
        pytest.skip(reason)
    root = tmp_path_factory.mktemp("locked") / "proj"
    root.mkdir()
    for name in ("clusters", "libsonnet", "schemas"):
        shutil.copytree(REPO / name, root / name)
    shutil.copy(REPO / ".gpu-gitops.yaml", root / ".gpu-gitops.yaml")
    runner = CliRunner()
    # one process: a pool's workers would each compile the schemas again, and the test run's
    # workers already use every CPU (the pool's own output is the same, tests/render/test_parallel.py)
    for args in (["charts", "pull", "--from", str(CHARTS)], ["-q", "render", "--jobs", "1"]):
        result = runner.invoke(cli, ["--root", str(root), "--color", "never", *args], catch_exceptions=False)
        assert result.exit_code == 0, result.output
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "base")
    return root


@pytest.fixture
def committed(locked: Path, tmp_path: Path) -> Path:
    """A clone of ``locked``, as a fresh clone has it: lock, trees with their charts, in git."""
    return copy_repository(locked, tmp_path / "proj")


# --- Helm ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("version", "ok"),
    [("v3.13.3", False), ("v3.14.0", True), ("v3.19.2", True), ("v4.0.0", True), ("v4.1.4", True), ("v5.0.0", False)],
)
def test_supported_helm_versions(version, ok):
    assert helm.supported(version) is ok


def test_no_helm_is_one_error_naming_the_variable(monkeypatch, tmp_path):
    monkeypatch.setenv(helm.ENV, str(tmp_path / "no-such-helm"))
    helm.find.cache_clear()
    try:
        with pytest.raises(Exception) as raised:
            helm.find()
        assert helm.ENV in raised.value.hint  # type: ignore[attr-defined]
    finally:
        helm.find.cache_clear()


@needs_helm()
def test_the_helm_found_says_its_version():
    found = helm.find()
    assert helm.supported(found.version), found


# --- releases as the engines derive them ---------------------------------------------------------


def test_flux_release_name_and_namespace_follow_helm_controller():
    release = {
        "apiVersion": "helm.toolkit.fluxcd.io/v2",
        "kind": "HelmRelease",
        "metadata": {"name": "app", "namespace": "flux-system"},
        "spec": {
            "targetNamespace": "team",
            "install": {"crds": "Skip"},
            "chart": {
                "spec": {"chart": "app", "version": "1.0.0", "sourceRef": {"kind": "HelmRepository", "name": "r"}}
            },
            "values": {"a": {"b": 1}},
        },
    }
    (found,) = releases.find({"c": [helm_repository(), release]})
    # no releaseName: helm-controller names it <targetNamespace>-<name>
    assert (found.name, found.namespace, found.include_crds) == ("team-app", "team", False)
    assert found.repository == "https://charts.example.com"


def test_argocd_release_takes_the_application_name_and_oci_scheme():
    app = {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {"name": "app", "namespace": "argocd"},
        "spec": {
            "source": {"repoURL": "registry.example.com/charts", "chart": "app", "targetRevision": "2.0.0", "helm": {}},
            "destination": {"namespace": "team"},
        },
    }
    (found,) = releases.find({"c": [app]})
    assert (found.name, found.namespace, found.repository) == ("app", "team", "oci://registry.example.com/charts")
    assert found.include_crds  # Argo CD passes --include-crds unless skipCrds


def test_values_merge_like_helm():
    assert releases.merge({"a": {"x": 1, "y": 2}, "l": [1]}, {"a": {"y": 3}, "l": [2]}) == {
        "a": {"x": 1, "y": 3},
        "l": [2],
    }


# --- the lock and the cache ----------------------------------------------------------------------


def test_the_lock_pull_writes_holds_the_packages_digests(locked):
    """Each locked chart's digest is the sha256 of the package it was pulled from, and every
    release the examples render is locked."""
    entries = lock.read(locked / "clusters" / "charts.lock")
    assert {"cilium", "gpu-operator", "nvidia-dra-driver-gpu", "keda", "kueue"} <= {e.chart for e in entries.values()}
    for entry in entries.values():
        data = (CHARTS / f"{entry.chart}-{entry.version}.tgz").read_bytes()
        assert store.digest(data) == entry.digest, entry


@needs_helm()
def test_pull_from_a_folder_fills_the_cache_and_keeps_the_lock(committed, run, own_cache):
    before = (committed / "clusters" / "charts.lock").read_bytes()
    result = run(committed, "charts", "pull", "--from", str(CHARTS))
    assert result.exit_code == 0, result.output
    assert "unchanged" in result.output
    assert (committed / "clusters" / "charts.lock").read_bytes() == before
    for entry in lock.read(committed / "clusters" / "charts.lock").values():
        assert store.read(entry.hex) is not None


@needs_helm()
def test_a_digest_that_differs_from_the_lock_is_refused_naming_both(committed, run, own_cache):
    path = committed / "clusters" / "charts.lock"
    data = json.loads(path.read_text(encoding="utf-8"))
    cilium = next(c for c in data["charts"] if c["chart"] == "cilium")
    real, cilium["digest"] = cilium["digest"], "sha256:" + "0" * 64
    path.write_text(json.dumps(data), encoding="utf-8")
    before = path.read_bytes()
    result = run(committed, "charts", "pull", "--from", str(CHARTS))
    assert result.exit_code == 2
    assert real in result.output and "sha256:" + "0" * 64 in result.output
    assert path.read_bytes() == before  # nothing written
    assert not (own_cache / "charts").exists()  # nothing stored


# --- render, check, diff offline -----------------------------------------------------------------


def test_a_fresh_clone_without_charts_or_helm_is_up_to_date(committed, run, own_cache, monkeypatch):
    """The sum file records the lock's digests, not the cache: no chart, no Helm, no network."""
    monkeypatch.setenv(helm.ENV, str(committed / "no-helm-here"))
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    helm.find.cache_clear()
    result = run(committed, "render")
    assert result.exit_code == 0, result.output
    assert "up to date" in result.output
    assert run(committed, "check").exit_code == 0


def test_an_empty_chart_cache_stops_render_naming_charts_pull(committed, run, own_cache):
    config = committed / "clusters" / CLUSTER / "cluster.yaml"
    config.write_text(
        config.read_text(encoding="utf-8").replace(
            "hubble: {enabled: true, relay: true", "hubble: {enabled: true, relay: false"
        ),
        encoding="utf-8",
    )
    tree = {p: p.read_bytes() for p in (committed / "rendered" / CLUSTER).rglob("*") if p.is_file()}
    result = run(committed, "render", CLUSTER)
    assert result.exit_code == 2, result.output
    assert "gpu-gitops charts pull" in result.output and "not in the chart cache" in result.output
    assert {p: p.read_bytes() for p in (committed / "rendered" / CLUSTER).rglob("*") if p.is_file()} == tree


@needs_helm()
def test_a_hand_edit_to_an_inflated_file_fails_check(committed, run):
    path = committed / "rendered" / CLUSTER / CILIUM_CONFIG
    path.write_text(
        path.read_text(encoding="utf-8").replace("enable-hubble: 'true'", "enable-hubble: 'false'"), encoding="utf-8"
    )
    result = run(committed, "check", CLUSTER)
    assert result.exit_code == 1
    assert CILIUM_CONFIG in result.output


@needs_helm()
def test_the_tree_holds_ciliums_agent_and_config_not_applied_by_any_kustomization(locked):
    tree = locked / "rendered" / CLUSTER
    assert (tree / CILIUM_CONFIG).is_file()
    assert (tree / "charts/cilium/daemonset_kube-system_cilium.yaml").is_file()
    root = (tree / "kustomization.yaml").read_text(encoding="utf-8")
    assert "charts" not in root
    secret = (tree / "charts/cilium/secret_kube-system_cilium-ca.yaml").read_text(encoding="utf-8")
    assert "BEGIN" not in secret and "ca.key:" in secret  # keys shown, values never committed


@needs_helm()
@pytest.mark.skipif(not shutil.which("unshare"), reason="no unshare to run render without a network")
def test_render_makes_no_network_connection(locked, committed, tmp_path):
    """Render in a new network namespace (no interface but a down loopback): a connection would fail."""
    probe = subprocess.run(["unshare", "-rn", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("unshare -rn is not permitted here")
    cache = tmp_path / "cache"  # the test's cache: the run's content-addressed chart store, linked
    shutil.copytree(os.environ["GPU_GITOPS_CACHE_DIR"], cache, symlinks=True)
    shutil.rmtree(committed / "rendered" / CLUSTER)
    env = {**os.environ, "GPU_GITOPS_CACHE_DIR": str(cache)}
    done = subprocess.run(
        [
            "unshare",
            "-rn",
            sys.executable,
            "-c",
            "from generator.cli import main; main()",
            "--root",
            str(committed),
            "render",
            CLUSTER,
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 0, done.stderr + done.stdout
    assert (committed / "rendered" / CLUSTER / CILIUM_CONFIG).read_bytes() == (
        locked / "rendered" / CLUSTER / CILIUM_CONFIG
    ).read_bytes()


@needs_helm()
def test_render_opens_no_socket_in_process(committed, run, monkeypatch):
    """The same, for the Python process itself: any socket it opened would raise here."""
    shutil.rmtree(committed / "rendered" / CLUSTER)

    def refuse(*args, **kwargs):
        raise AssertionError("render opened a socket")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    result = run(committed, "render", CLUSTER)
    assert result.exit_code == 0, result.output
    assert (committed / "rendered" / CLUSTER / CILIUM_CONFIG).is_file()


# --- inflation -----------------------------------------------------------------------------------


def _chart(tmp_path: Path, template: str) -> bytes:
    """A one-template chart package."""
    folder = tmp_path / "pkg" / "demo"
    (folder / "templates").mkdir(parents=True)
    (folder / "Chart.yaml").write_text("apiVersion: v2\nname: demo\nversion: 1.0.0\n", encoding="utf-8")
    (folder / "templates" / "t.yaml").write_text(template, encoding="utf-8")
    target = tmp_path / "demo-1.0.0.tgz"
    with tarfile.open(target, "w:gz") as archive:
        archive.add(folder, arcname="demo")
    return target.read_bytes()


def _release(**values) -> releases.Release:
    return releases.Release(
        "demo", "team", "https://charts.example.com", "demo", "1.0.0", values, True, "flux", "c", "x"
    )


FACTS = inflate.Facts("1.32", (), frozenset())


@needs_helm()
def test_inflation_is_cached_by_its_inputs(tmp_path, own_cache, monkeypatch):
    data = _chart(
        tmp_path, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  v: {{ .Values.v | quote }}\n"
    )
    store.add(data)
    entry = lock.Entry("https://charts.example.com", "demo", "1.0.0", store.digest(data))
    first = inflate.inflate(_release(v="1"), entry, FACTS)
    assert first == [
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "team"}, "data": {"v": "1"}}
    ]
    calls = []
    monkeypatch.setattr(helm, "template", lambda *a: calls.append(a) or "")
    assert inflate.inflate(_release(v="1"), entry, FACTS) == first
    assert not calls  # the same inputs: from the cache
    inflate.inflate(_release(v="2"), entry, FACTS)
    assert calls  # other values: Helm again


@needs_helm()
def test_a_chart_that_renders_differently_each_time_is_refused(tmp_path, own_cache):
    data = _chart(
        tmp_path, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  v: {{ randAlphaNum 8 | quote }}\n"
    )
    store.add(data)
    entry = lock.Entry("https://charts.example.com", "demo", "1.0.0", store.digest(data))
    with pytest.raises(Exception, match="renders differently each time"):
        inflate.inflate(_release(), entry, FACTS)


@needs_helm()
def test_secret_values_are_never_kept(tmp_path, own_cache):
    data = _chart(
        tmp_path, "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ndata:\n  key: {{ randAlphaNum 8 | b64enc }}\n"
    )
    store.add(data)
    entry = lock.Entry("https://charts.example.com", "demo", "1.0.0", store.digest(data))
    (secret,) = inflate.inflate(_release(), entry, FACTS)
    assert secret["data"] == {"key": inflate.REDACTED_B64}


@needs_helm()
def test_capabilities_are_the_clusters(tmp_path, own_cache):
    """--kube-version and --api-versions: what the chart sees is the cluster's version and APIs."""
    data = _chart(
        tmp_path,
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n"
        "  minor: {{ .Capabilities.KubeVersion.Minor | quote }}\n"
        '  dra: {{ .Capabilities.APIVersions.Has "resource.k8s.io/v1/DeviceClass" | quote }}\n',
    )
    store.add(data)
    entry = lock.Entry("https://charts.example.com", "demo", "1.0.0", store.digest(data))
    old = inflate.inflate(_release(), entry, inflate.Facts("1.32", (), frozenset()))
    new = inflate.inflate(_release(), entry, inflate.Facts("1.34", ("resource.k8s.io/v1/DeviceClass",), frozenset()))
    assert old[0]["data"] == {"minor": "32", "dra": "false"}
    assert new[0]["data"] == {"minor": "34", "dra": "true"}


_TEMPLATED_CRDS = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
spec:
  group: example.com
  names: {kind: Gadget, plural: gadgets}
  scope: Namespaced
  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gizmos.example.com
spec:
  group: example.com
  names: {kind: Gizmo, plural: gizmos}
  scope: Cluster
  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]
---
apiVersion: example.com/v1
kind: Gizmo
metadata:
  name: g
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: c
data:
  gadgets: {{ .Capabilities.APIVersions.Has "example.com/v1/Gadget" | quote }}
"""


@needs_helm()
def test_the_crds_a_chart_creates_from_templates_are_served_apis(tmp_path, own_cache):
    """A chart's templated CRDs (KEDA's, Kueue's) are served once the tree is applied: the chart
    sees them in .Capabilities.APIVersions, and their cluster-scoped kinds get no namespace."""
    from types import SimpleNamespace

    from generator.paths import Project
    from generator.render.charts import previews

    data = _chart(tmp_path, _TEMPLATED_CRDS)
    store.add(data)
    root = tmp_path / "proj"
    (root / "clusters").mkdir(parents=True)
    entry = lock.Entry("https://charts.example.com", "demo", "1.0.0", store.digest(data))
    lock.write(root / "clusters" / "charts.lock", {entry.key: entry})
    repository = helm_repository()
    release = {
        "apiVersion": "helm.toolkit.fluxcd.io/v2",
        "kind": "HelmRelease",
        "metadata": {"name": "demo", "namespace": "flux-system"},
        "spec": {
            "targetNamespace": "team",
            "releaseName": "demo",
            "chart": {
                "spec": {"chart": "demo", "version": "1.0.0", "sourceRef": {"kind": "HelmRepository", "name": "r"}}
            },
        },
    }
    cluster = SimpleNamespace(spec={"kubernetesVersion": "1.32"}, folder=root / "clusters" / "c")
    objects = previews(Project(root), cluster, {"demo": [repository, release]}).folders["charts/demo"]
    by_kind = {o["kind"]: o for o in objects}
    assert by_kind["ConfigMap"]["data"] == {"gadgets": "true"}
    assert "namespace" not in by_kind["Gizmo"]["metadata"]


# --- review of a chart bump ----------------------------------------------------------------------


@needs_helm()
def test_a_cilium_bump_lists_config_and_agent_changes_with_the_pools_they_roll(committed, run):
    config = committed / "clusters" / CLUSTER / "cluster.yaml"
    config.write_text(
        config.read_text(encoding="utf-8").replace("  cilium:\n", "  cilium:\n    version: 1.19.5\n", 1),
        encoding="utf-8",
    )
    assert run(committed, "charts", "pull", "--from", str(CHARTS)).exit_code == 0
    assert run(committed, "render", CLUSTER).exit_code == 0
    result = run(committed, "diff", "--base", "HEAD", "--format", "markdown")
    assert result.exit_code == 1
    text = result.output
    assert "ConfigMap kube-system/cilium-config" in text
    assert "rolls DaemonSet kube-system/cilium's pods on pools system, h100, l40s" in text
    checked = run(committed, "check", "--base", "HEAD")
    assert checked.exit_code == 1  # a rollout of every node is a danger to acknowledge


@needs_helm()
def test_lint_cluster_reads_the_device_classes_the_driver_chart_creates(locked, tmp_path):
    """From the inflated chart, not the library's copy of its list: what the preview does not
    create is not offered (the driver also installs vfio.gpu.nvidia.com, which the copy lacks)."""
    from generator.contract.build import build
    from generator.inputs.load import load_cluster
    from generator.paths import Project

    tree = shutil.copytree(locked / "rendered" / "onprem-gb200-dra", tmp_path / "tree")
    for path in (tree / "charts" / "nvidia-dra-driver-gpu").glob("deviceclass_compute-domain-*.yaml"):
        path.unlink()
    contract = build(load_cluster(Project(locked), "onprem-gb200-dra"), tree)
    assert "vfio.gpu.nvidia.com" in contract.device_classes
    assert "gpu.nvidia.com" in contract.device_classes
    assert not [c for c in contract.device_classes if c.startswith("compute-domain")]


# --- hydrated mode and the hand-over ---------------------------------------------------------------


def _modes(root: Path, cluster: str, **modes: str) -> None:
    """Set ``gitops.charts`` of a cluster's input (its own file, under ``gitops:``)."""
    config = root / "clusters" / cluster / "cluster.yaml"
    text = config.read_text(encoding="utf-8")
    block = "".join(f"\n    {release}: {mode}" for release, mode in modes.items())
    text = re.sub(r"\n  charts:(\n    [^\n]*)*", "", text)
    if "\ngitops:\n" in text:
        text = text.replace("\ngitops:\n", f"\ngitops:\n  charts:{block}\n", 1)
    else:  # the engine is set in a base: the cluster's own gitops block merges over it
        text += f"gitops:\n  charts:{block}\n"
    config.write_text(text, encoding="utf-8")


def _commit(root: Path, message: str) -> None:
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", message)


@needs_helm()
def test_a_hydrated_release_replaces_its_engine_object_with_the_charts_objects_in_its_layer(committed, run):
    tree = committed / "rendered" / CLUSTER
    preview = {
        p.name: p.read_bytes() for p in (tree / "charts" / "keda").glob("*.yaml") if p.name != "kustomization.yaml"
    }
    _modes(committed, CLUSTER, keda="hydrated")
    assert run(committed, "render", CLUSTER).exit_code == 0
    folder = tree / "00-crds-operators" / "keda"
    assert not (tree / "charts" / "keda").exists()
    assert not (folder / "helmrelease_flux-system_keda.yaml").exists()
    assert not (folder / "helmrepository_flux-system_keda.yaml").exists()
    for name, data in preview.items():  # byte for byte the reviewed objects, CRDs in the CRD layer
        assert (folder / name).read_bytes() == data, name
    assert "customresourcedefinition_scaledobjects.keda.sh.yaml" in preview
    assert "deployment_keda_keda-operator.yaml" in preview  # namespaced, in the release's namespace
    namespace = (folder / "namespace_keda.yaml").read_text(encoding="utf-8")
    assert "kustomize.toolkit.fluxcd.io/prune: disabled" in namespace  # the engine created it; never pruned
    assert "keda" in (tree / "00-crds-operators" / "kustomization.yaml").read_text(encoding="utf-8")
    if shutil.which("kubectl"):
        built = subprocess.run(["kubectl", "kustomize", str(tree)], capture_output=True, encoding="utf-8")
        assert built.returncode == 0, built.stderr
        assert "name: keda-operator\n" in built.stdout
    _commit(committed, "keda: hydrated")
    assert run(committed, "check", CLUSTER).exit_code == 0


@needs_helm()
def test_switching_to_hydrated_without_the_hand_over_is_a_danger_and_through_it_is_not(committed, run):
    _modes(committed, CLUSTER, keda="hydrated")
    assert run(committed, "render", CLUSTER).exit_code == 0
    direct = run(committed, "diff", "--base", "HEAD", "--format", "markdown").output
    assert "switches HelmRelease flux-system/keda's release to hydrated without the hand-over" in direct
    assert "moves CustomResourceDefinition scaledobjects.keda.sh" not in direct  # never applied from the preview

    _modes(committed, CLUSTER, keda="handover")
    assert run(committed, "render", CLUSTER).exit_code == 0
    release = committed / "rendered" / CLUSTER / "00-crds-operators" / "keda" / "helmrelease_flux-system_keda.yaml"
    assert "suspend: true" in release.read_text(encoding="utf-8")
    operator = committed / "rendered" / CLUSTER / "00-crds-operators" / "keda" / "deployment_keda_keda-operator.yaml"
    text = operator.read_text(encoding="utf-8")
    assert "meta.helm.sh/release-name: keda" in text and "kustomize.toolkit.fluxcd.io/prune: disabled" in text
    step = run(committed, "diff", "--base", "HEAD", "--format", "markdown").output
    assert "hands HelmRelease flux-system/keda's release over" in step
    assert "without the hand-over" not in step
    _commit(committed, "keda: hand-over")

    _modes(committed, CLUSTER, keda="hydrated")
    assert run(committed, "render", CLUSTER).exit_code == 0
    done = run(committed, "diff", "--base", "HEAD", "--format", "markdown").output
    assert "hydrates HelmRelease flux-system/keda's release" in done and "delete helmrelease keda" in done
    assert "without the hand-over" not in done
    _commit(committed, "keda: hydrated")

    _modes(committed, CLUSTER, keda="preview")
    assert run(committed, "render", CLUSTER).exit_code == 0
    back = run(committed, "diff", "--base", "HEAD", "--format", "markdown")
    assert "switches HelmRelease flux-system/keda's release back to preview without the hand-over" in back.output
    assert run(committed, "check", "--base", "HEAD").exit_code == 1  # a danger to acknowledge


@needs_helm()
def test_the_argocd_hand_over_stops_automated_sync_and_a_hydrated_cilium_bootstraps_from_its_folder(committed, run):
    cluster = "eks-mi300x-inference"
    _modes(committed, cluster, keda="handover", cilium="hydrated")
    assert run(committed, "render", cluster).exit_code == 0
    tree = committed / "rendered" / cluster
    keda = (tree / "00-crds-operators" / "keda" / "application_argocd_keda.yaml").read_text(encoding="utf-8")
    assert "automated" not in keda and "selfHeal" not in keda
    assert "argocd.argoproj.io/sync-options: Prune=false,Delete=false" in (
        tree / "00-crds-operators" / "keda" / "deployment_keda_keda-operator.yaml"
    ).read_text(encoding="utf-8")
    assert not (tree / "bootstrap" / "cilium-values").exists()
    install = (tree / "bootstrap" / "cilium-install").read_text(encoding="utf-8")
    assert f"kubectl apply --server-side -k rendered/{cluster}/00-crds-operators/cilium" in install
    assert (tree / "00-crds-operators" / "cilium" / "daemonset_kube-system_cilium.yaml").is_file()
    review = run(committed, "diff", "--base", "HEAD", "--format", "markdown").output
    assert "switches Application argocd/cilium's release to hydrated without the hand-over" in review


@needs_helm()
def test_hydrating_a_release_whose_chart_renders_secret_values_is_refused(committed, run):
    _modes(committed, CLUSTER, cilium="hydrated")  # Hubble's certificates, generated by the chart
    result = run(committed, "render", CLUSTER)
    assert result.exit_code == 2
    assert f"clusters/{CLUSTER}/cluster.yaml:" in result.output
    assert "renders Secret" in result.output and "never written to the tree" in result.output


@needs_helm()
def test_hydrating_a_release_whose_chart_renders_hooks_is_refused(committed, run):
    """The GPU Operator's pre-delete clean-up Job, applied by a layer, would run at once."""
    _modes(committed, CLUSTER, **{"gpu-operator": "handover"})
    result = run(committed, "render", CLUSTER)
    assert result.exit_code == 2
    assert f"clusters/{CLUSTER}/cluster.yaml:" in result.output
    assert "renders Helm hooks" in result.output and "(pre-delete)" in result.output


@needs_helm()
def test_a_mode_for_a_release_the_cluster_does_not_inflate_is_one_input_error(committed, run):
    _modes(committed, CLUSTER, nosuch="hydrated")
    result = run(committed, "render", CLUSTER)
    assert result.exit_code == 2
    assert f"clusters/{CLUSTER}/cluster.yaml:" in result.output and "'nosuch'" in result.output
    assert "keda" in result.output  # the releases it could name


@needs_helm()
def test_a_tree_rendered_before_the_lock_is_stale_once_the_lock_exists(tmp_path, run, own_cache):
    """Its releases were not inflated for want of a lock: the sum file says so, and the lock
    `charts pull` writes then makes the tree stale (it must hold the charts' objects now)."""
    root = tmp_path / "proj"
    root.mkdir()
    for name in ("clusters", "libsonnet", "schemas"):
        shutil.copytree(REPO / name, root / name)
    shutil.copy(REPO / ".gpu-gitops.yaml", root / ".gpu-gitops.yaml")
    cluster = "gke-l4-inference"
    assert run(root, "-q", "render", cluster).exit_code == 0
    assert "chart none  clusters/charts.lock" in (root / "rendered" / cluster / ".gpu-gitops.sum").read_text(
        encoding="utf-8"
    )
    _git(root, "init", "-q")
    _commit(root, "no lock")
    assert run(root, "check", cluster).exit_code == 0
    assert run(root, "charts", "pull", "--from", str(CHARTS)).exit_code == 0
    _commit(root, "lock")
    checked = run(root, "check", cluster)
    assert checked.exit_code == 1, checked.output
    assert cluster in checked.output


# --- chart CRDs as schemas --------------------------------------------------------------------------


def test_the_crds_a_chart_installs_are_the_schemas_of_the_custom_resources_at_that_version():
    from generator.render.charts import Previews, crd_schemas
    from generator.validate.validator import SchemaValidator

    def crd(modes: list[str]) -> dict:
        spec = {"type": "object", "properties": {"mode": {"type": "string", "enum": modes}}}
        return widget_crd("charted.example.com", {"type": "object", "properties": {"spec": spec}})

    def widget(mode: str) -> dict:
        meta = {"name": "w", "namespace": "default"}
        return {"apiVersion": "charted.example.com/v1", "kind": "Widget", "metadata": meta, "spec": {"mode": mode}}

    base = SchemaValidator("1.32")
    assert [p.kind for p in base.check(widget("fast"))] == ["missing-schema"]
    old = base.with_schemas(crd_schemas(Previews(folders={"charts/widgets": [crd(["fast", "slow"])]})))
    assert old.check(widget("fast")) == []
    new = old.with_schemas(crd_schemas(Previews(folders={"charts/widgets": [crd(["slow"])]})))
    (problem,) = new.check(widget("fast"))  # exactly the installed version's schema
    assert problem.kind == "invalid" and problem.path == ("spec", "mode")
    assert old.check(widget("fast")) == [] and [p.kind for p in base.check(widget("fast"))] == ["missing-schema"]
    assert [p.kind for p in old.check({**widget("fast"), "extra": 1})] == ["invalid"]  # strict, as imported


@needs_helm()
def test_every_privileged_chart_container_is_listed_with_why(locked):
    """docs/charts.md lists each release's privileged containers (of the examples) with the reason:
    a chart bump that brings one, or drops one, fails here until the table says so."""
    from generator.yamlio.read import load

    found = set()
    for path in (locked / "rendered").glob("*/charts/*/*.yaml"):
        obj = load(path.read_text(encoding="utf-8"))
        spec = ((obj.get("spec") or {}).get("template") or {}).get("spec") or {}
        for container in (spec.get("initContainers") or []) + (spec.get("containers") or []):
            if (container.get("securityContext") or {}).get("privileged") is True:
                workload = f"{obj['kind']} {obj['metadata'].get('namespace', '')}/{obj['metadata']['name']}"
                found.add((path.parent.name, workload, container["name"]))
    text = (REPO / "docs" / "charts.md").read_text(encoding="utf-8")
    section = text.split("## Privileged chart pods", 1)[1].split("\n## ", 1)[0]
    listed = set()
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 4 and cells[0] != "release" and not set(cells[0]) <= {"-"}:
            listed |= {(cells[0], cells[1], c.strip()) for c in cells[2].split(",")}
    assert found == listed


# --- a fleet's shared inflations ---------------------------------------------------------------------


@needs_helm()
def test_an_inflations_yaml_is_cached_beside_it_under_the_emitters_identity(tmp_path, own_cache, monkeypatch):
    from generator.yamlio import emit

    data = _chart(tmp_path, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  v: 'on'\n")
    store.add(data)
    entry = lock.Entry("https://charts.example.com", "demo", "1.0.0", store.digest(data))
    objects = inflate.inflate(_release(), entry, FACTS)
    assert inflate.texts(objects) == [emit.to_yaml(o) for o in objects]
    monkeypatch.setattr(inflate, "_TEXTS", {})  # as a new process finds it
    monkeypatch.setattr(emit, "_ONCE", {})
    monkeypatch.setattr(emit, "to_yaml", lambda obj: pytest.fail("emitted again"))
    assert inflate.texts(objects) == [
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: team\ndata:\n  v: 'on'\n"
    ]
    monkeypatch.setattr(inflate, "_TEXTS", {})  # a new process of another emitter
    monkeypatch.setattr(emit, "_ONCE", {})
    monkeypatch.setattr(inflate, "_emitter", lambda: "another emitter")
    with pytest.raises(pytest.fail.Exception, match="emitted again"):
        inflate.texts(objects)  # another emitter's bytes are never taken


@needs_helm()
def test_an_object_two_inflations_share_is_emitted_once(tmp_path, own_cache, monkeypatch):
    """A chart's CRD is the same in every inflation of it, whatever the values: a fleet emits it once."""
    from generator.yamlio import emit

    template = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n  v: 'on'\n  count: {n}\n"
    data = _chart(
        tmp_path, template.format(name="shared", n="1") + "---\n" + template.format(name="own", n="{{ .Values.n }}")
    )
    store.add(data)
    entry = lock.Entry("https://charts.example.com", "demo", "1.0.0", store.digest(data))
    emitted: list[str] = []
    real = emit.to_yaml
    monkeypatch.setattr(emit, "_ONCE", {})
    monkeypatch.setattr(emit, "to_yaml", lambda obj: emitted.append(obj["metadata"]["name"]) or real(obj))
    first = inflate.inflate(_release(n=2), entry, FACTS)
    second = inflate.inflate(_release(n="'2'"), entry, FACTS)
    assert [o["data"]["count"] for o in first + second] == [2, 1, "2", 1]
    texts = inflate.texts(first) + inflate.texts(second)
    assert sorted(emitted) == ["own", "own", "shared"]
    assert texts == [real(o) for o in first + second]
    assert texts[0] != texts[2]  # the same but for a value's type: each its own text


def test_a_shared_chart_objects_rule_findings_are_each_clusters_own(monkeypatch):
    """A chart object shared by clusters is checked once per settings; each cluster's finding is at
    its own file, at the line and column a check of that file alone gives."""
    from types import SimpleNamespace

    from generator.render import checks
    from generator.render.layout import MARKER, Placed, Tree
    from generator.yamlio.emit import to_yaml

    deployment = MISMATCHED_DEPLOYMENT
    relpath = "charts/demo/deployment_team_d.yaml"

    def findings(cluster: str) -> list:
        text = MARKER.format(cluster=cluster) + to_yaml(deployment)
        tree = Tree(cluster, {relpath: text.encode()}, [Placed(relpath, deployment, "charts/demo")])
        spec = SimpleNamespace(spec={"kubernetesVersion": "1.32"}, facts=None)
        return checks.lint_rules(tree, spec, f"rendered/{cluster}")

    checks._SHARED_RESULTS.clear()
    first = findings("a-cluster-with-a-long-name")
    import generator.lint

    checked = generator.lint.object_result
    monkeypatch.setattr(generator.lint, "object_result", lambda *a: pytest.fail("checked again"))
    second = findings("b")
    monkeypatch.setattr(generator.lint, "object_result", checked)
    checks._SHARED_RESULTS.clear()
    alone = findings("b")
    assert [f.rule for f in first] == ["K8S006"]
    assert first[0].file == f"rendered/a-cluster-with-a-long-name/{relpath}"
    assert second == alone and second[0].file == f"rendered/b/{relpath}"
    assert (second[0].line, second[0].col) == (first[0].line, first[0].col)


def test_a_schema_overlay_shares_the_compiled_kinds_of_its_validator():
    """The validators of a fleet's clusters that install different charts compile each core kind once."""
    from generator.validate.validator import SchemaValidator

    base = SchemaValidator("1.32")
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": []}}
    overlay = base.with_schemas({("charted.example.com/v1", "Widget"): {"type": "object"}})
    assert overlay.check(pod) == base.check(pod)
    assert overlay._validator_for("v1", "Pod") is base._validator_for("v1", "Pod")
    assert base._validator_for("charted.example.com/v1", "Widget") is None  # the overlay's own
    assert overlay._validator_for("charted.example.com/v1", "Widget") is not None


def test_lint_of_a_rendered_tree_checks_custom_resources_against_the_crds_its_charts_install(tmp_path, own_cache, run):
    """As render does: the CRD in the tree's chart preview is the Widget's schema, at that version."""
    from generator.yamlio.emit import to_yaml

    spec = {"type": "object", "properties": {"mode": {"type": "string", "enum": ["slow"]}}}
    crd = widget_crd("charted.example.com", {"type": "object", "properties": {"spec": spec}})
    tree = tmp_path / "rendered" / "c"
    (tree / "charts" / "widgets").mkdir(parents=True)
    (tree / "00-apps" / "team").mkdir(parents=True)
    (tree / ".gpu-gitops.sum").write_text("", encoding="utf-8")
    (tree / "charts" / "widgets" / "customresourcedefinition_widgets.charted.example.com.yaml").write_text(
        to_yaml(crd), encoding="utf-8"
    )

    for broken in ("spec: [", "- a list", "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"):
        name = f"customresourcedefinition_broken{len(broken)}.example.com.yaml"
        (tree / "charts" / "widgets" / name).write_text(broken, encoding="utf-8")  # no schema, no crash

    def lint(mode: str):
        meta = {"name": "w", "namespace": "default"}
        widget = {"apiVersion": "charted.example.com/v1", "kind": "Widget", "metadata": meta, "spec": {"mode": mode}}
        (tree / "00-apps" / "team" / "widget_default_w.yaml").write_text(to_yaml(widget), encoding="utf-8")
        return run(tmp_path, "lint", "--format", "json", str(tree / "00-apps"))

    refused = lint("fast")
    assert refused.exit_code == 1 and "spec.mode" in refused.stdout and "K8S004" not in refused.stdout
    assert "Traceback" not in refused.output
    accepted = lint("slow")
    assert accepted.exit_code == 0 and "K8S004" not in accepted.stdout, accepted.output
