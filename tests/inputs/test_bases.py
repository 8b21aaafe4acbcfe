"""Bases: the merge rules, the order and sandbox of bases, provenance in errors and in
``explain-input``, the sum file and ``--changed-only`` over bases, ``diff`` naming the base."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import jsonschema
import pytest
from conftest import REPO, validate_json

from generator.errors import InputError
from generator.inputs import bases
from generator.inputs.load import load_cluster, load_schema
from generator.inputs.merge import merge
from generator.paths import Project
from generator.render import selection
from generator.tree import fingerprint
from generator.yamlio.positions import load_text

HEADER = "apiVersion: gpu-gitops.io/v1alpha2\nkind: {kind}\n"
FLEET = """\
kubernetesVersion: "1.32"
provider: generic
gitops:
  engine: flux
  repository: https://git.example.com/fleet.git
  branch: main
network:
  cilium:
    enabled: false
"""
POOLS = """\
bases: [fleet]
gitops:
  branch: staging
nodePools:
  - name: gpu
    nodeSelector: {pool: gpu}
    gpu: {vendor: nvidia, model: H100-80GB, perNode: 8, nodes: 2}
    sysctls: {net.core.rmem_max: 134217728}
  - name: system
    nodeSelector: {pool: system}
workloads:
  - namespace: training
    type: training
    quota: {gpus: 8}
"""
CLUSTER = """\
bases: [pools]
name: {name}
gitops:
  branch: release
nodePools:
  - name: gpu
    gpu: {{nodes: 4}}
  - name: extra
    nodeSelector: {{pool: extra}}
