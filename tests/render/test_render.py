"""Render, check and diff: deterministic, atomic, pruned, valid upstream, buildable."""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
from conftest import EXAMPLES, REPO, cache_with_charts, crd_args, needs_crd_schemas

from generator.tree import write as tree_io
from generator.tree.fingerprint import SUM_FILE
from generator.tree.write import read_tree

CLUSTER = "aks-h100-training"


def _mtimes(folder: Path) -> dict[str, int]:
    return {str(p.relative_to(folder)): p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()}


def test_render_twice_changes_no_byte_and_no_mtime(rendered_project, run):
    """A render of the examples' rendered project (a copy of the test run's one render) is a
    second render: it changes nothing."""
    project = rendered_project
    first, stamps = read_tree(project / "rendered"), _mtimes(project / "rendered")
    result = run(project, "render")
    assert result.exit_code == 0
    assert all(line.endswith("up to date") for line in result.stdout.splitlines())
    assert read_tree(project / "rendered") == first
    assert _mtimes(project / "rendered") == stamps


def test_an_input_change_rewrites_only_the_files_it_affects(project, run):
    assert run(project, "render", CLUSTER).exit_code == 0
    tree = project / "rendered" / CLUSTER
    stamps = _mtimes(tree)
    path = project / "clusters" / CLUSTER / "cluster.yaml"
    path.write_text(
        path.read_text(encoding="utf-8").replace("    quota: {gpus: 24}\n", "    quota: {gpus: 30}\n"), encoding="utf-8"
    )
    result = run(project, "render", CLUSTER)
    assert "0 added, 2 changed, 0 removed" in result.stdout  # the object and the sum file
    after = _mtimes(tree)
    changed = {p for p in after if after[p] != stamps.get(p)}
    quota = "20-workloads/workload-isolation/resourcequota_gpu-inference_gpu-quota.yaml"
    assert changed == {quota, SUM_FILE}
    assert "requests.nvidia.com/gpu: '30'" in (tree / quota).read_text(encoding="utf-8")


def _inodes(folder: Path) -> dict[str, int]:
    return {str(p.relative_to(folder)): p.stat().st_ino for p in folder.rglob("*") if p.is_file()}


def test_a_re_render_links_unchanged_files_instead_of_writing_them(project, run):
    """Unchanged files move into the new tree as the same inodes (no file created, no byte
    written); a changed file, or one whose mode is wrong, is a new file."""
    assert run(project, "render", CLUSTER).exit_code == 0
    tree = project / "rendered" / CLUSTER
    namespace = "20-workloads/workload-isolation/namespace_gpu-training.yaml"
    (tree / namespace).chmod(0o600)
    before = _inodes(tree)
    path = project / "clusters" / CLUSTER / "cluster.yaml"
    path.write_text(
        path.read_text(encoding="utf-8").replace("    quota: {gpus: 24}\n", "    quota: {gpus: 30}\n"), encoding="utf-8"
    )
    assert run(project, "render", CLUSTER).exit_code == 0
    after = _inodes(tree)
    quota = "20-workloads/workload-isolation/resourcequota_gpu-inference_gpu-quota.yaml"
    assert {p for p in after if after[p] != before[p]} == {quota, namespace, SUM_FILE}
    assert (tree / namespace).stat().st_mode & 0o777 == 0o644
    assert all(p.stat().st_nlink == 1 for p in tree.rglob("*") if p.is_file())  # the old tree is gone


