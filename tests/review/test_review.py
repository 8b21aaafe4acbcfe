"""``diff --base`` and ``check --base``: the rendered objects committed at a base revision against
the work tree's, per cluster and object identity, each change classified; a dangerous change
fails the gate unless a commit of the change (or a flag) acknowledges it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import REPO, copy_repository, widget_crd

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]
AKS = "aks-h100-training"
ARGO = "onprem-mi300x-operator"


def _git(root: Path, *args: str) -> None:
    subprocess.run([*GIT, *args], cwd=root, check=True, capture_output=True)


@pytest.fixture(scope="module")
def base_repo(tmp_path_factory, strict_render) -> Path:
    """The examples rendered (the run's one render) and committed once; each test works on a copy."""
    source, result = strict_render
    assert result.exit_code == 0, result.output
    root = Path(shutil.copytree(source, tmp_path_factory.mktemp("review") / "proj"))
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "base")
    return root


@pytest.fixture
def repo(base_repo, tmp_path) -> Path:
    return copy_repository(base_repo, tmp_path / "proj")


def _review(run, root: Path, *extra: str) -> tuple[int, dict]:
    result = run(root, "diff", "--base", "HEAD", "--format", "json", *extra)
    return result.exit_code, json.loads(result.stdout)


def _cluster(document: dict, name: str) -> dict:
    return next(c for c in document["clusters"] if c["name"] == name)


def _findings(cluster: dict) -> list[tuple[str, str, str, str]]:
    """(level, action, kind, name) of every finding."""
    return [
        (f["level"], c["action"], c["object"]["kind"], c["object"]["name"])
        for c in cluster["changes"]
        for f in c["findings"]
    ]


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _input(root: Path, cluster: str = AKS) -> Path:
    return root / "clusters" / cluster / "cluster.yaml"


def _tree(root: Path, cluster: str = AKS) -> Path:
    return root / "rendered" / cluster


# --- the suite of changes ------------------------------------------------------------------


def test_a_layer_move_is_a_delete_and_create_and_dangerous_for_an_admission_policy(repo, run):
    _edit(
        repo / "libsonnet" / "registry.json",
        '"admission", "layer": "10-platform"',
        '"admission", "layer": "20-workloads"',
    )
    assert run(repo, "-q", "render", AKS).exit_code == 0
    code, doc = _review(run, repo)
    assert code == 1
    cluster = _cluster(doc, AKS)
    moved = [c for c in cluster["changes"] if c["action"] == "moved"]
    assert {c["object"]["kind"] for c in moved} == {"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"}
    assert moved[0]["before"].startswith("10-platform/admission/") and moved[0]["after"].startswith(
        "20-workloads/admission/"
    )
    assert ("danger", "moved", "ValidatingAdmissionPolicy", "gpu-pod-guardrails") in _findings(cluster)
    reasons = [f["reason"] for c in moved for f in c["findings"]]
    assert any("delete and a create" in r and "guardrail" in r for r in reasons)
    assert cluster["blocking"] is True


def test_a_crd_removal_is_dangerous(repo, run):
    crd = _tree(repo) / "10-platform" / "admission" / "customresourcedefinition_widgets.example.com.yaml"
    crd.write_text(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\n"
        "spec:\n  group: example.com\n  names: {kind: Widget, plural: widgets}\n  scope: Namespaced\n"
        "  versions: [{name: v1, served: true, storage: true}]\n",
        encoding="utf-8",
    )
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "a CRD")
    crd.unlink()
    code, doc = _review(run, repo)
    assert code == 1
    (finding,) = _cluster(doc, AKS)["changes"][0]["findings"]
    assert finding["level"] == "danger" and "deletes every custom resource of its kind" in finding["reason"]


def _strip_prune_protection(path: Path) -> None:
    """The object as rendered before it was protected from pruning."""

    def strip(obj: dict) -> None:
        annotations = obj["metadata"].pop("annotations")
        annotations.pop("kustomize.toolkit.fluxcd.io/prune", None)
        annotations.pop("argocd.argoproj.io/sync-options", None)
        if annotations:
            obj["metadata"]["annotations"] = annotations

    _rewrite(path, strip)