"""


def _base(root: Path, name: str, body: str) -> Path:
    path = root / "clusters" / "_bases" / f"{name}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER.format(kind="ClusterBase") + body, encoding="utf-8")
    return path


def _cluster(root: Path, name: str, body: str = CLUSTER) -> Path:
    path = root / "clusters" / name / "cluster.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER.format(kind="Cluster") + body.format(name=name), encoding="utf-8")
    return path


@pytest.fixture
def fleet(tmp_path: Path) -> Path:
    """A project of two clusters on ``pools``, which names ``fleet``; ``solo`` uses no base."""
    _base(tmp_path, "fleet", FLEET)
    _base(tmp_path, "pools", POOLS)
    _cluster(tmp_path, "c1")
    _cluster(tmp_path, "c2")
    return tmp_path


def _layer(text: str, path: str = "layer.yaml"):
    return load_text(text, path)


# --- the merge rules ------------------------------------------------------------------------


def test_mappings_merge_deeply_and_scalars_replace():
    schema = load_schema(REPO / "schemas" / "cluster.schema.json")
    merged = merge(
        [_layer("gitops: {engine: flux, branch: main}\n"), _layer("gitops: {branch: release, path: x}\n")],
        [Path("a"), Path("b")],
        schema,
    )
    assert merged.data == {"gitops": {"engine": "flux", "branch": "release", "path": "x"}}


def test_named_lists_merge_by_their_key_and_other_lists_replace():
    schema = load_schema(REPO / "schemas" / "cluster.schema.json")
    first = "nodePools: [{name: a, nodeSelector: {x: '1'}}, {name: b}]\nworkloads: [{namespace: n, type: batch}]\n"
    first += "network: {cilium: {devices: [eth0, eth1]}}\n"
    second = "nodePools: [{name: b, nodeSelector: {y: '2'}}, {name: c}]\nworkloads: [{namespace: n, podSecurity: baseline}]\n"
    second += "network: {cilium: {devices: [bond0]}}\n"
    merged = merge([_layer(first), _layer(second)], [Path("a"), Path("b")], schema)
    assert merged.data["nodePools"] == [
        {"name": "a", "nodeSelector": {"x": "1"}},
        {"name": "b", "nodeSelector": {"y": "2"}},
        {"name": "c"},
    ]
    assert merged.data["workloads"] == [{"namespace": "n", "type": "batch", "podSecurity": "baseline"}]
    assert merged.data["network"]["cilium"]["devices"] == ["bond0"]


def test_two_items_of_one_file_with_one_name_stay_two():
    schema = load_schema(REPO / "schemas" / "cluster.schema.json")
    merged = merge(
        [_layer("nodePools: [{name: a}]\n"), _layer("nodePools: [{name: a}, {name: a}]\n")],
        [Path("a"), Path("b")],
        schema,
    )
    assert merged.data["nodePools"] == [{"name": "a"}, {"name": "a"}]  # the unique-name check reports it


def test_null_removes_a_key_and_the_default_applies(fleet: Path):
    _cluster(fleet, "c1", CLUSTER + "workloads:\n  - namespace: training\n    quota: null\n")
    spec = load_cluster(Project(fleet), "c1").spec
    assert spec["workloads"][0]["quota"] == {}
    assert load_cluster(Project(fleet), "c2").spec["workloads"][0]["quota"] == {"gpus": 8}


def test_order_bases_before_the_bases_naming_them_each_once(fleet: Path):
    _base(fleet, "extra", "bases: [fleet]\ngitops: {branch: extra}\n")
    _cluster(
        fleet,
        "c1",
        CLUSTER.replace("bases: [pools]", "bases: [pools, extra]").replace("  branch: release\n", "  interval: 5m\n"),
    )
    top = bases.read(Project(fleet), fleet / "clusters" / "c1" / "cluster.yaml")
    assert [layer.doc.path for layer in bases.chain(Project(fleet), top)] == [
        "clusters/_bases/fleet.yaml",
        "clusters/_bases/pools.yaml",
        "clusters/_bases/extra.yaml",
    ]
    assert load_cluster(Project(fleet), "c1").spec["gitops"]["branch"] == "extra"  # the later base wins


def test_a_base_that_names_itself_is_an_error_at_the_name(fleet: Path):
    _base(fleet, "fleet", "bases: [pools]\n" + FLEET)
    with pytest.raises(InputError) as caught:
        load_cluster(Project(fleet), "c1")
    d = caught.value.diagnostic
    assert (d.location.path, d.location.line) == ("clusters/_bases/fleet.yaml", 3)
    assert "pools → fleet → pools" in d.message


@pytest.mark.parametrize("name", ["../escape", "/etc/passwd", "a.b", "Fleet", "a//b"])
def test_a_base_name_is_a_path_under_bases_only(fleet: Path, name: str):
    _cluster(fleet, "c1", CLUSTER.replace("bases: [pools]", f"bases: [{json.dumps(name)}]"))
    with pytest.raises(InputError) as caught:
        load_cluster(Project(fleet), "c1")
    assert caught.value.location.line == 3 and "is not a base name" in caught.value.message


def test_a_base_may_not_link_out_of_the_bases_folder(fleet: Path, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside") / "evil.yaml"
    outside.write_text(HEADER.format(kind="ClusterBase"), encoding="utf-8")
    os.symlink(outside, fleet / "clusters" / "_bases" / "evil.yaml")
    _cluster(fleet, "c1", CLUSTER.replace("bases: [pools]", "bases: [pools, evil]"))
    with pytest.raises(InputError, match="links outside clusters/_bases/"):
        load_cluster(Project(fleet), "c1")


def test_a_missing_base_is_located_at_its_name(fleet: Path):
    _cluster(fleet, "c1", CLUSTER.replace("bases: [pools]", "bases:\n  - pools\n  - missing"))
    with pytest.raises(InputError) as caught:
        load_cluster(Project(fleet), "c1")
    assert (caught.value.location.line, caught.value.location.col) == (5, 5)
    assert "clusters/_bases/missing.yaml" in caught.value.message


@pytest.mark.parametrize(("make", "what"), [("folder", "is a folder, not a file"), ("fifo", "is a FIFO, not a file")])
def test_a_base_that_is_no_file_is_named_for_what_it_is(fleet: Path, make: str, what: str):
    path = fleet / "clusters" / "_bases" / "odd.yaml"
    path.mkdir() if make == "folder" else os.mkfifo(path)
    _cluster(fleet, "c1", CLUSTER.replace("bases: [pools]", "bases:\n  - pools\n  - odd"))
    with pytest.raises(InputError) as caught:
        load_cluster(Project(fleet), "c1")
    assert (caught.value.location.line, caught.value.location.col) == (5, 5)
    assert caught.value.message == f"base 'odd' {what}: clusters/_bases/odd.yaml"


def test_a_base_cannot_set_the_name(fleet: Path):
    _base(fleet, "fleet", "name: shared\n" + FLEET)
    with pytest.raises(InputError, match="a base cannot set the cluster's name"):
        load_cluster(Project(fleet), "c1")


def test_the_editor_schema_takes_a_partial_base_and_refuses_a_partial_cluster():
    schema = load_schema(REPO / "schemas" / "cluster.schema.json")
    partial = {"apiVersion": "gpu-gitops.io/v1alpha2", "nodePools": [{"name": "gpu", "nodeSelector": {"a": "b"}}]}
    validate_json({**partial, "kind": "ClusterBase"}, schema)
    with pytest.raises(jsonschema.ValidationError, match="required"):
        validate_json({**partial, "kind": "Cluster"}, schema)
    with pytest.raises(jsonschema.ValidationError):
        validate_json({**partial, "kind": "ClusterBase", "nodePoolz": []}, schema)  # keys still checked


# --- provenance -----------------------------------------------------------------------------


def test_an_error_points_at_the_base_line_that_set_the_value(fleet: Path):
    (fleet / "clusters" / "_bases" / "pools.yaml").write_text(
        (fleet / "clusters" / "_bases" / "pools.yaml").read_text(encoding="utf-8").replace("134217728", "1000"),
        encoding="utf-8",
    )
    with pytest.raises(InputError) as caught:
        load_cluster(Project(fleet), "c1")
    d = caught.value.diagnostic
    assert (d.location.path, d.location.line) == ("clusters/_bases/pools.yaml", 10)
    assert d.note == (
        "set by clusters/_bases/pools.yaml:10:34; layers: clusters/_bases/fleet.yaml → clusters/_bases/pools.yaml"
        " → clusters/c1/cluster.yaml"
    )


def test_an_error_in_a_base_is_reported_once_naming_the_clusters(fleet: Path, run):
    path = fleet / "clusters" / "_bases" / "pools.yaml"
    path.write_text(
        path.read_text(encoding="utf-8").replace("  branch: staging\n", "  branch: staging\n  brnach: x\n"),
        encoding="utf-8",
    )
    result = run(fleet, "render")
    assert result.exit_code == 2
    assert result.stderr.count("clusters/_bases/pools.yaml:6:3: error: unknown key 'brnach' in gitops") == 1
    assert "in 2 cluster(s) using it: c1, c2" in result.stderr


def test_explain_input_shows_two_bases_and_the_cluster(fleet: Path, run):
    result = run(fleet, "explain-input", "c1", "gitops.branch")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        'gitops.branch: "release"',
        "  set by clusters/_bases/fleet.yaml:8:11",
        "  overridden by clusters/_bases/pools.yaml:5:11",
        "  overridden by clusters/c1/cluster.yaml:6:11",
        "  layers: clusters/_bases/fleet.yaml → clusters/_bases/pools.yaml → clusters/c1/cluster.yaml",
    ]
    pool = json.loads(run(fleet, "explain-input", "--json", "c1", "nodePools[gpu].gpu.nodes").stdout)
    assert pool["value"] == 4 and [s["file"] for s in pool["setBy"]] == [
        "clusters/_bases/pools.yaml",
        "clusters/c1/cluster.yaml",
    ]
    dotted = run(fleet, "explain-input", "c1", "nodePools[gpu].sysctls.net.core.rmem_max")
    assert dotted.stdout.startswith(
        "nodePools[gpu].sysctls.net.core.rmem_max: 134217728\n  set by clusters/_bases/pools.yaml:10:"
    )
    default = run(fleet, "explain-input", "c1", "gitops.interval")
    assert "set by no file: the default" in default.stdout
    wrong = run(fleet, "explain-input", "c1", "gitops.brnch")
    assert wrong.exit_code == 2 and "did you mean 'branch'?" in wrong.stderr


# --- change detection -----------------------------------------------------------------------


def test_the_sum_file_records_the_bases_and_a_changed_base_is_not_fresh(fleet: Path, run):
    solo = fleet / "clusters" / "solo" / "cluster.yaml"
    solo.parent.mkdir()
    solo.write_text(
        HEADER.format(kind="Cluster") + FLEET + POOLS[POOLS.index("nodePools:") :] + "name: solo\n", encoding="utf-8"
    )
    assert run(fleet, "render").exit_code == 0
    sums = (fleet / "rendered" / "c1" / fingerprint.SUM_FILE).read_text(encoding="utf-8")
    assert "  clusters/_bases/fleet.yaml\n" in sums and "  clusters/_bases/pools.yaml\n" in sums
    project = Project(fleet)
    assert fingerprint.fresh(project, ["c1", "c2", "solo"], None) == ["c1", "c2", "solo"]
    base = fleet / "clusters" / "_bases" / "fleet.yaml"
    base.write_text(base.read_text(encoding="utf-8") + "# a comment changes the bytes\n", encoding="utf-8")
    assert fingerprint.fresh(project, ["c1", "c2", "solo"], None) == ["solo"]
    pools = hashlib.sha256((fleet / "clusters" / "_bases" / "pools.yaml").read_bytes()).hexdigest()
    now = [("clusters/_bases/fleet.yaml", "edited"), ("clusters/_bases/pools.yaml", pools)]
    assert fingerprint.changed_inputs(project, "c1", now) == ["clusters/_bases/fleet.yaml"]
    base.write_text(base.read_text(encoding="utf-8").replace("branch: main", "branch: trunk"), encoding="utf-8")
    (fleet / "clusters" / "_bases" / "pools.yaml").write_text(
        (fleet / "clusters" / "_bases" / "pools.yaml")
        .read_text(encoding="utf-8")
        .replace("  branch: staging\n", "  interval: 5m\n"),
        encoding="utf-8",
    )
    diff = run(fleet, "diff", "c1")
    assert diff.exit_code == 1, diff.stderr
    assert "c1: from changes to clusters/_bases/fleet.yaml, clusters/_bases/pools.yaml\n" in diff.stdout
    assert "+  interval: 5m" in diff.stdout and "trunk" not in diff.stdout  # the cluster's own branch wins
    summary = run(fleet, "diff", "--format", "markdown", "c1")
    assert "Changed inputs: `clusters/_bases/fleet.yaml`, `clusters/_bases/pools.yaml`" in summary.stdout


def test_changed_only_selects_every_cluster_using_a_changed_base(fleet: Path):
    _base(fleet, "other", "gitops: {branch: x}\n")
    _cluster(fleet, "c3", CLUSTER.replace("bases: [pools]", "bases: [other, pools]"))
    project = Project(fleet)
    names = ["c1", "c2", "c3"]
    used = bases.users(project, names)
    assert used["c3"] == {"clusters/_bases/other.yaml", "clusters/_bases/pools.yaml", "clusters/_bases/fleet.yaml"}
    assert selection.affected(["clusters/_bases/fleet.yaml"], names, lambda: used) == names
    assert selection.affected(["clusters/_bases/other.yaml"], names, lambda: used) == ["c3"]
    assert selection.affected(["clusters/c2/cluster.yaml"], names, lambda: used) == ["c2"]
