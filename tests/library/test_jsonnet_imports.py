"""The sandbox answers an import once an evaluation, and never with a stale or escaping file."""

from __future__ import annotations

import json

import pytest

from generator.library import engine, jsonnet


@pytest.fixture
def folders(tmp_path):
    library, cluster = tmp_path / "libsonnet", tmp_path / "clusters" / "one"
    (library / "lib").mkdir(parents=True)
    cluster.mkdir(parents=True)
    (library / "lib" / "k.libsonnet").write_text("{ a: 1 }", encoding="utf-8")
    return library, cluster, jsonnet.Sandbox(library, cluster, tmp_path)


def test_an_edited_import_is_read_again(folders):
    library, cluster, sandbox = folders
    assert sandbox.resolve(str(cluster), "lib/k.libsonnet")[1] == "{ a: 1 }"
    (library / "lib" / "k.libsonnet").write_text("{ a: 2, b: 3 }", encoding="utf-8")
    assert sandbox.resolve(str(cluster), "lib/k.libsonnet")[1] == "{ a: 2, b: 3 }"


def test_a_file_added_beside_the_importer_shadows_the_library_from_then_on(folders):
    library, cluster, sandbox = folders
    assert sandbox.resolve(str(cluster), "lib/k.libsonnet")[0] == str((library / "lib" / "k.libsonnet").resolve())
    (cluster / "lib").mkdir()
    (cluster / "lib" / "k.libsonnet").write_text("{ own: true }", encoding="utf-8")
    assert sandbox.resolve(str(cluster), "lib/k.libsonnet") == (
        str((cluster / "lib" / "k.libsonnet").resolve()),
        "{ own: true }",
    )


def test_a_folder_relinked_outside_the_sandbox_is_refused_after_a_good_answer(folders, tmp_path):
    library, cluster, sandbox = folders
    (cluster / "mine").mkdir()
    (cluster / "mine" / "x.libsonnet").write_text("1", encoding="utf-8")
    (cluster / "via").symlink_to(cluster / "mine")
    assert sandbox.resolve(str(cluster), "via/x.libsonnet")[1] == "1"
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.libsonnet").write_text("'secret'", encoding="utf-8")
    (cluster / "via").unlink()
    (cluster / "via").symlink_to(outside)
    with pytest.raises(RuntimeError, match="outside libsonnet/ and the cluster's folder; refused"):
        sandbox.resolve(str(cluster), "via/x.libsonnet")


def test_a_sandbox_without_the_cluster_folder_may_not_use_an_answer_from_it(folders, tmp_path):
    library, cluster, sandbox = folders
    (cluster / "values.libsonnet").write_text("{}", encoding="utf-8")
    assert sandbox.resolve(str(cluster), "values.libsonnet")[1] == "{}"
    library_only = jsonnet.Sandbox(library, None, tmp_path)
    with pytest.raises(RuntimeError, match="refused"):
        library_only.resolve(str(cluster), "values.libsonnet")


def test_an_evaluation_asks_the_sandbox_once_an_import(folders, monkeypatch):
    """The engine asks at every import it meets (in a function's body: at every call) and keeps
    the first file it parsed under a path, so the first answer stands for the evaluation."""
    _library, cluster, sandbox = folders
    asked, resolve = [], engine.Sandbox.resolve

    def counted(self, importer_dir, rel):
        asked.append(rel)
        return resolve(self, importer_dir, rel)

    monkeypatch.setattr(engine.Sandbox, "resolve", counted)
    code = "local f(x) = (import 'lib/k.libsonnet').a + x; [f(1), f(2), f(3)]"
    assert json.loads(engine.evaluate_unbounded(code, str(cluster / engine.ENTRY_NAME), sandbox, {})) == [2, 3, 4]
    assert asked == ["lib/k.libsonnet"]


def test_a_folder_whose_name_starts_with_the_librarys_is_outside_it(folders, tmp_path):
    library, cluster, sandbox = folders
    beside = tmp_path / "libsonnet-extra"
    beside.mkdir()
    (beside / "x.libsonnet").write_text("'not the library'", encoding="utf-8")
    with pytest.raises(RuntimeError, match="resolves to libsonnet-extra/x.libsonnet, outside libsonnet/"):
        sandbox.resolve(str(library), "../libsonnet-extra/x.libsonnet")


def test_an_import_through_a_symlink_loop_is_refused(folders):
    library, cluster, sandbox = folders
    (cluster / "loop.libsonnet").symlink_to(cluster / "loop.libsonnet")
    with pytest.raises(RuntimeError, match="'loop.libsonnet' not found in libsonnet/ or the cluster's folder"):
        sandbox.resolve(str(cluster), "loop.libsonnet")