def test_cilium_disabled_leaves_the_prune_protected_cni_running_unmanaged_a_danger(repo, run):
    _edit(_input(repo), "  cilium:\n", "  cilium:\n    enabled: false\n")
    _edit(_input(repo), "network:\n", "network:\n  apiServerCIDRs: [10.0.0.1/32]\n")  # policies without Cilium
    _edit(_input(repo), '    allowEgressToFQDNs: [huggingface.co, "*.huggingface.co", "*.hf.co"]\n', "")
    assert run(repo, "-q", "render", AKS).exit_code == 0
    code, doc = _review(run, repo)
    cluster = _cluster(doc, AKS)
    assert ("danger", "removed", "HelmRelease", "cilium") in _findings(cluster)
    reason = next(f["reason"] for c in cluster["changes"] for f in c["findings"] if c["object"]["name"] == "cilium")
    assert "prune is disabled on it: the engine leaves the CNI running unmanaged" in reason
    assert cluster["input"]["line"] == _line(repo, "  apiServerCIDRs: [10.0.0.1/32]")  # the first changed key


def test_an_unprotected_cni_release_that_leaves_git_is_dangerous(repo, run):
    release = _tree(repo) / "00-crds-operators" / "cilium" / "helmrelease_flux-system_cilium.yaml"
    _strip_prune_protection(release)
    _git(repo, "commit", "-qam", "an older render: no prune protection")
    release.unlink()
    code, doc = _review(run, repo)
    (change,) = _cluster(doc, AKS)["changes"]
    assert [f["level"] for f in change["findings"]] == ["danger"]
    assert "helm-controller uninstalls the release: it is the CNI" in change["findings"][0]["reason"]


def test_cilium_removed_from_argo_cd_is_kept_or_left_running_unmanaged(repo, run):
    _edit(_input(repo, ARGO), "  cilium:\n", "  cilium:\n    enabled: false\n")
    assert run(repo, "-q", "render", ARGO).exit_code == 0
    code, doc = _review(run, repo)
    cluster = _cluster(doc, ARGO)
    assert _findings(cluster) == [("danger", "removed", "Application", "cilium")]
    assert cluster["blocking"] is True
    application = _tree(repo, ARGO) / "00-crds-operators" / "cilium" / "application_argocd_cilium.yaml"
    subprocess.run(["git", "checkout", "HEAD", "--", str(application)], cwd=repo, check=True)
    _strip_prune_protection(application)
    _git(repo, "commit", "-qm", "an older render: no prune protection", "--", str(application))
    application.unlink()
    code, doc = _review(run, repo)
    (finding,) = [f for c in _cluster(doc, ARGO)["changes"] for f in c["findings"]]
    assert finding["level"] == "notice" and "keep running, unmanaged" in finding["reason"]


def test_a_renamed_namespace_keeps_the_prune_protected_old_one(repo, run):
    _edit(_input(repo), "  - namespace: gpu-training\n", "  - namespace: gpu-train\n")
    _edit(_input(repo), "ncclTestNamespace: gpu-training", "ncclTestNamespace: gpu-train")
    assert run(repo, "-q", "render", AKS).exit_code == 0
    code, doc = _review(run, repo)
    cluster = _cluster(doc, AKS)
    assert ("notice", "removed", "Namespace", "gpu-training") in _findings(cluster)
    # the namespace's queues go with it (jobs queued there would wait for ever), and the kept
    # namespace's pods leave the GPU admission binding
    dangers = {
        (c["object"]["kind"], f["rule"]) for c in cluster["changes"] for f in c["findings"] if f["level"] == "danger"
    }
    assert dangers == {
        ("ClusterQueue", "queue"),
        ("LocalQueue", "queue"),
        ("ValidatingAdmissionPolicyBinding", "admission"),
    }
    assert cluster["blocking"]
    added = {(c["object"]["kind"], c["object"]["name"]) for c in cluster["changes"] if c["action"] == "added"}
    assert ("Namespace", "gpu-train") in added
    lines = _input(repo).read_text(encoding="utf-8").splitlines()
    edited = {lines.index("  - namespace: gpu-train") + 1, lines.index("fabric: {ncclTestNamespace: gpu-train}") + 1}
    assert cluster["input"]["line"] in edited


def test_a_changed_storage_class_of_local_volumes_is_dangerous(repo, run):
    _edit(_input(repo), "storageClass: local-nvme\n", "storageClass: local-nvme-fast\n")
    assert run(repo, "-q", "render", AKS).exit_code == 0
    code, doc = _review(run, repo)
    assert ("danger", "removed", "StorageClass", "local-nvme") in _findings(_cluster(doc, AKS))


