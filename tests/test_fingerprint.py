"""The sum file lets check and render skip unchanged clusters, and still catches every change."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import REPO

from generator.cli import cli
from generator.tree.fingerprint import SUM_FILE

CLUSTER = "aks-h100-training"


@pytest.fixture(scope="module")
def rendered_once(tmp_path_factory) -> Path:
    """The examples rendered once; tests change their own copy (``rendered_project``)."""
    root = tmp_path_factory.mktemp("fingerprint") / "proj"
    for name in ("clusters", "libsonnet", "schemas"):
        shutil.copytree(REPO / name, root / name)
    result = CliRunner().invoke(cli, ["--root", str(root), "--color", "never", "render"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return root


@pytest.fixture
def rendered_project(rendered_once, tmp_path) -> Path:
    """A copy of the rendered project, files and folders with their modes as render wrote them."""
    return Path(shutil.copytree(rendered_once, tmp_path / "proj", symlinks=True))


@pytest.fixture
def no_rendering(monkeypatch):
    """Any evaluation fails the test: the fast path must not get there."""
    import generator.render.cluster

    def refuse(*args, **kwargs):
        raise AssertionError("rendered a cluster whose hashes all matched")

    monkeypatch.setattr(generator.render.cluster, "render_evaluated", refuse)


def test_an_unchanged_fleet_is_checked_and_rendered_without_evaluating(rendered_project, run, no_rendering):
    check = run(rendered_project, "check")
    assert check.exit_code == 0, check.output
    assert "6 cluster(s) up to date" in check.stdout
    render = run(rendered_project, "render")
    assert render.exit_code == 0, render.output
    assert f"{CLUSTER}: up to date" in render.stdout


def test_a_hand_edit_to_a_rendered_file_is_caught(rendered_project, run):
    victim = rendered_project / "rendered" / CLUSTER / "kustomization.yaml"
    victim.write_text(victim.read_text() + "# edited\n")
    check = run(rendered_project, "check", CLUSTER)
    assert check.exit_code == 1
    assert f"rendered/{CLUSTER}/kustomization.yaml: stale: differs from what render produces" in check.stderr


def test_an_edited_sum_file_is_caught(rendered_project, run):
    sums = rendered_project / "rendered" / CLUSTER / SUM_FILE
    sums.write_text(sums.read_text().replace("output ", "output 0", 1))
    check = run(rendered_project, "check", CLUSTER)
    assert check.exit_code == 1
    assert f"rendered/{CLUSTER}/{SUM_FILE}: stale" in check.stderr


@pytest.mark.parametrize(
    "edit",
    [
        "clusters/aks-h100-training/cluster.yaml",  # the cluster's input, even a comment
        "clusters/aks-h100-training/notes.txt",  # any new file in its folder (overrides may import it)
        "libsonnet/main.libsonnet",
        "schemas/cluster.schema.json",
        ".gpu-gitops.yaml",
    ],
)
def test_a_change_to_any_input_sends_the_cluster_down_the_full_path(rendered_project, run, edit):
    path = rendered_project / edit
    text = path.read_text() if path.exists() else ""
    suffix = "\n" if path.suffix == ".json" else "\n# touched\n"
    path.write_text(text + suffix)
    check = run(rendered_project, "check", CLUSTER)
    assert check.exit_code == 1, check.output
    assert f"rendered/{CLUSTER}/{SUM_FILE}: stale: differs from what render produces" in check.stderr
    assert run(rendered_project, "render", CLUSTER).exit_code == 0
    assert run(rendered_project, "check", CLUSTER).exit_code == 0


def test_an_output_change_is_caught_through_the_full_path(rendered_project, run):
    path = rendered_project / "clusters" / CLUSTER / "cluster.yaml"
    path.write_text(path.read_text().replace("quota: {gpus: 24}", "quota: {gpus: 20}"))
    check = run(rendered_project, "check", CLUSTER)
    assert check.exit_code == 1
    assert "resourcequota_gpu-inference_gpu-quota.yaml: stale" in check.stderr


def test_validation_flags_on_the_command_line_take_the_full_path(rendered_project, run, no_rendering):
    with pytest.raises(AssertionError, match="rendered a cluster whose hashes all matched"):
        run(rendered_project, "check", "--require-schemas", CLUSTER)


def test_the_fast_path_imports_only_the_standard_library():
    code = (
        "import sys; from generator.tree import fingerprint, lock, write; from generator.render import pipeline; "
        "heavy = sorted(m for m in ('jsonschema', '_jsonnet', 'ruamel', 'click') if m in sys.modules); "
        "print(heavy)"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_a_synced_schema_set_is_validated_once_before_the_fast_path_trusts_a_tree(rendered_project, run, monkeypatch):
    """The sum file is machine-independent, the synced CRD schemas are not: a tree rendered
    before (or elsewhere than) a sync has never been validated against that set."""
    import os
    from pathlib import Path

    import generator.render.cluster

    schema_set = Path(os.environ["GPU_GITOPS_CACHE_DIR"]) / "crd-schemas" / "SET.json"
    schema_set.parent.mkdir(parents=True)
    schema_set.write_text('{"version": "test", "kinds": 0, "absent": []}')
    evaluated = []
    real = generator.render.cluster.render_evaluated
    monkeypatch.setattr(
        generator.render.cluster, "render_evaluated", lambda *a, **k: evaluated.append(1) or real(*a, **k)
    )
    assert run(rendered_project, "check", CLUSTER).exit_code == 0
    assert evaluated == [1]  # the full path: validated against the set
    assert run(rendered_project, "check", CLUSTER).exit_code == 0
    assert evaluated == [1]  # this machine has validated this tree against this set
    schema_set.write_text('{"version": "test-2", "kinds": 0, "absent": []}')
    assert run(rendered_project, "check", CLUSTER).exit_code == 0
    assert evaluated == [1, 1]  # a new set is validated again
