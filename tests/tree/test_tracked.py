"""A no-op check asks git for untracked files only when the index or a sum file changed since
git last found none; every change that could make a file untracked is still caught."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import REPO, settle

from generator.cli import cli
from generator.review import revision
from generator.tree import tracked

CLUSTER = "aks-h100-training"
GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]
pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")


@pytest.fixture(scope="module")
def committed(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("tracked") / "proj"
    for name in ("libsonnet", "schemas", f"clusters/{CLUSTER}", "clusters/_bases"):
        shutil.copytree(REPO / name, root / name)
    result = CliRunner().invoke(cli, ["--root", str(root), "--color", "never", "-q", "render"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    subprocess.run([*GIT, "init", "-q", "-b", "main"], cwd=root, check=True)
    subprocess.run([*GIT, "add", "-A"], cwd=root, check=True)
    subprocess.run([*GIT, "commit", "-qm", "init"], cwd=root, check=True)
    return root


@pytest.fixture
def project(committed, tmp_path, monkeypatch) -> Path:
    for name in tracked.ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    return Path(shutil.copytree(committed, tmp_path / "proj", symlinks=True))


@pytest.fixture
def settled(monkeypatch):
    settle(monkeypatch)


@pytest.fixture
def asked(monkeypatch) -> list[Path]:
    """Each time git is asked for untracked files."""
    seen: list[Path] = []
    real = revision.untracked

    def counting(root, folder):
        seen.append(root)
        return real(root, folder)

    monkeypatch.setattr(revision, "untracked", counting)
    return seen


def test_a_second_no_op_check_asks_git_nothing(project, settled, run, asked):
    assert run(project, "check").exit_code == 0
    assert len(asked) == 1
    assert run(project, "check").exit_code == 0
    assert len(asked) == 1


def test_a_new_tree_git_does_not_track_is_caught(project, settled, run, asked):
    assert run(project, "check").exit_code == 0
    shutil.copytree(project / "clusters" / CLUSTER, project / "clusters" / "new-one")
    path = project / "clusters" / "new-one" / "cluster.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace(f"name: {CLUSTER}", "name: new-one"), encoding="utf-8")
    assert run(project, "-q", "render", "new-one").exit_code == 0
    subprocess.run([*GIT, "add", "clusters"], cwd=project, check=True)  # the input, not its output
    result = run(project, "check")
    assert result.exit_code == 1
    assert "rendered/new-one: not tracked by git:" in result.stderr


def test_a_file_removed_from_the_index_is_caught(project, settled, run, asked):
    assert run(project, "check").exit_code == 0
    subprocess.run([*GIT, "rm", "-q", "--cached", f"rendered/{CLUSTER}/kustomization.yaml"], cwd=project, check=True)
    result = run(project, "check")
    assert result.exit_code == 1
    assert f"rendered/{CLUSTER}: not tracked by git: 1 file(s)" in result.stderr
    assert len(asked) == 2


def test_a_just_written_index_is_not_remembered(project, run, asked):
    """Without the clock moved on, the index and the sum files are racy: git is asked each time."""
    assert run(project, "check").exit_code == 0
    assert run(project, "check").exit_code == 0
    assert len(asked) == 2


def test_git_found_through_the_environment_is_always_asked(project, settled, run, asked, monkeypatch):
    monkeypatch.setenv("GIT_INDEX_FILE", str(project / ".git" / "index"))
    assert tracked.state(project, []) is None
    assert run(project, "check").exit_code == 0
    assert run(project, "check").exit_code == 0
    assert len(asked) == 2


def test_a_linked_work_tree_uses_its_own_index(project, tmp_path):
    linked = tmp_path / "linked"
    subprocess.run([*GIT, "worktree", "add", "-q", str(linked)], cwd=project, check=True)
    index, config = tracked._repository(linked)
    assert os.path.realpath(index) == str((project / ".git" / "worktrees" / "linked" / "index").resolve())
    assert os.path.realpath(config) == str((project / ".git" / "config").resolve())
    assert tracked._repository(project / "rendered") == [
        str(project.resolve() / ".git" / "index"),
        str(project.resolve() / ".git" / "config"),
    ]


def test_a_changed_repository_config_asks_git_again(project, settled, run, asked):
    assert run(project, "check").exit_code == 0
    subprocess.run([*GIT, "config", "core.ignoreCase", "true"], cwd=project, check=True)
    assert run(project, "check").exit_code == 0
    assert len(asked) == 2


def test_outside_any_repository_git_is_not_started(project, settled, run, asked, monkeypatch):
    """A project no repository holds: nothing can be untracked, and git, which could only fail,
    is not asked; one ``.git`` (or a bare repository's ``HEAD``) above it, or git pointed
    elsewhere by the environment, and it is asked again."""
    if not tracked.outside_git(project.parent):
        pytest.skip("the temporary folder is inside a repository")
    shutil.rmtree(project / ".git")
    assert tracked.outside_git(project)
    assert run(project, "check").exit_code == 0
    assert asked == []
    (project / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    assert not tracked.outside_git(project / "rendered")
    (project / "HEAD").unlink()
    os.mkdir(project / ".git")
    assert not tracked.outside_git(project / "rendered" / CLUSTER)
    os.rmdir(project / ".git")
    monkeypatch.setenv("GIT_DIR", str(project / "elsewhere"))
    assert not tracked.outside_git(project)
