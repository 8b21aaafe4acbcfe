"""A linted file is shown by its path relative to the project root, however the folder holding
it was given (relative, with a trailing slash or ``./``, absolute, through ``..``, a symlink),
and by its path as given when it lies outside the root."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

# a schema error in each file, so each file is named in the report
BAD = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: 5\n"


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "root"
    for name in ("a/b/c.yaml", "a/d.yaml", "a/b/e/f.yml"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(BAD, encoding="utf-8")
    (root / "clusters").mkdir()
    (root / "link").symlink_to(root / "a")
    (root / "a" / "b2").symlink_to(root / "a" / "b")  # not followed inside a, only when given
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "g.yaml").write_text(BAD, encoding="utf-8")
    return root


def _shown(root, cwd, *paths: str) -> list[str]:
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "from generator.cli import main; main()",
            "--root",
            str(root),
            "lint",
            "--no-cache",
            "--format",
            "json",
            *paths,
        ],
        cwd=cwd,
        capture_output=True,
        encoding="utf-8",
    )
    assert result.returncode == 1, result.stderr
    return sorted({f["file"] for f in json.loads(result.stdout)["findings"]})


@pytest.mark.parametrize("given", ["a", "a/", "./a", "a/b/..", "{root}/a", "link"])
def test_a_folder_inside_the_root_shows_paths_relative_to_the_root(tree, given):
    assert _shown(tree, tree, given.format(root=tree)) == ["a/b/c.yaml", "a/b/e/f.yml", "a/d.yaml"]


def test_a_symlinked_folder_inside_shows_where_it_points(tree):
    assert _shown(tree, tree, "a/b2") == ["a/b/c.yaml", "a/b/e/f.yml"]
    assert _shown(tree, tree / "a", "b2/e") == ["a/b/e/f.yml"]


def test_files_given_by_name_and_folders_outside_the_root(tree):
    outside = tree.parent / "outside"
    assert _shown(tree, tree / "a", "b/c.yaml", "./d.yaml") == ["a/b/c.yaml", "a/d.yaml"]
    assert _shown(tree, tree, str(outside)) == [os.path.join(str(outside), "g.yaml")]
    assert _shown(tree, outside, ".") == ["./g.yaml"]  # as found, for a folder outside