def test_a_persistent_volume_class_or_source_change_is_dangerous(repo, run):
    pv = _tree(repo) / "40-per-node" / "local-storage" / "persistentvolume_nvme-0.yaml"
    pv.write_text(
        "apiVersion: v1\nkind: PersistentVolume\nmetadata:\n  name: nvme-0\nspec:\n  capacity: {storage: 100Gi}\n"
        "  accessModes: [ReadWriteOnce]\n  storageClassName: local-nvme\n  local: {path: /mnt/disks/a}\n",
        encoding="utf-8",
    )
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "a PV")
    _edit(pv, "storageClassName: local-nvme", "storageClassName: local-ssd")
    _edit(pv, "/mnt/disks/a", "/mnt/disks/b")
    code, doc = _review(run, repo)
    reasons = [f["reason"] for c in _cluster(doc, AKS)["changes"] for f in c["findings"]]
    assert any("storageClassName" in r for r in reasons)
    assert any("immutable spec.local.path" in r for r in reasons)


def test_a_selector_change_is_refused_by_the_api_server(repo, run):
    path = _tree(repo) / "40-per-node" / "node-tuning" / "daemonset_gpu-node-tuning_tune-h100.yaml"
    text = path.read_text(encoding="utf-8")
    start = text.index("  selector:\n    matchLabels:\n")
    path.write_text(
        text[:start]
        + "  selector:\n    matchLabels:\n      extra: label\n"
        + text[start + len("  selector:\n    matchLabels:\n") :],
        encoding="utf-8",
    )
    code, doc = _review(run, repo)
    cluster = _cluster(doc, AKS)
    (change,) = cluster["changes"]
    assert change["action"] == "changed"
    assert change["fields"][0]["path"] == "spec.selector.matchLabels.extra"
    assert change["findings"][0]["level"] == "danger" and "immutable spec.selector" in change["findings"][0]["reason"]


def test_a_pure_reorder_of_keys_changes_no_object(repo, run):
    path = _tree(repo) / "20-workloads" / "workload-isolation" / "namespace_gpu-training.yaml"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    api, kind = lines.index("apiVersion: v1\n"), lines.index("kind: Namespace\n")
    lines[api], lines[kind] = lines[kind], lines[api]
    path.write_text("".join(lines), encoding="utf-8")
    code, doc = _review(run, repo)
    (cluster,) = doc["clusters"]  # the hand-edited tree is no longer what render writes: stale, with no change
    assert cluster["changes"] == [] and cluster["stale"] is True


def test_a_comment_only_input_edit_changes_no_object(repo, run):
    path = _input(repo)
    sum_file = repo / "rendered" / AKS / ".gpu-gitops.sum"
    before = sum_file.read_bytes()
    path.write_text(path.read_text(encoding="utf-8") + "# a note for the team\n", encoding="utf-8")
    assert run(repo, "-q", "render", AKS).exit_code == 0
    assert sum_file.read_bytes() != before  # the sum file changed...
    code, doc = _review(run, repo)
    assert code == 0 and doc["clusters"] == []  # ...and is left out
    assert run(repo, "-q", "check", "--base", "HEAD").exit_code == 0


def test_a_renamed_file_of_the_same_object_is_a_rename(repo, run):
    folder = _tree(repo) / "20-workloads" / "workload-isolation"
    (folder / "namespace_gpu-training.yaml").rename(folder / "namespace-gpu-training.yaml")
    code, doc = _review(run, repo)
    (change,) = _cluster(doc, AKS)["changes"]
    assert change["action"] == "renamed" and change["findings"] == []


def _rewrite(path: Path, change) -> None:
    """Load a rendered object, change it, write it back (key order and layout are not the point)."""
    import io

    from ruamel.yaml import YAML

    yaml = YAML(typ="safe")
    obj = yaml.load(path.read_text(encoding="utf-8"))
    change(obj)
    out = io.StringIO()
    yaml.dump(obj, out)
    path.write_text(out.getvalue(), encoding="utf-8")


