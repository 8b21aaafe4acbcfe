"""Paths as text (``generator.paths``): spelt as ``pathlib`` spells them, found as it finds them."""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from hypothesis import given
from hypothesis import strategies as st

from generator import paths

_PIECES = st.sampled_from(["a", "b.yaml", "", ".", "..", "/", "//", "///", "x/", "./y", "a//b", "é"])


@given(st.lists(st.lists(_PIECES, max_size=4).map("".join), min_size=1, max_size=3))
def test_a_path_is_spelt_as_purepath_spells_it(parts):
    assert paths.plain(*parts) == str(PurePosixPath(*parts))


@given(st.lists(_PIECES, max_size=4).map("".join), st.lists(_PIECES, max_size=4).map("".join))
def test_inside_is_is_relative_to(path, folder):
    assert paths.inside(path, folder) == PurePosixPath(path).is_relative_to(folder)


def test_the_project_root_is_found_upward_from_a_folder_as_pathlib_resolves_it(tmp_path):
    (tmp_path / "proj" / "clusters").mkdir(parents=True)
    (tmp_path / "proj" / "a" / "b").mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "proj" / "a")
    assert paths.find_root(tmp_path / "link" / "b") == str((tmp_path / "proj").resolve())
    assert paths.find_root(tmp_path / "link") == str((tmp_path / "link").resolve().parent)


def test_a_project_keeps_its_root_as_text_and_shows_paths_as_before(tmp_path):
    project = paths.Project(tmp_path / "proj" / ".")
    assert project.folder == str(tmp_path / "proj") and project.root == tmp_path / "proj"
    assert project == paths.Project(str(tmp_path / "proj") + "/")  # spelt as a Path: equal
    assert project.display(tmp_path / "proj" / "x.yaml") == "x.yaml"
    assert project.display(tmp_path / "other.yaml") == os.path.join("..", "other.yaml")
    assert project.display("a//b.yaml") == "a/b.yaml"  # a relative path as Path spelt it
    assert project.replace(folder="/elsewhere").root == Path("/elsewhere")
