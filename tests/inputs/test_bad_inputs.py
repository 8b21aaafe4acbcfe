"""Bad input: one located error line with a hint, exit 2, no traceback, rendered/ untouched."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import REPO

from generator.cli import cli
from generator.paths import Project
from generator.tree.write import read_tree

CLUSTER = "aks-h100-training"
LOCATED = re.compile(r"^(?P<path>[^\s:]+):(?P<line>\d+):(?P<col>\d+): error: ", re.M)


def _edit(root: Path, old: str, new: str, cluster: str = CLUSTER) -> None:
    path = root / "clusters" / cluster / "cluster.yaml"
    text = path.read_text(encoding="utf-8")
    assert old in text, f"fixture text {old!r} not in {cluster}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.fixture(scope="module")
def _rendered_tree(tmp_path_factory) -> Path:
    """``rendered/`` of a copy of the project after `render CLUSTER`, made once per module."""
    root = tmp_path_factory.mktemp("bad-inputs") / "proj"
    for name in ("clusters", "libsonnet", "schemas"):
        shutil.copytree(REPO / name, root / name)
    result = CliRunner().invoke(cli, ["--root", str(root), "--color", "never", "render", CLUSTER])
    assert result.exit_code == 0, result.output
    return root / "rendered"


@pytest.fixture
def rendered_before(project, _rendered_tree) -> dict:
    """``project`` with CLUSTER rendered, and that tree's files: what a refused render must leave
    as it was. The tree is a copy of the module's render of the same inputs (render is
    deterministic, tests/render holds it to that), not a render per test."""
    shutil.copytree(_rendered_tree, project / "rendered", symlinks=True)
    return read_tree(project / "rendered")


def _line_of(root: Path, needle: str, cluster: str = CLUSTER) -> int:
    lines = (root / "clusters" / cluster / "cluster.yaml").read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, 1) if needle in line)


# (id, old text, new text, marker on the offending line, expected message fragment, expected hint fragment)
CASES = [
    (
        "unknown-top-key",
        "provider: aks",
        "provider: aks\nprovder: aks",
        "provder",
        "unknown key 'provder'",
        "did you mean 'provider'",
    ),
    (
        "unknown-nested-key",
        "perNode: 8, nodes: 4}",
        "perNode: 8, nodes: 4, memory: 80}",
        "memory: 80",
        "unknown key 'memory'",
        "",
    ),
    (
        "wrong-type-int",
        "perNode: 8, nodes: 4}",
        'perNode: "8", nodes: 4}',
        'perNode: "8"',
        "expected integer",
        "remove the quotes",
    ),
    ("wrong-type-bool", "bbr: false}", 'bbr: "yes"}', 'bbr: "yes"', "expected boolean", "true or false"),
    (
        "kpr-legacy-string",
        "kubeProxyReplacement: true",
        "kubeProxyReplacement: strict",
        "kubeProxyReplacement",
        "expected boolean",
        "",
    ),
    ("bad-enum", "provider: aks", "provider: azure", "provider: azure", "'azure' is not allowed", "one of"),
    (
        "bad-pattern",
        'kubernetesVersion: "1.32"',
        'kubernetesVersion: "v1.32"',
        "kubernetesVersion",
        "wrong format",
        "1.25",
    ),
    ("missing-required", "  engine: flux\n", "", "gitops:", "missing required key 'engine'", "GitOps engine"),
    # the parser notices the unclosed flow sequence at the next key
    ("yaml-syntax", "provider: aks", "provider: [aks", "gitops:", "YAML syntax error", "indentation"),
    (
        "duplicate-key",
        "provider: aks",
        "provider: aks\nprovider: eks",
        "provider: eks",
        "duplicate key 'provider'",
        "once",
    ),
    ("tab-indent", "provider: aks", "provider: aks\n\tname: x", "\tname", "YAML syntax error", ""),
    (
        "name-mismatch",
        "name: aks-h100-training",
        "name: other-cluster",
        "name: other-cluster",
        "does not match its folder",
        "rename the folder",
    ),
    ("duplicate-pool", "  - name: l40s", "  - name: h100", "- name: h100\n", "used twice", "unique"),
    (
        "quota-over-capacity",
        "quota: {gpus: 32,",
        "quota: {gpus: 400,",
        "gpus: 400",
        "the node pools have",
        "lower quota.gpus",
    ),
    (
        "duplicate-namespace",
        "namespace: gpu-inference",
        "namespace: gpu-training",
        "namespace: gpu-training\n    type: inference",
        "declared twice",
        "merge",
    ),
    (
        "bad-nvme-pattern",
        'diskIdPattern: "nvme-Microsoft_NVMe_Direct_Disk_*"',
        'diskIdPattern: "nvme; rm -rf /"',
        "diskIdPattern",
        "wrong format",
        "glob",
    ),
    (
        "removed-key-has-migration-hint",
        'diskIdPattern: "nvme-Microsoft_NVMe_Direct_Disk_*"',
        'devicePattern: "/dev/nvme[1-9]n1"',
        "devicePattern",
        "nodePools[1].localNvme.devicePattern was removed",
        "replace it with `diskIdPattern`",
    ),
    ("minimum", "perNode: 8, nodes: 4}", "perNode: 0, nodes: 4}", "perNode: 0", "less than the minimum", ""),
    (
        "url-unclosed-bracket",
        "prometheusUrl: http://prometheus-operated.monitoring.svc:9090",
        "prometheusUrl: http://[x",
        "prometheusUrl",
        "monitoring.prometheusUrl 'http://[x' is not a valid URL: an unclosed '[' in the host",
        "scheme://host[:port]",
    ),
    (
        "url-port",
        "repository: https://git.example.com/platform/gitops.git",
        "repository: https://git.example.com:99999/platform/gitops.git",
        "repository:",
        "is not a valid URL: the port is not a number from 1 to 65535",
        "scheme://host[:port]",
    ),
    (
        # AKS images ship the driver with their own container toolkit (nodeImageNvidiaToolkit)
        "aks-image-driver-under-the-operator",
        "driver: {managed: true}",
        "driver: {managed: false}",
        "driver: {managed: false}",
        "the GPU Operator would install its toolkit over the image's",
        "--gpu-driver none and set gpu.nvidia.driver.managed: true",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_one_located_error(project, run, case, rendered_before):
    _id, old, new, marker, message, hint = case
    before = rendered_before
    _edit(project, old, new)
    result = run(project, "render", CLUSTER)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    match = LOCATED.search(result.stderr)
    assert match, result.stderr
    assert match.group("path") == f"clusters/{CLUSTER}/cluster.yaml"
    first_line = marker.split("\n")[0]
    if first_line.startswith("- name: h100"):
        expected_line = [
            i
            for i, line in enumerate(
                (project / "clusters" / CLUSTER / "cluster.yaml").read_text(encoding="utf-8").splitlines(), 1
            )
            if "- name: h100" in line
        ][1]
    elif "\n" in marker:
        lines = (project / "clusters" / CLUSTER / "cluster.yaml").read_text(encoding="utf-8")
        expected_line = lines[: lines.index(marker)].count("\n") + 1
    else:
        expected_line = _line_of(project, first_line)
    assert int(match.group("line")) == expected_line, result.stderr
    assert message in result.stderr
    assert hint in result.stderr
    assert "  hint: " in result.stderr or not hint
    assert read_tree(project / "rendered") == before, "a failed render must not touch rendered/"


@pytest.mark.parametrize("name", ["../x", "..", "a/b", "UPPER", "-lead", "x" * 41, "with.dot"])
def test_bad_cluster_name(project, run, name):
    result = run(project, "render", "--", name)
    assert result.exit_code == 2
    assert f"invalid cluster name {name!r}" in result.stderr
    assert "hint: a cluster name is a lower-case DNS label" in result.stderr
    assert not (project / "rendered").exists()


def test_unknown_cluster(project, run):
    result = run(project, "render", "nope")
    assert result.exit_code == 2
    assert "clusters/nope/cluster.yaml: error: cluster 'nope' not found" in result.stderr
    assert "gpu-gitops init nope" in result.stderr


def test_huge_file_is_refused_without_reading(project, run):
    path = project / "clusters" / CLUSTER / "cluster.yaml"
    with path.open("a", encoding="utf-8") as fh:
        fh.write("#" + "x" * (2 * 1024 * 1024) + "\n")
    result = run(project, "render", CLUSTER)
    assert result.exit_code == 2
    assert "larger than the 1048576 byte limit" in result.stderr


def test_not_utf8_is_located(project, run):
    (project / "clusters" / CLUSTER / "cluster.yaml").write_bytes(
        "name: aks\nnote: é\xff\xfe\n".encode("latin-1").replace(b"\xe9", "é".encode())
    )
    result = run(project, "render", CLUSTER)
    assert result.exit_code == 2
    # the column counts characters: "é" is one, though two bytes; worded as lint words it
    assert result.stderr.splitlines() == [
        f"clusters/{CLUSTER}/cluster.yaml:2:8: error: file is not UTF-8 text: byte 0xFF at offset 18 "
        "(invalid start byte)",
        "  hint: save the file as UTF-8",
    ], result.stderr


@pytest.mark.parametrize(
    ("char", "named"),
    [
        ("\x07", "control character U+0007"),
        ("\x00", "control character U+0000"),
        ("\x1b", "control character U+001B"),
        ("\ufffe", "character U+FFFE"),
    ],
)
def test_control_character_is_located(project, run, char, named):
    """Worded as lint words it (``yamlmessages.bad_character``): U+FFFE is a noncharacter, not a control."""
    _edit(project, "provider: aks", f"provider: a{char}ks")
    line = _line_of(project, "provider: a")
    result = run(project, "render", CLUSTER)
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"clusters/{CLUSTER}/cluster.yaml:{line}:12: error: {named} is not allowed in YAML",
        '  hint: remove the character, or write it as an escape inside a double-quoted string ("\\x01")',
    ], result.stderr


@pytest.mark.parametrize(
    "nested",
    [
        "[" * 10_000 + "]" * 10_000,  # flow
        "\n" + "".join(f"{'  ' * i}  a:\n" for i in range(300)) + "  " * 301 + "b: 1",  # block
        "{x: &anchor 1, y: " + "[" * 10_000 + "]" * 10_000 + "}",  # an anchor sends it to the full loader
    ],
    ids=["flow", "block", "anchored"],
)
def test_deep_nesting_is_refused_at_the_limit(project, run, nested):
    (project / "clusters" / CLUSTER / "cluster.yaml").write_text(
        f"name: {CLUSTER}\nextra: {nested}\n", encoding="utf-8"
    )
    result = run(project, "render", CLUSTER)
    assert result.exit_code == 2
    assert re.match(
        rf"clusters/{CLUSTER}/cluster\.yaml:\d+:\d+: error: YAML nesting is deeper than 64 levels", result.stderr
    ), result.stderr


def test_huge_integer_says_what_it_is(project, run):
    _edit(project, "provider: aks", "provider: aks\nbig: " + "9" * 5001)
    result = run(project, "render", CLUSTER)
    assert result.exit_code == 2
    line = _line_of(project, "big: 999")
    assert result.stderr.startswith(
        f"clusters/{CLUSTER}/cluster.yaml:{line}:6: error: integer with 5001 digits is too large"
    ), result.stderr


def test_top_level_not_a_mapping(project, run):
    (project / "clusters" / CLUSTER / "cluster.yaml").write_text("- just\n- a list\n", encoding="utf-8")
    result = run(project, "render", CLUSTER)
    assert result.exit_code == 2
    assert "clusters/aks-h100-training/cluster.yaml:1:1: error: a cluster input must be a YAML mapping" in result.stderr


def test_several_errors_are_all_reported(project, run):
    _edit(project, "provider: aks", "provider: azure\nprovder: x")
    result = run(project, "render", CLUSTER)
    assert result.exit_code == 2
    assert len(LOCATED.findall(result.stderr)) == 2


def test_one_bad_cluster_does_not_stop_the_others(project, run):
    _edit(project, "provider: aks", "provider: azure")
    result = run(project, "render")
    assert result.exit_code == 2
    others = [c for c in Project(project).cluster_names() if c != CLUSTER]
    for other in others:
        assert (project / "rendered" / other / "kustomization.yaml").is_file()
    assert not (project / "rendered" / CLUSTER).exists()


# --- overrides.libsonnet: sandboxed imports and mapped Jsonnet errors --------------------------


def _leak(expr: str) -> str:
    """An override that tries to commit a file's content into a ConfigMap."""
    return (
        "{ 'workload-isolation'+: { configmap_leak: {apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: 'leak'}, "
        f"data: {{x: {expr}}}}} }} }}"
    )


