"""overrides.libsonnet as docs/overrides.md describes it: each example renders, an own component
lands in its layer and is synced after the library's layers, and a bad one is one clear error."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import REPO
from ruamel.yaml import YAML

from generator.library import registry

DOC = REPO / "docs" / "overrides.md"
_EXAMPLE = r"```jsonnet\n// clusters/([a-z0-9-]+)/overrides\.libsonnet\n(.*?)```"
EXAMPLES = re.findall(_EXAMPLE, DOC.read_text(encoding="utf-8"), re.S)
OWN_LAYER = registry.load(REPO / "libsonnet").own_layer


def _example(heading: str) -> tuple[str, str]:
    """The first example under the doc's ``## <heading>``."""
    section = DOC.read_text(encoding="utf-8").split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    match = re.search(_EXAMPLE, section, re.S)
    assert match, f"no example under {heading!r}"
    return match.group(1), match.group(2)


def _read(path: Path) -> dict:
    return YAML(typ="safe").load(path.read_text(encoding="utf-8"))


def _objects(tree: Path) -> dict[str, bytes]:
    return {p.relative_to(tree).as_posix(): p.read_bytes() for p in sorted(tree.rglob("*.yaml"))}


def _override(project: Path, cluster: str, text: str) -> None:
    (project / "clusters" / cluster / "overrides.libsonnet").write_text(text, encoding="utf-8")


def test_the_doc_has_examples():
    assert len(EXAMPLES) >= 3


@pytest.mark.parametrize("cluster, text", EXAMPLES, ids=[f"example{i}" for i in range(len(EXAMPLES))])
def test_every_documented_override_renders(project, run, cluster, text):
    _override(project, cluster, text)
    result = run(project, "render", cluster)
    assert result.exit_code == 0, result.stderr
    assert run(project, "check", cluster).exit_code == 0


def _changes(run, project: Path, cluster: str, text: str) -> tuple[dict[str, bytes], dict[str, bytes]]:
    """The cluster's rendered files before and after the override ``text``."""
    assert run(project, "render", cluster).exit_code == 0
    before = _objects(project / "rendered" / cluster)
    _override(project, cluster, text)
    result = run(project, "render", cluster)
    assert result.exit_code == 0, result.stderr
    return before, _objects(project / "rendered" / cluster)


def test_patching_one_object_changes_only_that_object(project, run):
    cluster, text = _example("Patch one object")
    before, after = _changes(run, project, cluster, text)
    assert before.keys() == after.keys()
    assert [rel for rel in before if before[rel] != after[rel]] == [
        "20-workloads/workload-isolation/namespace_gpu-training.yaml"
    ]
    ns = _read(project / "rendered" / cluster / "20-workloads" / "workload-isolation" / "namespace_gpu-training.yaml")
    assert ns["metadata"]["labels"]["team.example.com/owner"] == "ml-platform"