def test_a_file_edited_while_render_runs_is_written_not_linked(tmp_path, monkeypatch):
    """The link is taken only if the file still holds the rendered bytes: an in-place edit
    between reading the current tree and linking it must not pass for the rendered file."""
    rendered = tmp_path / "rendered"
    marker = {"kustomization.yaml": b"# Rendered by gpu-gitops from clusters/c/cluster.yaml.\n"}
    tree_io.write_tree(rendered, "c", {**marker, "a.yaml": b"kind: A\n"}, "rendered/c")
    linked = tree_io._link_unchanged

    def edit_then_link(current, staged, *rest):
        Path(current).write_bytes(b"kind: X\n")  # same size, in place: a hand edit racing the render
        return linked(current, staged, *rest)

    monkeypatch.setattr(tree_io, "_link_unchanged", edit_then_link)
    changes, _ = tree_io.write_tree(rendered, "c", {**marker, "a.yaml": b"kind: A\n", "b.yaml": b"b\n"}, "rendered/c")
    assert changes.added == ["b.yaml"]
    assert (rendered / "c" / "a.yaml").read_bytes() == b"kind: A\n"


def test_check_detects_an_edit_and_render_repairs_it(project, run):
    assert run(project, "render", CLUSTER).exit_code == 0
    assert run(project, "check", CLUSTER).exit_code == 0
    # gpu-inference: Pod Security baseline (gpu-training is privileged for it, baseline-ipc-lock)
    victim = project / "rendered" / CLUSTER / "20-workloads" / "workload-isolation" / "namespace_gpu-inference.yaml"
    victim.write_text(victim.read_text(encoding="utf-8").replace("baseline", "privileged"), encoding="utf-8")
    result = run(project, "check", CLUSTER)
    assert result.exit_code == 1
    assert f"rendered/{CLUSTER}/20-workloads/workload-isolation/namespace_gpu-inference.yaml: stale" in result.stderr
    diff = run(project, "diff", CLUSTER)
    assert diff.exit_code == 1
    assert "-  labels:" not in diff.stdout and "+    pod-security.kubernetes.io/enforce: baseline" in diff.stdout
    assert run(project, "render", CLUSTER).exit_code == 0
    assert run(project, "check", CLUSTER).exit_code == 0
    assert run(project, "diff", CLUSTER).exit_code == 0


def test_stray_file_is_pruned_and_reported_by_check(project, run):
    assert run(project, "render", CLUSTER).exit_code == 0
    stray = project / "rendered" / CLUSTER / "20-workloads" / "old-object.yaml"
    stray.write_text("apiVersion: v1\nkind: ConfigMap\n", encoding="utf-8")
    result = run(project, "check", CLUSTER)
    assert result.exit_code == 1
    assert "old-object.yaml: stale: not produced by render any more" in result.stderr
    assert run(project, "render", CLUSTER).exit_code == 0
    assert not stray.exists()


def test_removed_cluster_is_pruned_only_when_we_own_it(rendered_project, run):
    project = rendered_project
    foreign = project / "rendered" / "hand-written"
    foreign.mkdir()
    (foreign / "kustomization.yaml").write_text("resources: []\n", encoding="utf-8")
    shutil.rmtree(project / "clusters" / CLUSTER)
    check = run(project, "check")
    assert check.exit_code == 1
    assert f"rendered/{CLUSTER}: stale: its cluster folder clusters/{CLUSTER}/ is gone" in check.stderr
    assert "hand-written" not in check.stderr
    result = run(project, "render", "--prune")
    assert result.exit_code == 0
    assert not (project / "rendered" / CLUSTER).exists()
    assert (foreign / "kustomization.yaml").is_file()


def test_refuses_to_replace_a_tree_it_does_not_own(project, run):
    mine = project / "rendered" / CLUSTER
    mine.mkdir(parents=True)
    (mine / "notes.txt").write_text("keep me", encoding="utf-8")
    result = run(project, "render", CLUSTER)
    assert result.exit_code == 2
    assert "was not written by gpu-gitops; refusing to replace it" in result.stderr
    assert (mine / "notes.txt").read_text(encoding="utf-8") == "keep me"