def _overrides(root: Path, code: str) -> Path:
    path = root / "clusters" / CLUSTER / "overrides.libsonnet"
    path.write_text(code, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "code, fragment",
    [
        (_leak("importstr '/etc/passwd'"), "absolute import path '/etc/passwd' refused"),
        (_leak("importstr '../../../../../etc/passwd'"), "outside libsonnet/ and the cluster's folder"),
        (_leak("importstr '../eks-mi300x-inference/cluster.yaml'"), "outside libsonnet/ and the cluster's folder"),
        (_leak("importstr '~/.ssh/id_rsa'"), "refused"),
    ],
    ids=["absolute", "dotdot", "sibling-cluster", "home"],
)
def test_overrides_cannot_escape_the_sandbox(project, run, code, fragment, rendered_before):
    before = rendered_before
    _overrides(project, code)
    result = run(project, "render", CLUSTER)
    assert result.exit_code == 2
    assert "root:" not in result.output  # nothing of /etc/passwd leaks
    assert re.search(
        r"^clusters/aks-h100-training/overrides\.libsonnet:1:\d+: error: .*" + re.escape(fragment), result.stderr, re.M
    ), result.stderr
    assert "hint: overrides may import only files from libsonnet/ or the cluster's own folder" in result.stderr
    assert read_tree(project / "rendered") == before