def test_a_nested_patch_of_a_per_pool_object_keeps_its_other_fields(project, run):
    cluster, text = [e for e in EXAMPLES if "gpu-node-config-h100" in e[1]][0]
    before, after = _changes(run, project, cluster, text)
    rel = "40-per-node/gpu-node-config/daemonset_gpu-operator_gpu-node-config-h100.yaml"
    assert [r for r in before if before[r] != after.get(r)] == [rel]
    old, new = (YAML(typ="safe").load(tree[rel]) for tree in (before, after))
    assert new["spec"]["updateStrategy"] == {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%"}}
    del old["spec"]["updateStrategy"], new["spec"]["updateStrategy"]
    assert new == old


def test_removing_one_object_removes_only_its_file(project, run):
    cluster, text = _example("Remove one object")
    before, after = _changes(run, project, cluster, text)
    gone = "20-workloads/workload-isolation/networkpolicy_gpu-training_allow-metrics-scraping.yaml"
    assert sorted(set(before) - set(after)) == [gone]
    changed = [rel for rel in after if before[rel] != after[rel]]
    assert changed == ["20-workloads/workload-isolation/kustomization.yaml"]
    assert gone.rsplit("/", 1)[1] not in _read(project / "rendered" / cluster / changed[0])["resources"]


def test_an_own_component_renders_into_its_layer_and_is_synced_last(project, run):
    cluster, text = _example("Add a component of your own")
    _override(project, cluster, text)
    assert run(project, "render", cluster).exit_code == 0
    tree = project / "rendered" / cluster
    assert (
        _read(tree / OWN_LAYER / "team-settings" / "configmap_gpu-training_team-settings.yaml")["data"]["owner"]
        == "ml-platform"
    )
    assert OWN_LAYER in _read(tree / "kustomization.yaml")["resources"]
    sync = _read(tree / "gitops" / f"kustomization_flux-system_{cluster}-{OWN_LAYER}.yaml")
    # the waited-on layers before it: not 30-autoscaling nor 40-per-node, never waited on
    waited = [f"{cluster}-{layer}" for layer in ("00-crds-operators", "10-platform", "20-workloads")]
    assert [d["name"] for d in sync["spec"]["dependsOn"]] == waited


def test_an_own_component_on_argo_cd_comes_in_the_last_sync_wave(project, run):
    _override(
        project,
        "eks-mi300x-inference",
        "{ 'team-settings': [{ apiVersion: 'v1', kind: 'ConfigMap', "
        "metadata: { name: 'team-settings', namespace: 'default' } }] }",
    )
    assert run(project, "render", "eks-mi300x-inference").exit_code == 0
    apps = {
        _read(p)["metadata"]["name"]: _read(p)
        for p in (project / "rendered" / "eks-mi300x-inference" / "gitops").glob("application_*.yaml")
    }
    own = apps[f"eks-mi300x-inference-{OWN_LAYER}"]
    waves = [int(a["metadata"].get("annotations", {}).get("argocd.argoproj.io/sync-wave", -1)) for a in apps.values()]
    assert int(own["metadata"]["annotations"]["argocd.argoproj.io/sync-wave"]) == max(waves)


def test_an_own_component_with_a_name_that_is_no_folder_is_one_error_at_the_override(project, run):
    _override(
        project,
        "aks-h100-training",
        "{ myTeam: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'default' } }] }",
    )
    result = run(project, "render", "aks-h100-training")
    assert result.exit_code == 2
    assert result.stderr == (
        "clusters/aks-h100-training/overrides.libsonnet:1:3: error: invalid component name 'myTeam': a component "
        "of one's own is named like a folder\n  hint: use lower-case letters, digits and '-', e.g. 'team-settings'\n"
    )


def test_dropping_a_library_component_names_it_once(project, run):
    _override(project, "aks-h100-training", "{ keda:: super.keda }")
    result = run(project, "render", "aks-h100-training")
    assert result.exit_code == 2
    assert "missing: keda" in result.stderr and "; \n" not in result.stderr and not result.stderr.count("; ;")


@pytest.mark.parametrize(
    "objects, where, message",
    [
        (
            "{ 'Bad_Name': { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Bad_Name' } } }",
            "3:76",
            "has an invalid name 'Bad_Name'",
        ),
        (
            "{ x: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'No' } } }",
            "3:83",
            "has an invalid namespace 'No'",
        ),
        ("{ x: { apiVersion: 'v1', kind: 'Config-Map', metadata: { name: 'x' } } }", "3:36", "has an invalid kind"),
        ("{ x: { kind: 'ConfigMap' } }", "2:3", "is not a Kubernetes object"),
    ],
)
def test_a_bad_object_of_an_override_is_an_error_at_its_line(project, run, objects, where, message):
    _override(project, "aks-h100-training", "{\n  'team-settings'+:\n    " + objects + ",\n}\n")
    result = run(project, "render", "aks-h100-training")
    assert result.exit_code == 2
    assert result.stderr.startswith(f"clusters/aks-h100-training/overrides.libsonnet:{where}: error: "), result.stderr
    assert message in result.stderr and "\n  hint: " in result.stderr


def test_a_value_jsonnet_cannot_write_is_an_error_at_the_override_field(project, run):
    text = "{\n  'workload-isolation'+: {\n    'namespace_gpu-training'+: {\n"
    text += "      metadata+: { labels+: { team: function(x) x } },\n    },\n  },\n}\n"
    _override(project, "aks-h100-training", text)
    result = run(project, "render", "aks-h100-training")
    assert result.exit_code == 2
    first = result.stderr.splitlines()[0]
    assert first == (
        "clusters/aks-h100-training/overrides.libsonnet:4:31: error: tried to manifest function "
        "(in field workload-isolation.metadata.labels.team)"
    )
    assert "manifestification" not in result.stderr
    verbose = run(project, "render", "-v", "aks-h100-training")
    assert verbose.exit_code == 2 and "    field <team> manifestification" in verbose.stderr


def test_an_error_raised_in_the_library_is_placed_at_the_override_that_called_it(project, run):
    """A library function given a bad argument by the override fails inside the library: the
    error is at the override's call, the library's frame is in the trace under -v."""
    text = "local k = import 'lib/k.libsonnet';\n{\n  'team-settings'+: {\n"
    text += "    cm: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: k.image('a', 5) } },\n  },\n}\n"
    _override(project, "aks-h100-training", text)
    result = run(project, "render", "aks-h100-training")
    assert result.exit_code == 2
    assert result.stderr.startswith("clusters/aks-h100-training/overrides.libsonnet:4:"), result.stderr
    assert "libsonnet/lib/k.libsonnet" not in result.stderr
    verbose = run(project, "render", "-v", "aks-h100-training")
    assert "lib/k.libsonnet:" in verbose.stderr


def test_control_characters_of_a_jsonnet_error_are_escaped(project, run):
    _override(project, "aks-h100-training", "{ x: error 'boom\\u202e\\u0000\\u007f' }\n")
    result = run(project, "render", "aks-h100-training")
    assert result.exit_code == 2
    assert "boom\\u202e\\x00\\x7f" in result.stderr, result.stderr
    assert not any(c in result.stderr for c in "\u202e\x00\x7f\r")


def test_a_file_larger_than_lint_reads_is_refused_at_the_override(project, run):
    """What render writes, ``lint rendered/`` reads: one size limit, checked before writing."""
    from generator.yamlio import read as yamlread

    size = yamlread.MANIFESTS.document_bytes + 1024
    text = "{\n  'team-settings'+: {\n    big: { apiVersion: 'v1', kind: 'ConfigMap',\n"
    text += f"      metadata: {{ name: 'big', namespace: 'default' }}, data: {{ a: std.repeat('x', {size}) }} }},\n  }},\n}}\n"
    _override(project, "aks-h100-training", text)
    result = run(project, "render", "aks-h100-training")
    assert result.exit_code == 2
    assert result.stderr.startswith(
        "clusters/aks-h100-training/overrides.libsonnet:4:25: error: 50-own/team-settings/configmap_default_big.yaml: "
        f"the rendered file is {size + 195} bytes, larger than the {yamlread.MANIFESTS.document_bytes} byte limit"
    ), result.stderr
    assert "\n  hint: " in result.stderr
    assert not (project / "rendered" / "aks-h100-training").exists()