def test_a_toleration_removed_from_a_node_component_is_dangerous(repo, run):
    path = _tree(repo) / "40-per-node" / "gpu-validation" / "daemonset_gpu-validation_gpu-validation-h100.yaml"
    _rewrite(path, lambda obj: obj["spec"]["template"]["spec"]["tolerations"].pop(0))
    code, doc = _review(run, repo)
    (change,) = _cluster(doc, AKS)["changes"]
    assert [f["level"] for f in change["findings"]] == ["danger"]
    assert change["findings"][0]["reason"].startswith("removes the toleration")


def test_a_prune_protected_object_that_leaves_git_is_a_notice_and_an_unprotected_one_a_danger(repo, run):
    folder = _tree(repo) / "20-workloads" / "workload-isolation"
    _strip_prune_protection(folder / "namespace_gpu-inference.yaml")
    _git(repo, "commit", "-qam", "an older render of one namespace: no prune protection")
    (folder / "namespace_gpu-inference.yaml").unlink()
    (folder / "namespace_gpu-training.yaml").unlink()
    code, doc = _review(run, repo)
    levels = {c["object"]["name"]: [f["level"] for f in c["findings"]] for c in _cluster(doc, AKS)["changes"]}
    assert levels == {"gpu-training": ["notice"], "gpu-inference": ["danger"]}


# --- the gate and its acknowledgement -------------------------------------------------------


STORAGE_LINE = "      storageClass: local-nvme-fast"


def _rename_storage_class(repo: Path) -> None:
    _edit(_input(repo), "storageClass: local-nvme\n", "storageClass: local-nvme-fast\n")


def _line(repo: Path, text: str) -> int:
    return _input(repo).read_text(encoding="utf-8").splitlines().index(text) + 1


def test_check_base_fails_on_a_danger_until_a_commit_acknowledges_it(repo, run):
    _rename_storage_class(repo)
    assert run(repo, "-q", "render", AKS).exit_code == 0
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "rename the NVMe storage class")
    failed = run(repo, "check", "--base", "HEAD~1")
    assert failed.exit_code == 1
    line = _line(repo, STORAGE_LINE)
    assert f"clusters/{AKS}/cluster.yaml:{line}:1: error: {AKS}: removes StorageClass local-nvme" in failed.stderr
    assert f"Allow-Destroy: {AKS}: <reason>" in failed.stderr
    _git(
        repo,
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        f"Drain first\n\nAllow-Destroy: {AKS}: the pool is drained, its claims deleted",
    )
    passed = run(repo, "check", "--base", "HEAD~2")
    assert passed.exit_code == 0, passed.stderr
    assert "acknowledged, commit" in passed.stderr and "the pool is drained, its claims deleted" in passed.stderr
    comment = run(repo, "diff", "--base", "HEAD~2", "--format", "markdown").stdout
    assert "all acknowledged" in comment and "the pool is drained, its claims deleted" in comment


def test_the_flag_acknowledges_for_one_cluster_only(repo, run):
    _rename_storage_class(repo)
    assert run(repo, "-q", "render", AKS).exit_code == 0
    _git(repo, "add", "-A")  # check also fails on files git does not track
    assert run(repo, "-q", "check", "--base", "HEAD", "--allow-destroy", "other: not this one").exit_code == 1
    assert run(repo, "-q", "check", "--base", "HEAD", "--allow-destroy", f"{AKS}: on purpose").exit_code == 0
    bad = run(repo, "check", "--base", "HEAD", "--allow-destroy", "no reason")
    assert bad.exit_code == 2 and "CLUSTER: REASON" in bad.stderr


def test_github_annotations_point_at_the_input_line(repo, run):
    _rename_storage_class(repo)
    assert run(repo, "-q", "render", AKS).exit_code == 0
    out = run(repo, "diff", "--base", "HEAD", "--format", "github").stdout
    line = _line(repo, STORAGE_LINE)
    assert (
        f"::error file=clusters/{AKS}/cluster.yaml,line={line},title=gpu-gitops review::{AKS}: removes StorageClass"
        in out
    )
    gate = run(repo, "check", "--base", "HEAD", "--format", "github")
    assert gate.exit_code == 1 and f"::error file=clusters/{AKS}/cluster.yaml,line={line}," in gate.stdout