def test_overrides_symlink_out_is_refused(project, run, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("s3cr3t", encoding="utf-8")
    (project / "clusters" / CLUSTER / "link.txt").symlink_to(secret)
    _overrides(project, _leak("importstr 'link.txt'"))
    result = run(project, "render", CLUSTER)
    assert result.exit_code == 2
    assert "outside libsonnet/ and the cluster's folder; refused" in result.stderr
    assert "s3cr3t" not in result.output


def test_overrides_syntax_error_is_located(project, run):
    _overrides(project, "{\n  values+:: {\n    oops: ,\n  },\n}\n")
    result = run(project, "render", CLUSTER)
    assert result.exit_code == 2
    assert result.stderr.startswith("clusters/aks-h100-training/overrides.libsonnet:3:11: error: Jsonnet syntax error")


def test_overrides_runtime_error_is_located(project, run):
    _overrides(project, "{\n  'workload-isolation'+: error 'no thanks',\n}\n")
    result = run(project, "render", CLUSTER)
    assert result.exit_code == 2
    assert "clusters/aks-h100-training/overrides.libsonnet:2:" in result.stderr
    assert "no thanks" in result.stderr


def test_override_that_breaks_a_schema_is_an_error_and_writes_nothing(project, run):
    _overrides(
        project,
        "{\n  'workload-isolation': [{apiVersion: 'v1', kind: 'Namespace', metadata: {name: 'x', bogus: 1}}],\n}\n",
    )
    result = run(project, "render", CLUSTER)
    assert result.exit_code == 2
    assert 'namespace_x.yaml: error: schema: /metadata/bogus: unknown field "metadata.bogus"' in result.stderr
    assert not (project / "rendered" / CLUSTER).exists()


def test_override_with_a_non_object_is_an_error(project, run):
    _overrides(project, "{ 'workload-isolation': [42] }")
    result = run(project, "render", CLUSTER)
    assert result.exit_code == 2
    assert "item 0 is not a Kubernetes object" in result.stderr


def test_override_adding_a_list_to_a_keyed_component_says_how_to_add_an_object(project, run):
    _overrides(project, "{ 'workload-isolation'+: [{apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: 'x'}}] }")
    result = run(project, "render", CLUSTER)
    assert result.exit_code == 2
    assert "binary operation object + array" in result.stderr
    assert "hint: a component is an object keyed by file name: add or patch one object with " in result.stderr
    assert not (project / "rendered" / CLUSTER).exists()


def test_override_patching_a_key_the_component_lacks_names_the_key(project, run):
    _overrides(
        project, "{ 'workload-isolation'+: { 'namespace_gpu-trainin'+: { metadata+: { labels+: { a: 'b' } } } } }"
    )
    result = run(project, "render", CLUSTER)
    assert result.exit_code == 2
    assert result.stderr.startswith(
        f"clusters/{CLUSTER}/overrides.libsonnet:1:3: "
        "error: component 'workload-isolation' has no object 'namespace_gpu-trainin' to patch: an object's key "
        "is the name of its rendered file without .yaml (docs/overrides.md) (in field workload-isolation)\n"
    ), result.stderr
    assert not (project / "rendered" / CLUSTER).exists()


def test_override_replacing_a_component_with_neither_object_nor_list_names_it(project, run):
    _overrides(project, "{ keda: 5 }")
    result = run(project, "render", CLUSTER)
    assert result.exit_code == 2
    assert result.stderr.startswith(
        f"clusters/{CLUSTER}/overrides.libsonnet:1:3: error: component 'keda' must be an object of Kubernetes objects (or a list), got int"
    )
    assert "hint: an override replaced the whole component; patch one object with" in result.stderr


@pytest.mark.parametrize(
    "meta, fragment",
    [
        ("{name: '../../../../escaped'}", "invalid name '../../../../escaped'"),
        ("{name: 'x', namespace: '../../../esc'}", "invalid namespace '../../../esc'"),
        ("{name: 'x', namespace: 5}", "invalid namespace 5"),
        ("{name: 'a b'}", "invalid name 'a b'"),
        ("{name: 'a_b'}", "invalid name 'a_b'"),
        (f"{{name: '{'a' * 253}', namespace: '{'n' * 63}'}}", "a file name of 332 bytes"),
    ],
    ids=["name-traversal", "namespace-traversal", "namespace-int", "space", "underscore", "file-name-too-long"],
)
def test_object_names_that_are_unsafe_file_names_are_refused(project, run, tmp_path, meta, fragment):
    _overrides(
        project, "{ 'workload-isolation'+: { x: {apiVersion: 'v1', kind: 'ConfigMap', metadata: " + meta + "} } }"
    )
    result = run(project, "render", CLUSTER)
    assert result.exit_code == 2
    assert re.search(
        rf"^clusters/{CLUSTER}/overrides.libsonnet:1:\d+: error: component 'workload-isolation'", result.stderr
    )
    assert fragment in result.stderr
    assert not (project / "rendered").exists()
    assert sorted(p.name for p in tmp_path.rglob("*escaped*")) == []


def test_override_that_is_not_an_object_is_blamed_on_the_overrides_file(project, run):
    _overrides(project, "5\n")
    result = run(project, "render", CLUSTER)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"clusters/{CLUSTER}/overrides.libsonnet: error: ")


