"""The sum file lets check and render skip unchanged clusters, and still catches every change."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import EXAMPLES, REPO, crd_args, needs_crd_schemas, settle

from generator.cli import cli
from generator.tree import fingerprint
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
    assert f"{len(EXAMPLES)} cluster(s) up to date" in check.stdout
    render = run(rendered_project, "render")
    assert render.exit_code == 0, render.output
    assert f"{CLUSTER}: up to date" in render.stdout


def test_a_hand_edit_to_a_rendered_file_is_caught(rendered_project, run):
    victim = rendered_project / "rendered" / CLUSTER / "kustomization.yaml"
    victim.write_text(victim.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    check = run(rendered_project, "check", CLUSTER)
    assert check.exit_code == 1
    assert f"rendered/{CLUSTER}/kustomization.yaml: stale: differs from what render produces" in check.stderr


def test_an_edited_sum_file_is_caught(rendered_project, run):
    sums = rendered_project / "rendered" / CLUSTER / SUM_FILE
    sums.write_text(sums.read_text(encoding="utf-8").replace("output ", "output 0", 1), encoding="utf-8")
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
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    suffix = "\n" if path.suffix == ".json" else "\n# touched\n"
    path.write_text(text + suffix, encoding="utf-8")
    check = run(rendered_project, "check", CLUSTER)
    assert check.exit_code == 1, check.output
    assert f"rendered/{CLUSTER}/{SUM_FILE}: stale: differs from what render produces" in check.stderr
    assert run(rendered_project, "render", CLUSTER).exit_code == 0
    assert run(rendered_project, "check", CLUSTER).exit_code == 0


def test_an_output_change_is_caught_through_the_full_path(rendered_project, run):
    path = rendered_project / "clusters" / CLUSTER / "cluster.yaml"
    path.write_text(
        path.read_text(encoding="utf-8").replace("quota: {gpus: 24}", "quota: {gpus: 20}"), encoding="utf-8"
    )
    check = run(rendered_project, "check", CLUSTER)
    assert check.exit_code == 1
    assert "resourcequota_gpu-inference_gpu-quota.yaml: stale" in check.stderr


@pytest.fixture
def evaluations(monkeypatch) -> list[str]:
    """The clusters that took the full path (were evaluated and validated), in order."""
    import generator.render.cluster

    seen: list[str] = []
    real = generator.render.cluster.render_evaluated
    monkeypatch.setattr(
        generator.render.cluster, "render_evaluated", lambda p, c, *a, **k: seen.append(c.name) or real(p, c, *a, **k)
    )
    return seen


@needs_crd_schemas()
def test_validation_flags_take_the_full_path_until_this_machine_validated_the_tree_with_them(
    rendered_project, run, evaluations
):
    """CI passes its schema locations on the command line: a tree validated once with those
    flags, without an error or a warning, is trusted after; other flags validate again."""
    flags = crd_args()
    assert run(rendered_project, "check", *flags, CLUSTER).exit_code == 0
    assert evaluations == [CLUSTER]
    assert run(rendered_project, "check", *flags, CLUSTER).exit_code == 0
    assert evaluations == [CLUSTER]  # validated with these flags already
    assert run(rendered_project, "render", *flags, CLUSTER).stdout == f"{CLUSTER}: up to date\n"
    assert evaluations == [CLUSTER]
    assert run(rendered_project, "check", "--require-schemas", *flags, CLUSTER).exit_code == 0
    assert evaluations == [CLUSTER] * 2  # other flags
    assert run(rendered_project, "check", "--require-schemas", *flags, CLUSTER).exit_code == 0
    assert evaluations == [CLUSTER] * 2


@needs_crd_schemas()
def test_a_rewritten_sum_file_is_validated_again_though_its_lines_are_the_same(
    rendered_project, run, evaluations, monkeypatch
):
    """The marker is found by the sum file's sha256, which a no-op check takes from the stat
    record with the tree's other files: the sum file rewritten with other line ends (the same
    lines, other bytes: the comparison of lines passes) is hashed again, so the marker of the
    tree as validated is not found, and the tree is validated again (and found stale)."""
    settle(monkeypatch)
    flags = crd_args()
    for _ in range(2):
        assert run(rendered_project, "check", *flags, CLUSTER).exit_code == 0
    assert evaluations == [CLUSTER]  # the second answered by the marker, through the stat record
    path = rendered_project / "rendered" / CLUSTER / SUM_FILE
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    result = run(rendered_project, "check", *flags, CLUSTER)
    assert evaluations == [CLUSTER] * 2
    assert result.exit_code == 1 and f"{CLUSTER}/{SUM_FILE}: stale" in result.stderr


def test_a_tree_whose_validation_warned_or_failed_is_validated_by_every_run(
    rendered_project, run, evaluations, tmp_path
):
    """What the full path prints, every run prints: a tree with custom resources left
    unchecked (a warning), or failing --require-schemas, is never trusted."""
    flags = ["--schema-location", str(tmp_path / "{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json")]
    first, second = (run(rendered_project, "check", *flags, CLUSTER) for _ in range(2))
    assert first.exit_code == second.exit_code == 0 and evaluations == [CLUSTER] * 2
    assert "no schema found, not schema-checked" in first.stderr and first.stderr == second.stderr
    for _ in range(2):
        assert run(rendered_project, "check", "--require-schemas", *flags, CLUSTER).exit_code == 1
    assert evaluations == [CLUSTER] * 4


@needs_crd_schemas()
def test_a_schema_file_that_appears_or_changes_at_a_flagged_location_validates_again(
    rendered_project, run, evaluations, tmp_path
):
    """The marker lists the schema paths validation consulted: a file where there was none, or
    an edited one, changes the verdict, so the tree is validated again (each run a new
    process, as on the command line: no validator kept from the run before)."""
    from generator.render import pipeline

    def check():
        pipeline.validator.cache_clear()
        return run(rendered_project, "check", *flags, CLUSTER)

    mine = str(tmp_path / "crds/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json")
    flags = ["--schema-location", mine, *crd_args()]  # tried first, empty: the upstream ones answer
    assert check().exit_code == 0
    assert check().exit_code == 0
    assert evaluations == [CLUSTER]
    schema = tmp_path / "crds/helm.toolkit.fluxcd.io/helmrelease_v2.json"
    schema.parent.mkdir(parents=True)
    schema.write_text('{"type": "object", "x-kubernetes-preserve-unknown-fields": true}', encoding="utf-8")
    assert check().exit_code == 0
    assert evaluations == [CLUSTER] * 2  # a schema appeared where validation found none
    assert check().exit_code == 0
    assert evaluations == [CLUSTER] * 2
    schema.write_text('{"type": "object", "required": ["nothing-has-this"]}', encoding="utf-8")
    failed = check()
    assert evaluations == [CLUSTER] * 3  # the schema changed
    assert failed.exit_code == 1 and "nothing-has-this" in failed.stderr


def test_the_fast_path_imports_only_the_standard_library():
    code = (
        "import sys; from generator.tree import fingerprint, lock, write; from generator.render import pipeline; "
        "heavy = sorted(m for m in ('jsonschema', '_jsonnet', 'ruamel', 'click') if m in sys.modules); "
        "print(heavy)"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, encoding="utf-8", check=True)
    assert done.stdout.strip() == "[]"


@needs_crd_schemas()
def test_a_synced_schema_set_is_validated_once_before_the_fast_path_trusts_a_tree(rendered_project, run, evaluations):
    """The sum file is machine-independent, the synced CRD schemas are not: a tree rendered
    before (or elsewhere than) a sync has never been validated against that set. (The set
    here: the upstream schemas, the newer overlay on top, as a sync lays them out; the cluster is
    one whose every custom resource has a schema there: a tree with an unchecked kind is never
    trusted.)"""
    import os
    import shutil
    from pathlib import Path

    from conftest import CRD_SCHEMAS

    TRUSTED = "onprem-mi300x-operator"  # noqa: N806

    folder = Path(os.environ["GPU_GITOPS_CACHE_DIR"]) / "crd-schemas"
    shutil.copytree(CRD_SCHEMAS, folder, ignore=shutil.ignore_patterns("_*", "*.md"))
    shutil.copytree(CRD_SCHEMAS / "_upstream-latest", folder, dirs_exist_ok=True)
    schema_set = folder / "SET.json"
    schema_set.write_text('{"version": "test", "kinds": 0, "absent": []}', encoding="utf-8")
    assert run(rendered_project, "check", TRUSTED).exit_code == 0
    assert evaluations == [TRUSTED]  # the full path: validated against the set
    assert run(rendered_project, "check", TRUSTED).exit_code == 0
    assert evaluations == [TRUSTED]  # this machine has validated this tree against this set
    schema_set.write_text('{"version": "test-2", "kinds": 0, "absent": []}', encoding="utf-8")
    assert run(rendered_project, "check", TRUSTED).exit_code == 0
    assert evaluations == [TRUSTED] * 2  # a new set is validated again


def test_a_file_no_render_can_read_is_recorded_by_size_and_never_read(project, monkeypatch):
    """A 300 MB file in a cluster's folder (or a 300 MB cluster.yaml) is not hashed: no input or
    import that large reaches a render, so its bytes cannot change a tree."""
    from generator.library.jsonnet import MAX_IMPORT_BYTES
    from generator.paths import Project
    from generator.tree import fingerprint
    from generator.yamlio.read import INPUTS

    assert fingerprint.UNREAD_BYTES >= max(MAX_IMPORT_BYTES, INPUTS.file_bytes)
    folder = project / "clusters" / "aks-nap-h100"
    with open(folder / "big.bin", "wb") as handle:
        handle.truncate(300 * 1024 * 1024)  # sparse: nothing is written
    opened: list[str] = []
    original = os.open
    monkeypatch.setattr(os, "open", lambda path, *a, **k: (opened.append(os.fspath(path)), original(path, *a, **k))[1])
    lines = fingerprint.input_lines(Project(project), "aks-nap-h100", ())
    assert f"input too-large-{300 * 1024 * 1024}-bytes  big.bin" in lines
    assert str(folder / "big.bin") not in opened and str(folder / "cluster.yaml") in opened


def test_hashing_reads_a_file_in_bounded_chunks(tmp_path, monkeypatch):
    from generator.tree import fingerprint

    path = tmp_path / "f"
    path.write_bytes(b"x" * (3 << 20))
    asked: list[int] = []
    original = os.read
    monkeypatch.setattr(os, "read", lambda fd, n: (asked.append(n), original(fd, n))[1])
    assert fingerprint._digest(str(path)) == hashlib.sha256(b"x" * (3 << 20)).hexdigest()
    assert max(asked) <= 1 << 20


def test_an_import_past_its_bound_is_refused(tmp_path):
    from generator.library import jsonnet

    (tmp_path / "big.txt").write_bytes(b"x" * (jsonnet.MAX_IMPORT_BYTES + 1))
    sandbox = jsonnet.Sandbox(tmp_path, tmp_path, tmp_path)
    with pytest.raises(RuntimeError, match="is larger than"):
        sandbox.resolve(str(tmp_path), "big.txt")


def test_a_schema_file_many_clusters_consulted_is_hashed_once_until_it_changes(tmp_path, monkeypatch):
    """The validation markers of a fleet's clusters list the same schema files: each is hashed
    once while ``lstat`` sees it unchanged, and again once it changed."""
    hashed: list[str] = []
    real = fingerprint._digest
    monkeypatch.setattr(fingerprint, "_digest", lambda path, **kw: hashed.append(path) or real(path, **kw))
    monkeypatch.setattr(fingerprint, "_SCHEMA_DIGESTS", {})
    schema = tmp_path / "widget.json"
    schema.write_text('{"type": "object"}', encoding="utf-8")
    flags = "--schema-location\nsomewhere"

    def listed(sum_bytes: bytes) -> str:
        fingerprint.record_validated(sum_bytes, flags, [(str(schema), True)])
        return fingerprint._validated_marker(fingerprint._sha(sum_bytes), fingerprint._schema_set(), flags).read_text(
            encoding="utf-8"
        )

    first, second = listed(b"cluster a"), listed(b"cluster b")
    assert first == second and len(hashed) == 1
    schema.write_text('{"type": "object", "required": ["spec"]}', encoding="utf-8")
    third = listed(b"cluster c")
    assert len(hashed) == 2 and third != first
    assert third.split()[0] == hashlib.sha256(schema.read_bytes()).hexdigest()