def test_markdown_puts_dangers_first_and_the_rest_in_details(repo, run):
    _rename_storage_class(repo)
    assert run(repo, "-q", "render", AKS).exit_code == 0
    comment = run(repo, "diff", "--base", "HEAD", "--format", "markdown").stdout
    assert comment.index("### Dangerous changes") < comment.index("<details>")
    assert ".gpu-gitops.sum" not in comment
    assert f"| `{AKS}` |" in comment and "not acknowledged in 1 cluster(s)" in comment


def test_a_deleted_cluster_is_reviewed_as_every_object_removed(repo, run):
    shutil.rmtree(repo / "clusters" / AKS)
    assert run(repo, "-q", "render", "--prune").exit_code == 0
    code, doc = _review(run, repo)
    cluster = _cluster(doc, AKS)
    assert cluster["state"] == "deleted" and cluster["counts"]["removed"] > 50
    dangers = {f[2] for f in _findings(cluster) if f[0] == "danger"}
    kept = {f[2] for f in _findings(cluster) if f[0] == "notice"}
    assert {"Kustomization", "StorageClass"} <= dangers  # the layers' sync objects prune the rest
    assert {"Namespace", "HelmRelease"} <= kept  # prune-protected: left on the cluster


def test_an_unknown_base_is_an_input_error_naming_it(repo, run):
    for command in (("check",), ("diff",), ("check", "--changed-only")):
        result = run(repo, *command, "--base", "origin/nope")
        assert result.exit_code == 2
        assert "--base origin/nope: no commit of that name in this repository" in result.stderr, result.stderr
        assert "git fetch" in result.stderr


@pytest.mark.slow
def test_the_comment_stays_under_githubs_limit_for_a_huge_change():
    from generator.review.compare import Change
    from generator.review.fleet import ClusterReview, Reviewed
    from generator.review.markdown import markdown
    from generator.review.objects import Identity, Placed

    def removed(i: int) -> Reviewed:
        ident = Identity("", "ConfigMap", "ns", f"config-{i:04d}")
        return Reviewed(
            Change("removed", ident, before=Placed(ident, f"20-workloads/x/configmap_ns_config-{i:04d}.yaml", {})), []
        )

    changes = [removed(i) for i in range(200)]  # the same 200 removals in each cluster, made once
    reviews = [ClusterReview(f"cluster-{c:03d}", list(changes)) for c in range(300)]
    comment = markdown(reviews, "origin/main")
    assert len(comment) < 65536
    assert "more cluster(s) left out for length" in comment and comment.rstrip().endswith("</details>")
    assert "No dangerous change." in comment


def test_a_check_of_one_shard_reviews_only_its_clusters(repo, run):
    _rename_storage_class(repo)
    assert run(repo, "-q", "render", AKS).exit_code == 0
    _git(repo, "add", "-A")
    from generator.paths import Project

    names = Project(repo).cluster_names()
    last = f"{len(names)}/{len(names)}"  # the last shard: not aks-h100-training
    assert AKS not in names[-1:]
    assert run(repo, "-q", "check", "--base", "HEAD", "--shard", last).exit_code == 0
    assert run(repo, "-q", "check", "--base", "HEAD", "--shard", f"1/{len(names)}").exit_code == 1


@pytest.mark.slow
def test_the_base_is_read_from_git_unless_it_is_asked_to_be_rendered(repo, run):
    """The committed tree at the base, as the engine applied it (here: what an older tool wrote),
    is the default; --render-base renders the base's inputs with this tool instead."""
    path = _tree(repo) / "20-workloads" / "workload-isolation" / "namespace_gpu-training.yaml"
    _edit(path, "app.kubernetes.io/managed-by: gpu-gitops", "app.kubernetes.io/managed-by: an-older-tool")
    _git(repo, "commit", "-qam", "what an older gpu-gitops rendered")
    assert run(repo, "-q", "render", AKS).exit_code == 0  # today's tool puts the label back
    code, doc = _review(run, repo)
    (change,) = _cluster(doc, AKS)["changes"]
    assert change["fields"] == [
        {"path": "metadata.labels[app.kubernetes.io/managed-by]", "before": "an-older-tool", "after": "gpu-gitops"}
    ]
    code, doc = _review(run, repo, "--render-base", "--jobs", "1")  # every base in this process: no pool to start
    assert code == 0 and doc["clusters"] == []
    assert run(repo, "diff", "--render-base").exit_code == 2


