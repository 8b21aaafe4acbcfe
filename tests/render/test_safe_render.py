"""Nothing is destroyed by accident: a cluster folder without a readable cluster.yaml is an input
error naming the file (its tree stays), a deleted cluster's tree is removed only when asked,
check fails on a tree git does not track, and the pre-commit hook checks what is staged."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from generator.tree.write import read_tree

CLUSTER = "aks-h100-training"
GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")


@pytest.fixture(scope="module")
def rendered_once(strict_render) -> Path:
    """The examples rendered once per test run (a render's output does not depend on where its
    project is: each test gets a copy)."""
    root, result = strict_render
    assert result.exit_code == 0, result.output
    return root


@pytest.fixture
def rendered(rendered_once, tmp_path) -> Path:
    """A rendered copy of the project of the test's own."""
    return Path(shutil.copytree(rendered_once, tmp_path / "proj", symlinks=True))


def _commit(root: Path, message: str = "change") -> None:
    subprocess.run([*GIT, "add", "-A"], cwd=root, check=True)
    subprocess.run([*GIT, "commit", "-qm", message], cwd=root, check=True)


@pytest.fixture
def repo(rendered) -> Path:
    subprocess.run([*GIT, "init", "-q", "-b", "main"], cwd=rendered, check=True)
    _commit(rendered, "init")
    return rendered


def _renamed_yml(folder: Path) -> None:
    (folder / "cluster.yaml").rename(folder / "cluster.yml")


def _empty_folder(folder: Path) -> None:
    (folder / "cluster.yaml").unlink()


def _dangling_link(folder: Path) -> None:
    (folder / "cluster.yaml").unlink()
    (folder / "cluster.yaml").symlink_to("gone.yaml")


def _empty_file(folder: Path) -> None:
    (folder / "cluster.yaml").write_text("", encoding="utf-8")


@pytest.mark.parametrize(
    "breakage, words",
    [
        (_renamed_yml, "rename cluster.yml to cluster.yaml"),
        (_empty_folder, f"delete the folder clusters/{CLUSTER}/ and run `gpu-gitops render --prune`"),
        (_dangling_link, "cannot read file"),
        (_empty_file, "must be a YAML mapping"),
    ],
    ids=["cluster.yml", "emptied-folder", "unreadable", "empty-file"],
)
@pytest.mark.parametrize("named", [True, False], ids=["named", "all-clusters"])
def test_a_cluster_folder_without_its_input_is_an_error_and_keeps_its_tree(rendered, run, breakage, words, named):
    before = read_tree(rendered / "rendered")
    breakage(rendered / "clusters" / CLUSTER)
    result = run(rendered, "render", *([CLUSTER] if named else []))
    assert result.exit_code == 2
    assert f"clusters/{CLUSTER}/cluster.yaml" in result.stderr and words in result.stderr
    assert "removed" not in result.stdout
    assert read_tree(rendered / "rendered") == before  # nothing under rendered/ removed or changed
    check = run(rendered, "check")
    assert check.exit_code == 2 and f"clusters/{CLUSTER}/cluster.yaml" in check.stderr


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_cluster_yaml_names_the_file(rendered, run):
    path = rendered / "clusters" / CLUSTER / "cluster.yaml"
    path.chmod(0)
    try:
        result = run(rendered, "render")
    finally:
        path.chmod(0o644)
    assert result.exit_code == 2 and f"clusters/{CLUSTER}/cluster.yaml: error: cannot read file" in result.stderr
    assert (rendered / "rendered" / CLUSTER / "kustomization.yaml").is_file()


def test_a_deleted_cluster_keeps_its_tree_until_prune_is_asked(rendered, run):
    shutil.rmtree(rendered / "clusters" / CLUSTER)
    kept = run(rendered, "render")
    assert kept.exit_code == 0
    assert f"rendered/{CLUSTER}: warning: kept: its cluster folder clusters/{CLUSTER}/ is gone" in kept.stderr
    assert (rendered / "rendered" / CLUSTER / "kustomization.yaml").is_file()
    assert run(rendered, "check").exit_code == 1
    pruned = run(rendered, "render", "--prune")
    assert f"removed rendered/{CLUSTER}: its cluster folder is gone (--prune)" in pruned.stdout
    assert not (rendered / "rendered" / CLUSTER).exists()