def test_interrupted_swap_is_recovered(project, run):
    """A render killed between its two renames leaves .old.<c>.*; the next render restores it."""
    assert run(project, "render", CLUSTER).exit_code == 0
    tree = project / "rendered" / CLUSTER
    before = read_tree(tree)
    tree.rename(project / "rendered" / f".old.{CLUSTER}.deadbeef")
    (project / "rendered" / f".tmp.{CLUSTER}.cafebabe").mkdir()
    tree_io.recover(project / "rendered", CLUSTER, CLUSTER)
    assert read_tree(tree) == before
    assert sorted(p.name for p in (project / "rendered").iterdir() if p.name.startswith(".")) == []


def test_failed_write_leaves_the_previous_tree(project, run, monkeypatch):
    assert run(project, "render", CLUSTER).exit_code == 0
    before = read_tree(project / "rendered" / CLUSTER)
    path = project / "clusters" / CLUSTER / "cluster.yaml"
    path.write_text(
        path.read_text(encoding="utf-8").replace("    quota: {gpus: 24}\n", "    quota: {gpus: 30}\n"), encoding="utf-8"
    )
    real_write = tree_io._write_file

    def failing(path, content, mtime_ns, exact=False):
        if "resourcequota_gpu-inference" in os.path.basename(path):
            raise OSError(28, "No space left on device")
        return real_write(path, content, mtime_ns, exact)

    monkeypatch.setattr(tree_io, "_write_file", failing)
    with pytest.raises(OSError):
        tree = _tree(project)
        tree_io.write_tree(project / "rendered", tree.cluster, tree.files, CLUSTER)
    assert read_tree(project / "rendered" / CLUSTER) == before
    assert [p.name for p in (project / "rendered").iterdir()] == [CLUSTER]


def _tree(project: Path):
    from generator.inputs import load as inputs
    from generator.paths import Project
    from generator.render import cluster as render
    from generator.render.pipeline import validator

    proj = Project(project)
    cluster = inputs.load_cluster(proj, CLUSTER)
    return render.render(proj, cluster, validator(cluster.spec["kubernetesVersion"], ())).tree


@pytest.fixture
def rendered_all(rendered) -> Path:
    """Every example rendered into a fresh root (the run's one render), for the property tests below."""
    return rendered


def test_files_are_canonical(rendered_all):
    for path in rendered_all.rglob("*.yaml"):
        data = path.read_bytes()
        assert data.endswith(b"\n") and not data.endswith(b"\n\n"), path
        assert b"\r" not in data and b"\t" not in data, path
        assert data.startswith(b"# Rendered by gpu-gitops from clusters/"), path
        body = data.split(b"\n", 1)[1]
        if path.name != "kustomization.yaml":
            assert body.startswith(b"apiVersion: "), path
            assert body.split(b"\n")[1].startswith(b"kind: "), path
            assert body.split(b"\n")[2] == b"metadata:", path
            assert body.split(b"\n")[3].startswith(b"  name: "), path


def test_file_names_follow_the_frozen_scheme(rendered_all):
    from ruamel.yaml import YAML

    yaml = YAML(typ="safe")
    for path in rendered_all.rglob("*.yaml"):
        if path.name == "kustomization.yaml" or "gitops" in path.parts:
            continue
        obj = yaml.load(path)
        meta = obj["metadata"]
        expected = "_".join(
            [obj["kind"].lower()] + ([meta["namespace"]] if "namespace" in meta else []) + [meta["name"]]
        )
        assert path.name == expected + ".yaml"