def test_a_sync_object_pointed_at_another_path_is_dangerous(repo, run):
    path = _tree(repo) / "gitops" / f"kustomization_flux-system_{AKS}-20-workloads.yaml"
    _edit(path, f"path: ./rendered/{AKS}/20-workloads", f"path: ./rendered/{AKS}/20-workload")
    code, doc = _review(run, repo)
    (change,) = _cluster(doc, AKS)["changes"]
    assert [f["level"] for f in change["findings"]] == ["danger"]
    assert "prunes what the old source or path applied" in change["findings"][0]["reason"]


def test_a_node_pool_removed_without_its_prune_protection_is_dangerous(repo, run):
    pool = _tree(repo, "eks-mi300x-inference") / "10-platform" / "node-provisioning" / "nodepool_h100.yaml"
    _strip_prune_protection(pool)
    _git(repo, "commit", "-qam", "an older render: no prune protection")
    pool.unlink()
    code, doc = _review(run, repo)
    (change,) = _cluster(doc, "eks-mi300x-inference")["changes"]
    assert (
        change["findings"][0]["level"] == "danger"
        and "terminates every node it launched" in change["findings"][0]["reason"]
    )


def test_an_input_changed_but_not_rendered_is_a_stale_tree_and_fails_the_review(repo, run):
    _edit(_input(repo), "  - namespace: gpu-training\n", "  - namespace: gpu-train\n")
    _edit(_input(repo), "ncclTestNamespace: gpu-training", "ncclTestNamespace: gpu-train")
    result = run(repo, "diff", "--base", "HEAD")
    assert result.exit_code == 1, result.output
    assert f"STALE rendered/{AKS} is stale or broken" in result.stdout
    markdown = run(repo, "diff", "--base", "HEAD", "--format", "markdown").stdout
    assert "tree(s) stale or broken" in markdown and "the gate fails" in markdown
    check = run(repo, "check", "--base", "HEAD")
    assert check.exit_code == 1 and f"{AKS}: rendered/{AKS} is stale or broken" in check.stderr


def test_an_input_that_does_not_render_is_a_broken_tree_and_fails_the_review(repo, run):
    _edit(_input(repo), "  - namespace: gpu-training\n", "  - namespace: kube-system\n")
    assert run(repo, "-q", "render", AKS).exit_code == 2
    code, doc = _review(run, repo)
    assert code == 1 and _cluster(doc, AKS)["stale"] and doc["summary"]["stale"] == 1


def test_a_lowered_kubernetes_version_is_one_danger_per_cluster(repo, run):
    text = _input(repo).read_text(encoding="utf-8")
    version = next(line for line in text.splitlines() if line.startswith("kubernetesVersion:"))
    minor = int(version.split(".")[1].strip("\"' "))
    _edit(_input(repo), version, f'kubernetesVersion: "1.{minor - 1}"')
    assert run(repo, "-q", "render", AKS).exit_code == 0
    code, doc = _review(run, repo)
    cluster = _cluster(doc, AKS)
    versions = [f for c in cluster["changes"] for f in c["findings"] if f["rule"] == "version"]
    assert len(versions) == 1 and versions[0]["level"] == "danger"
    assert f"lowers kubernetesVersion (1.{minor} → 1.{minor - 1})" in versions[0]["reason"]
    assert cluster["blocking"] and code == 1
    markdown = run(repo, "diff", "--base", "HEAD", "--format", "markdown").stdout
    assert f'`"v1.{minor}"` → `"v1.{minor - 1}"`' in markdown  # before → after values


def test_a_renamed_cluster_is_a_danger_even_while_its_old_tree_stays(repo, run):
    old, new = "aks-nap-h100", "aks-nap-h100b"
    (repo / "clusters" / old).rename(repo / "clusters" / new)
    _edit(_input(repo, new), f"name: {old}\n", f"name: {new}\n")
    assert run(repo, "-q", "render", new).exit_code == 0
    code, doc = _review(run, repo)
    (finding,) = _cluster(doc, old)["findings"]
    assert finding["rule"] == "retired" and finding["level"] == "danger" and code == 1
    assert run(repo, "check", "--base", "HEAD", "--allow-destroy", f"{old}: renamed").exit_code == 1  # orphan tree