def test_the_config_file_can_make_prune_the_default(rendered, run):
    (rendered / ".gpu-gitops.yaml").write_text("prune: true\n", encoding="utf-8")
    shutil.rmtree(rendered / "clusters" / CLUSTER)
    assert run(rendered, "-q", "render").exit_code == 0
    assert not (rendered / "rendered" / CLUSTER).exists()


def test_render_of_named_clusters_never_prunes(rendered, run):
    shutil.rmtree(rendered / "clusters" / CLUSTER)
    assert run(rendered, "render", "--prune", "ocp-a100-tuned").exit_code == 0
    assert (rendered / "rendered" / CLUSTER).is_dir()


@needs_git
def test_check_fails_on_a_rendered_tree_git_does_not_track(repo, run):
    shutil.copytree(repo / "clusters" / CLUSTER, repo / "clusters" / "new-one")
    path = repo / "clusters" / "new-one" / "cluster.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace(f"name: {CLUSTER}", "name: new-one"), encoding="utf-8")
    assert run(repo, "-q", "render", "new-one").exit_code == 0
    subprocess.run([*GIT, "add", "clusters"], cwd=repo, check=True)  # the input, not its output
    result = run(repo, "check")
    assert result.exit_code == 1
    assert "rendered/new-one: not tracked by git:" in result.stderr
    assert "`git add rendered/new-one`" in result.stderr
    subprocess.run([*GIT, "add", "rendered"], cwd=repo, check=True)
    assert run(repo, "-q", "check").exit_code == 0


@needs_git
def test_check_staged_reads_the_index_not_the_work_tree(repo, run):
    shutil.copytree(repo / "clusters" / CLUSTER, repo / "clusters" / "new-one")
    path = repo / "clusters" / "new-one" / "cluster.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace(f"name: {CLUSTER}", "name: new-one"), encoding="utf-8")
    assert run(repo, "-q", "render", "new-one").exit_code == 0
    subprocess.run([*GIT, "add", "clusters"], cwd=repo, check=True)
    staged = run(repo, "check", "--staged")
    assert staged.exit_code == 1
    assert "rendered/new-one: stale: missing, render would create its" in staged.stderr
    subprocess.run([*GIT, "add", "rendered"], cwd=repo, check=True)
    assert run(repo, "-q", "check", "--staged").exit_code == 0
    # an edit on disk that is not staged does not change what the commit holds
    (repo / "rendered" / CLUSTER / "kustomization.yaml").write_text(
        "# Rendered by gpu-gitops\nresources: []\n", encoding="utf-8"
    )
    assert run(repo, "-q", "check", "--staged").exit_code == 0
    assert run(repo, "-q", "check", CLUSTER).exit_code == 1


def test_render_reports_input_errors_as_github_annotations_at_the_line(rendered, run):
    path = rendered / "clusters" / CLUSTER / "cluster.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('kubernetesVersion: "1.32"', 'kubernetesVersion: "1.2"'), encoding="utf-8")
    line = text.splitlines().index('kubernetesVersion: "1.32"') + 1
    result = run(rendered, "render", CLUSTER, "--format", "github")
    assert result.exit_code == 2
    assert f"::error file=clusters/{CLUSTER}/cluster.yaml,line={line}," in result.stdout
    assert "::notice title=gpu-gitops render::1 error(s)" in result.stdout


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_check_reports_input_errors_in_machine_formats(rendered, run, fmt):
    import json

    _renamed_yml(rendered / "clusters" / CLUSTER)
    result = run(rendered, "check", "--format", fmt)
    assert result.exit_code == 2
    document = json.loads(result.stdout)
    text = json.dumps(document)
    assert f"clusters/{CLUSTER}/cluster.yaml" in text and "has no cluster.yaml" in text


def test_every_cluster_folder_counts_but_the_shared_inputs(tmp_path):
    from generator.paths import Project

    for name in ("_bases", ".hidden", "emptied", "with-input"):
        (tmp_path / "clusters" / name).mkdir(parents=True)
    (tmp_path / "clusters" / "with-input" / "cluster.yaml").write_text("name: with-input\n", encoding="utf-8")
    (tmp_path / "clusters" / "stray.yaml").write_text("", encoding="utf-8")
    assert Project(tmp_path).cluster_names() == ["emptied", "with-input"]