def test_override_adding_a_component_that_is_no_folder_name_names_it(project, run):
    _overrides(project, "{ Extra: [] }\n")
    result = run(project, "render", CLUSTER)
    assert result.exit_code == 2
    assert f"clusters/{CLUSTER}/overrides.libsonnet:1:3: error: invalid component name 'Extra'" in result.stderr
    assert "../" not in result.stderr.split(":")[0]


def test_alias_bomb_is_refused_quickly(project, run):
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 9):
        refs = ", ".join([f"*a{i - 1}"] * 10)
        lines.append(f"a{i}: &a{i} [{refs}]")
    (project / "clusters" / CLUSTER / "cluster.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = run(project, "render", CLUSTER)
    assert result.exit_code == 2
    # lint's alias budget and wording, located at the alias that passes it (the fifth of a4's)
    assert result.stderr.splitlines() == [
        f"clusters/{CLUSTER}/cluster.yaml:5:45: error: aliases expand this document by more than 100000 nodes",
        "  hint: use fewer or shallower YAML anchors and aliases",
    ], result.stderr


def test_cluster_input_that_is_not_a_regular_file(project, run):
    path = project / "clusters" / CLUSTER / "cluster.yaml"
    path.unlink()
    os.mkfifo(path)
    result = run(project, "render", CLUSTER)
    assert result.exit_code == 2
    assert f"clusters/{CLUSTER}/cluster.yaml: error: not a regular file" in result.stderr


@pytest.mark.parametrize("text, tag", [("perNode: !!int eight", "!!int"), ("perNode: !!float x", "!!float")])
def test_explicit_tag_with_a_wrong_value(project, run, text, tag):
    _edit(
        project, "perNode: 8, nodes: 4}", text.split(": ", 1)[0] + ": 8, nodes: 4, x: " + text.split(": ", 1)[1] + "}"
    )
    line = _line_of(project, text.split(": ", 1)[1])
    result = run(project, "render", CLUSTER)
    assert result.exit_code == 2
    assert re.match(
        rf"clusters/{CLUSTER}/cluster\.yaml:{line}:\d+: error: YAML value '\w+' does not match its tag "
        rf"{tag}: .*\n  hint: remove the !!tag",
        result.stderr,
    ), result.stderr


# --- bounded Jsonnet: time, memory and depth ----------------------------------------------------


@pytest.mark.slow
def test_overrides_loop_is_stopped_at_the_cpu_bound(project, run, rendered_before):
    before = rendered_before
    _overrides(
        project,
        "{ values+:: { spin:: std.foldl(function(a, x) a + x, std.range(1, 2147483647), 0) },\n"
        "  'workload-isolation'+: {} + (if $.values.spin > 0 then {} else {}) }\n",
    )
    result = run(project, "render", CLUSTER, env={"GPU_GITOPS_JSONNET_CPU_SECONDS": "1"})
    assert result.exit_code == 2
    assert result.stderr.startswith(
        f"clusters/{CLUSTER}/overrides.libsonnet: error: Jsonnet evaluation took more than 1 s of CPU time"
    ), result.stderr
    assert "GPU_GITOPS_JSONNET_CPU_SECONDS=<seconds>" in result.stderr
    assert read_tree(project / "rendered") == before


def test_overrides_loop_is_stopped_at_the_wall_clock_bound_with_its_own_message(project, run):
    _overrides(
        project,
        "{ values+:: { spin:: std.foldl(function(a, x) a + x, std.range(1, 2147483647), 0) },\n"
        "  'workload-isolation'+: {} + (if $.values.spin > 0 then {} else {}) }\n",
    )
    env = {"GPU_GITOPS_JSONNET_CPU_SECONDS": "3600", "GPU_GITOPS_JSONNET_WALL_SECONDS": "1"}
    result = run(project, "render", CLUSTER, env=env)
    assert result.exit_code == 2
    assert result.stderr.startswith(
        f"clusters/{CLUSTER}/overrides.libsonnet: error: Jsonnet evaluation took more than 1 s of wall-clock time"
    ), result.stderr
    assert "GPU_GITOPS_JSONNET_WALL_SECONDS=<seconds>" in result.stderr


def test_overrides_huge_string_is_stopped_at_the_memory_bound(project, run):
    _overrides(project, "{ 'workload-isolation'+: {} + (if std.length(std.repeat('ab', 1e10)) > 0 then {} else {}) }\n")
    result = run(project, "render", CLUSTER, env={"GPU_GITOPS_JSONNET_MEMORY_MIB": "256"})
    assert result.exit_code == 2
    assert result.stderr.startswith(
        f"clusters/{CLUSTER}/overrides.libsonnet: error: Jsonnet evaluation needed more than 256 MiB of memory"
    ), result.stderr
    assert "GPU_GITOPS_JSONNET_MEMORY_MIB=<MiB>" in result.stderr


def test_overrides_runaway_recursion_is_located(project, run):
    _overrides(project, "local f(n) = f(n + 1) + 1;\n{ 'workload-isolation'+: {} + (if f(0) > 0 then {} else {}) }\n")
    result = run(project, "render", CLUSTER)
    assert result.exit_code == 2
    assert result.stderr.startswith(
        f"clusters/{CLUSTER}/overrides.libsonnet:1:14: error: Jsonnet recursion deeper than 500 calls"
    ), result.stderr


@pytest.mark.parametrize("value", ["0", "-1", "lots"])
def test_bad_jsonnet_bound_setting_is_an_input_error(project, run, value):
    result = run(project, "render", CLUSTER, env={"GPU_GITOPS_JSONNET_CPU_SECONDS": value})
    assert result.exit_code == 2
    assert result.stderr.startswith("GPU_GITOPS_JSONNET_CPU_SECONDS: error: "), result.stderr


def test_overrides_import_of_non_utf8_text_is_located(project, run):
    (project / "clusters" / CLUSTER / "blob.txt").write_bytes(b"ok\xff\xfe")
    _overrides(project, _leak("importstr 'blob.txt'"))
    result = run(project, "render", CLUSTER)
    assert result.exit_code == 2
    assert re.search(
        r"^clusters/aks-h100-training/overrides\.libsonnet:1:\d+: error: .*not UTF-8 text \(byte 2\)",
        result.stderr,
        re.M,
    ), result.stderr


def test_overrides_std_trace_reaches_stderr(project, run):
    _overrides(project, "{ 'workload-isolation'+: std.trace('checking overrides', {}) }\n")
    result = run(project, "render", CLUSTER)
    assert result.exit_code == 0, result.stderr
    assert "checking overrides" in result.stderr


def _anchors(markdown: str) -> set[str]:
    """GitHub's anchors for the headings of a Markdown file."""
    return {
        re.sub(r"[^a-z0-9 _-]", "", line.lstrip("#").strip().lower()).replace(" ", "-")
        for line in markdown.splitlines()
        if line.startswith("#")
    }


# (old text, new text, expected message, expected start of the hint, docs section)
SCHEMA_HINTS = [
    (
        "tuning: {restartKubelet: true}",
        "tuning: [1]",
        "tuning: expected object, got list [1]",
        "tuning takes a mapping",
        "top-level",
    ),
    (
        "perNode: 8, nodes: 4}",
        "perNode: 8, nodes: 0}",
        "nodePools[1].gpu.nodes: 0 is less than the minimum of 1",
        "use 1 or more; Nodes in the pool",
        "nodepoolsgpu",
    ),
    (
        "perNode: 8, nodes: 4}",
        "perNode: 8, nodes: true}",
        "nodePools[1].gpu.nodes: expected integer, got boolean True",
        "nodePools[1].gpu.nodes takes a whole number, e.g. 1; ",
        "nodepoolsgpu",
    ),
]


@pytest.mark.parametrize("old, new, message, hint, section", SCHEMA_HINTS, ids=["type", "minimum", "integer"])
def test_every_schema_error_has_a_hint_that_points_at_the_docs(project, run, old, new, message, hint, section):
    """A subschema without a description still gives a hint: what to write, what the key is
    for, and the docs/inputs.md section that lists it."""
    _edit(project, old, new)
    result = run(project, "render", CLUSTER)
    assert result.exit_code == 2
    found = re.search(rf"error: {re.escape(message)}\n  hint: (.*)\n", result.stderr)
    assert found, result.stderr
    assert found.group(1).startswith(hint), found.group(1)
    assert found.group(1).endswith(f"; see docs/inputs.md#{section}")
    assert section in _anchors((REPO / "docs" / "inputs.md").read_text(encoding="utf-8"))


# every core tag (and some of YAML 1.1's), on every kind of value, where a value may stand
TAGS = ["!!str", "!!int", "!!float", "!!bool", "!!null", "!!map", "!!seq", "!!binary", "!!timestamp", "!!omap"]
TAGS += ["!!set", "!", "!<tag:yaml.org,2002:bool>"]
VALUES = ['"1.32"', "1.32", "abc", "''", "12", "-0x1F", "1e400", "true", "yes", "null", "~", "", "[1, 2]", "{a: 1}"]
VALUES += ["\n  a: 1", "\n  - 1", "2024-01-01", "|\n  text", ".nan", "'x'", "99999999999999999999999"]


@pytest.mark.parametrize("tag", TAGS)
def test_an_explicit_tag_on_any_value_is_read_or_one_located_error(tag):
    """ruamel's constructors raise KeyError (`!!bool "1.32"`) or IndexError (`!!int ''`) besides
    ValueError: each is the error at the value, never a traceback."""
    from generator.errors import InputError
    from generator.yamlio import positions

    refused = 0
    for value in VALUES:
        texts = [f"x: 1\na: {tag} {value}\n", f"x:\n- 1\n- {tag} {value}\n", f"{tag} {value}\n"]
        if "\n" not in value:
            texts.append(f"x: 1\n? {tag} {value}\n: 1\n")
        for text in texts:
            try:
                positions.load_text(text, "in")
            except InputError as exc:
                refused += 1
                assert exc.diagnostic.location.line >= 1 or "top level" in str(exc), (text, str(exc))
    assert refused


@pytest.mark.parametrize("in_base", [False, True], ids=["cluster", "base"])
def test_a_boolean_tag_on_a_version_is_located_by_every_command(project, run, in_base):
    """The fuzzer's case, `kubernetesVersion: !!bool "1.32"`, in a cluster input and in a base."""
    cluster, path = ("eks-mi300x-inference", "clusters/_bases/argocd-platform.yaml") if in_base else (CLUSTER, "")
    if in_base:
        base = project / path
        base.write_text(
            base.read_text(encoding="utf-8").replace("  branch: main", '  branch: !!bool "main"'), encoding="utf-8"
        )
        line = _line_in(base, "branch:")
    else:
        text = (project / "clusters" / CLUSTER / "cluster.yaml").read_text(encoding="utf-8")
        version = re.search(r"^kubernetesVersion: (.*)$", text, re.M).group(1)
        _edit(project, f"kubernetesVersion: {version}", f"kubernetesVersion: !!bool {version}")
        path, line = f"clusters/{CLUSTER}/cluster.yaml", _line_of(project, "kubernetesVersion")
    for command in (["render"], ["check"], ["diff"], ["explain-input", cluster, "gitops"], ["migrate"]):
        args = [*command, cluster] if len(command) == 1 else command
        result = run(project, *args)
        assert result.exit_code == 2, (command, result.output)
        assert f"{path}:{line}:" in result.stderr and "does not match its tag !!bool" in result.stderr, command


def _line_in(path: Path, needle: str) -> int:
    return next(i for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if needle in line)


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://[x", "an unclosed '[' in the host"),
        ("http://h:99999", "the port is not a number from 1 to 65535"),
        ("http://h:abc", "the port is not a number from 1 to 65535"),
        ("http://h:0", "the port is not a number from 1 to 65535"),
        ("http://:9090", "it names no host"),
        ("http://[fd00::1]:9090/x", ""),
        ("ssh://git@git.example.com/org/repo.git", ""),
    ],
)
def test_what_makes_a_url_unusable(url, why):
    from generator.addresses import url_problem

    assert url_problem(url) == why


def test_the_provider_disk_pattern_is_no_default_for_nodes_it_does_not_offer(project, run):
    """EC2 has no MI300X instance type: the MI300X pool's nodes are not EC2 instances, so EC2's
    instance-store pattern cannot name their disks, and disk preparation needs the pool's own."""
    cluster = "eks-mi300x-inference"
    _edit(project, "      diskIdPattern: nvme-SAMSUNG_MZQL27T6HBLA-00A07_*\n", "", cluster)
    result = run(project, "render", cluster)
    assert result.exit_code == 2, result.output
    match = LOCATED.search(result.stderr)
    assert match and int(match.group("line")) == _line_of(project, "prepare: {enabled: true}", cluster)
    assert (
        "eks's instance-store pattern (nvme-Amazon_EC2_NVMe_Instance_Storage_*) does not apply, since none of its "
        "instance types has MI300X GPUs"
    ) in result.stderr
    assert "hint: set diskIdPattern to the glob" in result.stderr