def test_a_prune_protected_node_pool_removed_from_git_is_a_danger(repo, run):
    pool = _tree(repo, "eks-mi300x-inference") / "10-platform" / "node-provisioning" / "nodepool_h100.yaml"
    pool.unlink()
    code, doc = _review(run, repo)
    findings = [f for c in _cluster(doc, "eks-mi300x-inference")["changes"] for f in c["findings"]]
    assert [(f["level"], f["rule"]) for f in findings] == [("danger", "nodepool")]
    assert "goes on launching nodes that nothing in Git describes" in findings[0]["reason"]


def test_a_changed_gitops_path_is_gated(repo, run):
    """The project moves into platform/ of its repository, and the cluster's path with it."""
    project = repo / "platform"
    project.mkdir()
    for entry in sorted(repo.iterdir()):
        if entry.name not in (".git", "platform"):
            entry.rename(project / entry.name)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "moved")
    _edit(_input(project), "gitops:\n", f"gitops:\n  path: platform/rendered/{AKS}\n")
    assert run(project, "-q", "render", AKS).exit_code == 0
    code, doc = _review(run, project)
    rules = {f["rule"] for c in _cluster(doc, AKS)["changes"] for f in c["findings"] if f["level"] == "danger"}
    assert rules == {"sync"} and code == 1


