"""Files and folders this user cannot read: each is named, exit 2, never a traceback or a tree
that reads as stale (a CI job reads exit 1 as "render and commit"), and ``list`` keeps the
cluster."""

from __future__ import annotations

import pytest

from tests.unreadable import deny

CLUSTER = "aks-nap-h100"


@pytest.mark.parametrize("refused", ["folder", "file"])
def test_an_unreadable_cluster_input_is_named_by_every_command(project, run, monkeypatch, refused):
    folder = project / "clusters" / CLUSTER
    deny(monkeypatch, folder if refused == "folder" else folder / "cluster.yaml")
    rendered = str(project / "rendered" / CLUSTER)
    for args in (
        ["render", "--jobs", "1"],
        ["check", "--jobs", "1"],
        ["diff", "--jobs", "1"],
        ["explain-input", CLUSTER, "gitops"],
        ["lint", "--cluster", CLUSTER, rendered],
    ):
        result = run(project, *args)
        assert result.exit_code == 2, (args, result.output)
        assert (
            f"clusters/{CLUSTER}/cluster.yaml: error: cannot read file: Permission denied\n  hint: " in result.stderr
        ), args


def test_list_keeps_an_unreadable_cluster_and_names_it(project, run, monkeypatch):
    deny(monkeypatch, project / "clusters" / CLUSTER)
    result = run(project, "list")
    assert result.exit_code == 2
    assert f"{CLUSTER}\tclusters/{CLUSTER}/cluster.yaml\trendered/{CLUSTER}" in result.stdout.splitlines()
    assert f"clusters/{CLUSTER}/cluster.yaml: error: cannot read file: Permission denied" in result.stderr


def test_list_prints_a_folder_name_holding_a_newline_on_one_line(project, run):
    (project / "clusters" / "two\nlines").mkdir()
    result = run(project, "list")
    assert "two\\nlines\tclusters/two\\nlines/cluster.yaml\trendered/two\\nlines" in result.stdout.splitlines()
    assert len(result.stdout.splitlines()) == len([p for p in (project / "clusters").iterdir() if p.name[0] != "_"])
    assert "two\nlines" in [row["name"] for row in __import__("json").loads(run(project, "list", "--json").stdout)]


@pytest.mark.parametrize(
    ("refused", "kind"),
    [("kustomization.yaml", "file"), ("10-platform", "folder"), ("10-platform/kustomization.yaml", "file")],
)
def test_an_unreadable_rendered_file_or_folder_is_named_not_stale(rendered_project, run, monkeypatch, refused, kind):
    project = rendered_project
    tree = project / "rendered" / CLUSTER
    before = {p: p.read_bytes() for p in tree.rglob("*") if p.is_file()}
    deny(monkeypatch, tree / refused)
    for command in ("check", "diff", "render"):
        result = run(project, command, "--jobs", "1", CLUSTER)
        assert result.exit_code == 2, (command, result.output)
        assert f"rendered/{CLUSTER}/{refused}: error: cannot read {kind}: Permission denied" in result.stderr
    monkeypatch.undo()
    assert {p: p.read_bytes() for p in tree.rglob("*") if p.is_file()} == before


@pytest.mark.parametrize(
    "args",
    [
        ["render", "--jobs", "1"],
        ["render", CLUSTER],
        ["check", "--jobs", "1"],
        ["check", CLUSTER],
        ["diff", "--jobs", "1"],
        ["explain-input", CLUSTER, "gitops"],
        ["lint", "--cluster", CLUSTER, f"rendered/{CLUSTER}"],
        ["list"],
        ["list", "--json"],
        ["migrate"],
        ["init", "new-cluster"],
    ],
)
def test_an_unreadable_clusters_folder_is_named_by_every_command(project, run, monkeypatch, args):
    """Not "no clusters" (a render with nothing to do, exit 0), nor one cluster's input named
    in its stead: the folder that cannot be listed."""
    deny(monkeypatch, project / "clusters")
    result = run(project, *[str(project / a) if a.startswith("rendered/") else a for a in args])
    assert result.exit_code == 2, (args, result.output)
    assert result.stderr.startswith("clusters: error: cannot read folder: Permission denied\n  hint: "), result.stderr