def test_every_folder_has_a_kustomization_listing_exactly_its_contents(rendered_all):
    from ruamel.yaml import YAML

    yaml = YAML(typ="safe")
    for kustomization in rendered_all.rglob("kustomization.yaml"):
        listed = set(yaml.load(kustomization)["resources"])
        present = {p.name for p in kustomization.parent.iterdir() if p.name not in ("kustomization.yaml", SUM_FILE)}
        if kustomization.parent.parent == rendered_all:
            present.discard("gitops")  # the engine's own objects: never applied through the root
            present.discard("bootstrap")  # the CNI's first install (Helm values), applied by no engine
        assert listed == present, kustomization


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl not installed")
@pytest.mark.parametrize("cluster", EXAMPLES)
def test_kubectl_kustomize_builds_the_committed_tree(cluster):
    result = subprocess.run(
        ["kubectl", "kustomize", str(REPO / "rendered" / cluster)], capture_output=True, encoding="utf-8"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("\nkind: ") + result.stdout.startswith("kind: ") >= 1
    rendered_objects = [
        p
        for p in (REPO / "rendered" / cluster).rglob("*.yaml")
        if p.name != "kustomization.yaml" and "gitops" not in p.relative_to(REPO / "rendered" / cluster).parts
    ]
    assert result.stdout.count("apiVersion: ") - result.stdout.count("  apiVersion: ") == len(rendered_objects)


def test_committed_render_is_current(run):
    """The golden files: what is committed is exactly what render produces (no ../shared needed).
    ``--full`` evaluates every cluster: the sum files record the tool's version, not its code, so
    only a full evaluation sees a change of the generator that changes output."""
    result = run(REPO, "check", "--full")
    assert result.exit_code == 0, result.output


def test_full_evaluates_a_tree_whose_sum_file_matches(project, run):
    """A tree consistent with its sum file but not what render produces (as after a change of the
    tool's code) passes the fast path and fails ``check --full``; ``render --full`` repairs it."""
    assert run(project, "render", CLUSTER).exit_code == 0
    tree = project / "rendered" / CLUSTER
    victim = next(p for p in sorted(tree.rglob("*.yaml")) if p.name != "kustomization.yaml")
    old = victim.read_bytes()
    new = old + b"# not what render writes\n"
    victim.write_bytes(new)
    sum_file = tree / ".gpu-gitops.sum"
    sha = lambda data: hashlib.sha256(data).hexdigest()  # noqa: E731
    sum_file.write_text(sum_file.read_text(encoding="utf-8").replace(sha(old), sha(new)), encoding="utf-8")
    assert run(project, "check", CLUSTER).exit_code == 0
    assert run(project, "check", "--full", CLUSTER).exit_code == 1
    assert run(project, "render", "--full", CLUSTER).exit_code == 0
    assert victim.read_bytes() == old


@needs_crd_schemas()
def test_committed_render_is_current_and_valid_upstream(strict_render):
    """The golden files: what is committed is exactly what render produces, and every object
    validates against strict Kubernetes and upstream CRD schemas: the run's render with
    ``--require-schemas`` and the upstream locations (which refuses any object that fails its
    schema, or has none) passed, and wrote these bytes."""
    root, result = strict_render
    assert result.exit_code == 0, result.output
    for cluster in EXAMPLES:  # the sum files record each project's own config: their currency is the test above's
        committed, checked = (read_tree(r / "rendered" / cluster) for r in (REPO, root))
        committed.pop(SUM_FILE), checked.pop(SUM_FILE)
        assert committed == checked, cluster


@needs_crd_schemas()
def test_require_schemas_makes_unknown_kinds_errors(project, run):
    (project / "clusters" / CLUSTER / "overrides.libsonnet").write_text(
        "{ 'workload-isolation'+: { widget_w: {apiVersion: 'example.com/v1', kind: 'Widget', metadata: {name: 'w'}} } }",
        encoding="utf-8",
    )
    warn = run(project, "render", CLUSTER, *crd_args())
    assert warn.exit_code == 0
    # one summary line for the run: only Widget lacks a schema, every upstream CRD was found
    assert "warning: no schema found, not schema-checked: Widget (example.com/v1)\n" in warn.stderr
    verbose = run(project, "-v", "render", CLUSTER, *crd_args())
    assert (
        "widget_w.yaml: warning: could not find schema for Widget (example.com/v1): not schema-checked"
        in verbose.stderr
    )
    strict = run(project, "render", CLUSTER, "--require-schemas", *crd_args())
    assert strict.exit_code == 2
    assert "widget_w.yaml: error: could not find schema for Widget" in strict.stderr


def test_overrides_can_patch_values_late_bound(project, run):
    (project / "clusters" / CLUSTER / "overrides.libsonnet").write_text(
        "{ values+:: { workloadIsolation+: { priorities+: { training+: { value: 424242 } } } } }\n", encoding="utf-8"
    )
    assert run(project, "render", CLUSTER).exit_code == 0
    text = (
        project / "rendered" / CLUSTER / "20-workloads" / "workload-isolation" / "priorityclass_gpu-training.yaml"
    ).read_text(encoding="utf-8")
    assert "value: 424242" in text


def test_init_scaffolds_a_cluster_that_renders(project, run):
    result = run(project, "init", "new-cluster")
    assert result.exit_code == 0
    text = (project / "clusters" / "new-cluster" / "cluster.yaml").read_text(encoding="utf-8")
    assert text.startswith("# yaml-language-server: $schema=../../schemas/cluster.schema.json")
    assert run(project, "render", "new-cluster").exit_code == 0
    assert (project / "rendered" / "new-cluster" / "kustomization.yaml").is_file()
    again = run(project, "init", "new-cluster")
    assert again.exit_code == 2 and "already exists" in again.stderr


def test_list_and_schema(project, run):
    import json

    listed = json.loads(run(project, "list", "--json").stdout)
    assert [c["name"] for c in listed] == EXAMPLES
    schema = json.loads(run(project, "schema").stdout)
    assert schema["$schema"].endswith("2020-12/schema")


def test_bad_schema_location_template_is_a_usage_error(project, run):
    result = run(project, "render", "--schema-location", "x/{{.Foo}}.json")
    assert result.exit_code == 2
    assert "unknown variable(s): Foo" in result.stderr


def test_config_file_unknown_key_is_located(project, run):
    (project / ".gpu-gitops.yaml").write_text("schemaLocations: []\nrequireSchema: true\n", encoding="utf-8")
    result = run(project, "render")
    assert result.exit_code == 2
    assert result.stderr.startswith(".gpu-gitops.yaml:2:1: error: unknown key 'requireSchema'")
    assert "did you mean 'requireSchemas'" in result.stderr


def test_no_clusters(tmp_path, run):
    (tmp_path / "clusters").mkdir()  # a project, still empty
    result = run(tmp_path, "render")
    assert result.exit_code == 2
    assert "no clusters found" in result.stderr


def test_a_project_without_its_own_library_uses_the_installed_one(tmp_path, run):
    root = tmp_path / "fleet"
    (root / "clusters").mkdir(parents=True)
    shutil.copytree(REPO / "clusters" / CLUSTER, root / "clusters" / CLUSTER)
    shutil.copy(REPO / ".gpu-gitops.yaml", root)  # the same settings, so the same sum file
    result = run(root, "render")
    assert result.exit_code == 0, result.output
    assert read_tree(root / "rendered" / CLUSTER) == read_tree(REPO / "rendered" / CLUSTER)


def test_recovery_of_one_cluster_leaves_a_prefixed_cluster_alone(project, run):
    """`prod` must not take the interrupted backup of `prod-eu` (a prefix of its name)."""
    rendered = project / "rendered"
    backup = rendered / ".old.aks-h100-training-b.0badf00d"
    backup.mkdir(parents=True)
    (backup / "kustomization.yaml").write_text(
        "# Rendered by gpu-gitops from clusters/aks-h100-training-b\n", encoding="utf-8"
    )
    assert run(project, "render", CLUSTER).exit_code == 0
    assert backup.is_dir() and not (rendered / "aks-h100-training-b").exists()


def test_symlinks_in_a_rendered_tree_are_stale_and_never_followed(project, run):
    assert run(project, "render", CLUSTER).exit_code == 0
    tree = project / "rendered" / CLUSTER
    (tree / "dangling.yaml").symlink_to("/nonexistent")
    (tree / "zero.yaml").symlink_to("/dev/zero")
    result = run(project, "check", CLUSTER)
    assert result.exit_code == 1
    assert f"rendered/{CLUSTER}/dangling.yaml: stale: not produced by render any more" in result.stderr
    assert f"rendered/{CLUSTER}/zero.yaml: stale" in result.stderr
    assert run(project, "render", CLUSTER).exit_code == 0
    assert not (tree / "dangling.yaml").is_symlink() and not (tree / "zero.yaml").is_symlink()
    assert run(project, "check", CLUSTER).exit_code == 0


def test_rendered_that_is_a_file_is_an_input_error(project, run):
    (project / "rendered").write_text("oops", encoding="utf-8")
    result = run(project, "render", CLUSTER)
    assert result.exit_code == 2
    assert "rendered: error: is not a folder" in result.stderr
    assert (project / "rendered").read_text(encoding="utf-8") == "oops"


@pytest.mark.parametrize("command", ["check", "diff"])
def test_check_and_diff_refuse_a_foreign_tree_like_render(project, run, command):
    foreign = project / "rendered" / CLUSTER
    foreign.mkdir(parents=True)
    (foreign / "kustomization.yaml").write_text("resources: []\n", encoding="utf-8")
    result = run(project, command, CLUSTER)
    assert result.exit_code == 2
    assert f"rendered/{CLUSTER}: error: exists but was not written by gpu-gitops" in result.stderr


def test_write_failure_is_a_located_input_error(project, run, monkeypatch):
    def full(path, content, mtime_ns, exact=False):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(tree_io, "_write_file", full)
    result = run(project, "render", CLUSTER)
    assert result.exit_code == 2
    assert f"rendered/{CLUSTER}: error: cannot write the rendered tree: No space left on device" in result.stderr
    assert not any((project / "rendered").iterdir())


def test_init_into_a_clusters_file_is_an_input_error(tmp_path, run):
    (tmp_path / "clusters").write_text("not a folder", encoding="utf-8")
    result = run(tmp_path, "init", "new")
    assert result.exit_code == 2
    assert "clusters/new/cluster.yaml: error: cannot create the cluster input" in result.stderr


def test_init_without_a_local_schema_writes_no_machine_path(tmp_path, run):
    assert run(tmp_path, "init", "new").exit_code == 0
    text = (tmp_path / "clusters" / "new" / "cluster.yaml").read_text(encoding="utf-8")
    assert "site-packages" not in text and "_data" not in text
    assert run(tmp_path, "render", "new").exit_code == 0


def test_check_of_a_current_but_invalid_tree_does_not_call_it_stale(rendered_project, run, tmp_path):
    """With --require-schemas and no schemas, every custom resource is an error; the tree is still
    what render writes, so check must say it fails its checks, not that it is out of date."""
    project = rendered_project
    empty = cache_with_charts(tmp_path / "empty")  # no schema set; the charts the examples inflate
    result = run(project, "check", "--require-schemas", env={"GPU_GITOPS_CACHE_DIR": str(empty)})
    assert result.exit_code == 1
    assert "does not pass its checks" in result.stderr
    assert "out of date" not in result.stderr


def test_rendered_is_made_0755_whatever_the_umask(project, run):
    previous = os.umask(0)
    try:
        assert run(project, "render", CLUSTER).exit_code == 0
    finally:
        os.umask(previous)
    assert stat.S_IMODE((project / "rendered").stat().st_mode) == 0o755
    assert stat.S_IMODE((project / "rendered" / CLUSTER).stat().st_mode) == 0o755


@pytest.mark.parametrize("command", ["render", "check", "diff"])
def test_a_rendered_tree_that_is_a_symlink_is_named_a_symlink(project, run, tmp_path, command):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (project / "rendered").mkdir()
    (project / "rendered" / CLUSTER).symlink_to(elsewhere, target_is_directory=True)
    result = run(project, command, CLUSTER)
    assert result.exit_code == 2
    assert f"rendered/{CLUSTER}: error: is a symlink; refusing to read or replace it\n  hint: " in result.stderr
    assert list(elsewhere.iterdir()) == []