def test_the_danger_table_is_the_classifiers_and_every_danger_names_its_row():
    """docs/gitops.md's table is generated from ``danger.RULES``; every danger the review makes
    names a row, and every row is made somewhere."""
    import ast

    from generator import docs
    from generator.review import danger

    page = (REPO / "docs" / "gitops.md").read_text(encoding="utf-8")
    assert docs.DANGER_BEGIN + docs.danger_table_markdown() + docs.DANGER_END in page
    named = set()
    for module in ("danger.py", "fleet.py"):
        tree = ast.parse((REPO / "generator" / "review" / module).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Finding":
                level = node.args[0]
                if isinstance(level, ast.Name) and level.id == "DANGER":
                    assert len(node.args) == 3, ast.unparse(node)  # level, reason, rule
                    rule = node.args[2]
                    named |= {rule.value} if isinstance(rule, ast.Constant) else {"(computed)"}
            if isinstance(node, ast.Constant) and node.value in danger.RULES:
                named.add(node.value)
    assert set(danger.RULES) <= named


def test_a_binding_that_drops_a_namespace_is_a_danger():
    """Removing a workload keeps its Namespace (never pruned) and its pods, and drops it from the
    GPU admission binding: those pods are no longer judged, which the review makes a danger."""
    from generator.review.compare import Change, FieldChange
    from generator.review.danger import DANGER, classify
    from generator.review.objects import Identity, Placed

    def binding(namespaces: list[str]) -> dict:
        selector = {
            "matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "In", "values": namespaces}]
        }
        return {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {"name": "gpu-pod-guardrails"},
            "spec": {"policyName": "gpu-pod-guardrails", "matchResources": {"namespaceSelector": selector}},
        }

    ident = Identity("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding", "", "gpu-pod-guardrails")
    path = "10-platform/admission/validatingadmissionpolicybinding_gpu-pod-guardrails.yaml"
    values = ("spec", "matchResources", "namespaceSelector", "matchExpressions", 0, "values")
    dropped = Change(
        "changed",
        ident,
        Placed(ident, path, binding(["llm", "batch"])),
        Placed(ident, path, binding(["llm"])),
        [FieldChange(values, ["llm", "batch"], ["llm"])],
    )
    (finding,) = classify(dropped)
    assert finding.level == DANGER and "no longer selects batch" in finding.reason
    added = Change("changed", ident, dropped.after, dropped.before, [FieldChange(values, ["llm"], ["llm", "batch"])])
    assert classify(added) == []


# --- a repository whose config names programs: git runs none of them for the tool ---------


def _hostile(root: Path) -> Path:
    """Local config naming an fsmonitor hook, a filter driver (required), a textconv and an
    external diff, each a script that leaves a marker; every file is under the filter."""
    marker = root.parent / "ran"
    script = root.parent / "evil.sh"
    script.write_text(f'#!/bin/sh\necho "$0 $*" >> {marker}\ncat\n', encoding="utf-8")
    script.chmod(0o755)
    for key, value in (
        ("core.fsmonitor", str(script)),
        ("filter.evil.clean", str(script)),
        ("filter.evil.smudge", str(script)),
        ("filter.evil.process", str(script)),
        ("filter.evil.required", "true"),
        ("diff.evil.textconv", str(script)),
        ("diff.external", str(script)),
    ):
        _git(root, "config", key, value)
    (root / ".gitattributes").write_text("* filter=evil diff=evil\n", encoding="utf-8")
    return marker


@pytest.mark.parametrize(
    "args",
    [
        ("check", "--base", "HEAD"),
        ("check", "--changed-only", "--base", "HEAD"),
        ("diff", "--base", "HEAD"),
        ("diff", "--base", "HEAD", "--render-base"),
        ("check", "--staged"),
    ],
    ids=lambda a: " ".join(a),
)
def test_git_runs_no_program_the_repository_config_names(repo, run, args):
    path = _input(repo)
    path.write_text(path.read_text(encoding="utf-8") + "# reviewed\n", encoding="utf-8")
    _git(repo, "add", path.relative_to(repo).as_posix())
    marker = _hostile(repo)
    os.utime(path, ns=(path.stat().st_mtime_ns + 10**9,) * 2)  # stale in the index: git reads the file again
    result = run(repo, *args)
    assert result.exit_code in (0, 1), result.output
    assert not marker.exists(), marker.read_text(encoding="utf-8")


# --- a CRD whose schema accepts less -------------------------------------------------------


def _crd(spec_properties: dict) -> dict:
    return widget_crd(
        schema={"type": "object", "properties": {"spec": {"type": "object", "properties": spec_properties}}}
    )


@pytest.mark.parametrize(
    ("before", "after", "said"),
    [
        ({"size": {"type": "integer"}, "mode": {"type": "string"}}, {"mode": {"type": "string"}}, ".spec.size removed"),
        ({"mode": {"type": "string", "enum": ["a", "b"]}}, {"mode": {"type": "string", "enum": ["a"]}}, "enum loses b"),
        ({"size": {"type": "integer"}}, {"size": {"type": "string"}}, "type integer → string"),
        ({"mode": {"type": "string"}}, {"mode": {"type": "string", "enum": ["a"]}}, ".spec.mode now one of a"),
    ],
)
def test_a_crd_schema_narrowed_in_a_bump_is_a_danger(before, after, said):
    from generator.review.compare import Change, diff
    from generator.review.danger import DANGER, classify
    from generator.review.objects import Identity, Placed

    ident = Identity("apiextensions.k8s.io", "CustomResourceDefinition", "", "widgets.example.com")
    path = "charts/widgets/customresourcedefinition_widgets.example.com.yaml"
    old, new = _crd(before), _crd(after)
    narrowed = Change("changed", ident, Placed(ident, path, old), Placed(ident, path, new), diff(old, new))
    (finding,) = classify(narrowed)
    assert finding.level == DANGER and finding.rule == "crd" and said in finding.reason, finding.reason
    widened = Change("changed", ident, narrowed.after, narrowed.before, diff(new, old))
    assert (classify(widened) == []) is ("type" not in said)  # a type changed back is changed again


def test_a_hydrated_chart_daemonset_rolled_is_named_as_a_previewed_one_is():
    """A hydrated release's objects sit in its layer, not under charts/: the chart's own labels
    say where they come from, and a pod-template change still names the rollout."""
    from generator.review.compare import Change, diff
    from generator.review.danger import classify
    from generator.review.objects import Identity, Placed

    def agent(image: str, labels: dict) -> dict:
        return {
            "apiVersion": "apps/v1",
            "kind": "DaemonSet",
            "metadata": {"name": "agent", "namespace": "kube-system", "labels": labels},
            "spec": {"template": {"spec": {"containers": [{"name": "agent", "image": image}]}}},
        }

    ident = Identity("apps", "DaemonSet", "kube-system", "agent")
    path = "00-crds-operators/cilium/daemonset_kube-system_agent.yaml"
    for labels, rolls in (
        ({"helm.sh/chart": "agent-1.0.0"}, True),
        ({"app.kubernetes.io/managed-by": "gpu-gitops"}, False),
    ):
        old, new = agent("agent:1", labels), agent("agent:2", labels)
        change = Change("changed", ident, Placed(ident, path, old), Placed(ident, path, new), diff(old, new))
        said = [f.reason for f in classify(change)]
        assert any("rolls DaemonSet kube-system/agent's pods" in r for r in said) is rolls, said
