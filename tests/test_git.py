"""``git.prefix``: git asked once while nothing it reads to find the work tree changes."""

from __future__ import annotations

import subprocess

from generator import git


def _counted(monkeypatch) -> list:
    calls = []
    real = git._git
    monkeypatch.setattr(git, "_git", lambda *a, **k: calls.append(a) or real(*a, **k))
    monkeypatch.setattr(git, "_PREFIXES", {})
    return calls


def test_the_prefix_is_asked_once_for_a_fleet(tmp_path, monkeypatch):
    calls = _counted(monkeypatch)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "platform").mkdir()
    assert [git.prefix(tmp_path / "platform") for _ in range(3)] == ["platform/"] * 3
    assert len(calls) == 1


def test_a_repository_made_or_moved_around_the_folder_is_seen(tmp_path, monkeypatch):
    calls = _counted(monkeypatch)
    project = tmp_path / "repo" / "platform"
    project.mkdir(parents=True)
    assert git.prefix(project) is None  # in no work tree (tmp_path is outside any)
    subprocess.run(["git", "init", "-q", str(tmp_path / "repo")], check=True)
    assert git.prefix(project) == "platform/"
    (tmp_path / "repo" / ".git").rename(tmp_path / "repo" / "platform" / ".git")
    assert git.prefix(project) == ""
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    assert git.prefix(project) == ""
    assert len(calls) == 4
