"""The lint, rules and explain commands: exit codes, config, suppressions, inputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import EXAMPLES, REPO, crd_args, needs_crd_schemas

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

GPU_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: train
  namespace: gpu-training
{annotations}spec:
  securityContext:
    runAsNonRoot: true
    seccompProfile: {{type: RuntimeDefault}}
  containers:
    - name: main
      image: "nvcr.io/nvidia/pytorch:24.05-py3"
      resources:
        requests: {{nvidia.com/gpu: 1}}
        limits: {{memory: 8Gi}}
"""


@pytest.fixture
def tmp_path(project, monkeypatch):
    """A project root (with schemas/, for the config file) that is also the working directory."""
    monkeypatch.chdir(project)
    return project


def _write(root: Path, name: str, text: str) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _json(result) -> list[dict]:
    return json.loads(result.stdout)["findings"]


def test_errors_exit_1_and_print_path_line_col(tmp_path, run):
    _write(tmp_path, "pod.yaml", GPU_POD.format(annotations=""))
    result = run(tmp_path, "lint", "pod.yaml")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert (
        "pod.yaml:14:20: error: spec.containers[0].resources.limits: Required value: Limit must be set for non "
        "overcommitable resources (nvidia.com/gpu is requested) [GPU001]" in lines
    )
    assert "pod.yaml:6:1: warning:" in result.stdout  # GPU004 (no taint keys configured) at the pod spec


def test_clean_file_exits_0(tmp_path, run):
    result = run(tmp_path, "lint", str(FIXTURES / "GPU001" / "pass" / "limit-only.yaml"))
    assert result.exit_code == 0, result.output


def test_warnings_fail_only_with_fail_on_warning(tmp_path, run):
    path = str(FIXTURES / "GPU007" / "fail")
    assert run(tmp_path, "lint", path).exit_code == 0
    assert run(tmp_path, "lint", "--fail-on", "warning", path).exit_code == 1


def test_annotation_with_reason_suppresses_the_named_rules(tmp_path, run):
    ann = '  annotations:\n    gpu-gitops.io/ignore: "GPU001,GPU004: scheduled by an external admission webhook"\n'
    _write(tmp_path, "pod.yaml", GPU_POD.format(annotations=ann))
    result = run(tmp_path, "lint", "--format", "json", "pod.yaml")
    assert {f["rule"] for f in _json(result)} == set()
    assert result.exit_code == 0


def test_annotation_without_reason_suppresses_nothing(tmp_path, run):
    ann = '  annotations:\n    gpu-gitops.io/ignore: "GPU001"\n'
    _write(tmp_path, "pod.yaml", GPU_POD.format(annotations=ann))
    rules = {f["rule"] for f in _json(run(tmp_path, "lint", "--format", "json", "pod.yaml"))}
    assert {"GPU001", "LINT001"} <= rules


def test_config_ignores_severity_and_rules_off(tmp_path, run):
    _write(tmp_path, "vendor/pod.yaml", GPU_POD.format(annotations=""))
    _write(
        tmp_path,
        ".gpu-gitops.yaml",
        """\
lint:
  rules:
    GPU004: off
    GPU001: warning
  ignore:
    - rules: [GPU001]
      kind: Pod
      name: other
      reason: does not match this pod
""",
    )
    findings = _json(run(tmp_path, "lint", "--format", "json", "vendor"))
    assert [(f["rule"], f["severity"]) for f in findings] == [("GPU001", "warning")]
    _write(
        tmp_path,
        ".gpu-gitops.yaml",
        """\
lint:
  ignore:
    - rules: ["*"]
      path: "vendor/*"
      reason: vendored chart, reviewed upstream
""",
    )
    result = run(tmp_path, "lint", "--format", "json", "vendor")
    assert _json(result) == [] and result.exit_code == 0


def test_config_excludes_paths(tmp_path, run):
    _write(tmp_path, "vendor/pod.yaml", GPU_POD.format(annotations=""))
    _write(tmp_path, "own/ok.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
    _write(tmp_path, ".gpu-gitops.yaml", "lint:\n  exclude: [vendor]\n")
    result = run(tmp_path, "lint", "own", "vendor")
    assert result.exit_code == 0, result.output


def test_config_taint_keys_and_gke_provider(tmp_path, run):
    pod = (
        GPU_POD.format(annotations="")
        .replace("requests: {nvidia.com/gpu: 1}", "requests: {}")
        .replace("limits: {memory: 8Gi}", "limits: {memory: 8Gi, nvidia.com/gpu: 1}")
    )
    _write(tmp_path, "pod.yaml", pod)
    assert {f["rule"] for f in _json(run(tmp_path, "lint", "--format", "json", "pod.yaml"))} == {"GPU004"}
    _write(tmp_path, ".gpu-gitops.yaml", "lint:\n  provider: gke\n")
    assert _json(run(tmp_path, "lint", "--format", "json", "pod.yaml")) == []
    _write(tmp_path, ".gpu-gitops.yaml", "lint:\n  taintKeys: [dedicated]\n")
    findings = _json(run(tmp_path, "lint", "--format", "json", "pod.yaml"))
    assert [f["rule"] for f in findings] == ["GPU004"] and "dedicated:NoSchedule" in findings[0]["message"]


def test_lint_provider_reads_the_projects_own_provider_table(tmp_path, run):
    """A project that customises the library (its own libsonnet/) lints with its own
    provider table, as its render does, not with the installed one."""
    pod = (
        GPU_POD.format(annotations="")
        .replace("requests: {nvidia.com/gpu: 1}", "requests: {}")
        .replace("limits: {memory: 8Gi}", "limits: {memory: 8Gi, nvidia.com/gpu: 1}")
    )
    _write(tmp_path, "pod.yaml", pod)
    _write(tmp_path, ".gpu-gitops.yaml", "lint:\n  provider: gke\n")
    assert _json(run(tmp_path, "lint", "--format", "json", "pod.yaml")) == []
    table = tmp_path / "libsonnet" / "providers.json"
    data = json.loads(table.read_text(encoding="utf-8"))
    data["providers"]["gke"]["facts"]["extendedResourceToleration"] = False
    table.write_text(json.dumps(data), encoding="utf-8")
    findings = _json(run(tmp_path, "lint", "--format", "json", "pod.yaml"))
    assert [f["rule"] for f in findings] == ["GPU004"] and "nvidia.com/gpu" in findings[0]["message"]


def test_unknown_config_key_is_an_error_with_its_line(tmp_path, run):
    _write(tmp_path, ".gpu-gitops.yaml", "lint:\n  rules: {}\n  taintKey: [x]\n")
    _write(tmp_path, "ok.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
    result = run(tmp_path, "lint", "ok.yaml")
    assert result.exit_code == 2
    assert ".gpu-gitops.yaml:3:3: error:" in result.stderr


def test_bad_rule_severity_in_config_is_an_error(tmp_path, run):
    _write(tmp_path, ".gpu-gitops.yaml", "lint:\n  rules:\n    GPU001: fatal\n")
    result = run(tmp_path, "lint", str(FIXTURES / "GPU001" / "pass" / "limit-only.yaml"))
    assert result.exit_code == 2 and ".gpu-gitops.yaml:3:" in result.stderr


def test_kubernetes_version_picks_removed_apis(tmp_path, run):
    path = str(FIXTURES / "API001" / "fail")
    assert "API001" in run(tmp_path, "lint", "--kubernetes-version", "1.32", path).stdout
    result = run(tmp_path, "lint", "--kubernetes-version", "1.2x", path)
    assert result.exit_code == 2 and "invalid Kubernetes version" in result.stderr


def test_missing_path_and_no_default_target_are_usage_errors(tmp_path, run):
    assert run(tmp_path, "lint", "nope.yaml").exit_code == 2
    result = run(tmp_path, "lint")
    assert result.exit_code == 2 and "no rendered/ folder" in result.stderr


def test_stdin_and_output_file(tmp_path, run):
    text = (FIXTURES / "GPU003" / "fail" / "fraction.yaml").read_text(encoding="utf-8")
    from click.testing import CliRunner

    from generator.cli import cli

    out = tmp_path / "lint.sarif"
    result = CliRunner().invoke(
        cli, ["--root", str(tmp_path), "lint", "--format", "sarif", "--output-file", str(out), "-"], input=text
    )
    assert result.exit_code == 1
    results = json.loads(out.read_text(encoding="utf-8"))["runs"][0]["results"]
    assert [
        (r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
        for r in results
        if r["level"] == "error"
    ] == [("GPU003", "stdin")]


def test_yaml_error_in_one_file_does_not_stop_the_others(tmp_path, run):
    _write(tmp_path, "a-broken.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n\tname: x\n")
    _write(tmp_path, "b-pod.yaml", GPU_POD.format(annotations=""))
    rules = [f["rule"] for f in _json(run(tmp_path, "lint", "--format", "json", "."))]
    assert rules[0] == "K8S001" and "GPU001" in rules


def test_rules_lists_every_rule_and_explain_shows_examples(tmp_path, run):
    result = run(tmp_path, "rules", "--json")
    ids = [r["id"] for r in json.loads(result.stdout)]
    assert "GPU001" in ids and len(ids) == len(set(ids))
    text = run(tmp_path, "explain", "gpu001").stdout
    assert text.startswith("GPU001 extended-limit-missing (error)")
    assert "Why:" in text and "Fix:" in text and "--- fail\n" in text and "--- pass\n" in text
    assert run(tmp_path, "explain", "NOPE001").exit_code == 2


@needs_crd_schemas()
@pytest.mark.parametrize("cluster", EXAMPLES)
def test_rendered_examples_have_no_errors(cluster, run):
    root = Path(__file__).resolve().parents[2]
    result = run(root, "lint", "--format", "json", *crd_args(), str(root / "rendered" / cluster))
    errors = [f for f in _json(result) if f["severity"] == "error"]
    assert errors == [] and result.exit_code == 0


@needs_crd_schemas()
def test_default_target_is_rendered_of_the_project(run):
    root = Path(__file__).resolve().parents[2]
    result = run(root, "lint", "--format", "json", *crd_args())
    linted = json.loads(result.stdout)["summary"]["files"]
    # every rendered object's file; the kustomization files are passed by (no cluster objects)
    objects = [p for p in (root / "rendered").rglob("*.yaml") if p.name != "kustomization.yaml"]
    assert result.exit_code == 0 and linted == len(objects) > 0


@pytest.mark.parametrize("fail_on, code", [("warning", 1), ("error", 0)])
def test_the_exit_code_and_the_count_are_the_same_in_every_format(tmp_path, run, fail_on, code):
    """The text format folds the K8S004 warnings into one line; they still count."""
    project = tmp_path
    path = project / "widget.yaml"
    path.write_text("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: a}\n", encoding="utf-8")
    for fmt in ("text", "json", "sarif", "junit", "github", "markdown"):
        result = run(project, "lint", "--fail-on", fail_on, "-o", fmt, str(path))
        assert result.exit_code == code, (fmt, result.output)
    text = run(project, "lint", str(path))
    assert "0 error(s), 1 warning(s)" in text.stderr


def test_cross_file_findings_do_not_depend_on_how_the_files_are_batched(tmp_path, run):
    """The pre-commit hook lints the files of a batch with the project as ``--context``: a claim's
    StorageClass defined in a file of another batch is found, as when both are linted at once."""
    claim = (
        "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: slow}\nprovisioner: example.com/slow\n"
        "---\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data, namespace: team}\n"
        "spec:\n  storageClassName: fast\n  accessModes: [ReadWriteOnce]\n  resources: {requests: {storage: 1Gi}}\n"
    )
    _write(tmp_path, "a/claim.yaml", claim)
    _write(
        tmp_path,
        "b/class.yaml",
        "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: fast}\nprovisioner: example.com/fast\n",
    )

    def rules(*args: str) -> list[str]:
        return sorted(f["rule"] for f in _json(run(tmp_path, "lint", "--format", "json", *args)))

    together = rules("a/claim.yaml", "b/class.yaml")
    assert "XR001" in rules("a/claim.yaml")  # alone, the batch does not see the class
    assert rules("a/claim.yaml", "--context", ".") + rules("b/class.yaml", "--context", ".") == together
    assert "XR001" not in together


def test_the_lint_hook_gives_the_project_as_context():
    hooks = (REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    assert "entry: gpu-gitops lint --context .\n" in hooks


def test_files_that_are_no_manifests_are_passed_by_and_said(tmp_path, run):
    """A values file under a name of its own is no manifest: no error, one line on standard
    error (naming the file with -v), the same from the cache."""
    _write(tmp_path, "deploy/overrides.yaml", "replicaCount: 1\nimage: {repository: example.com/server}\n")
    _write(tmp_path, "deploy/flags.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: flags}\n")
    for _ in range(2):  # the second run reads the cache
        result = run(tmp_path, "lint", "deploy")
        assert result.exit_code == 0, result.output
        assert "passed by 1 file(s) that are no manifests" in result.stderr
        assert "1 resource(s) in 1 file(s): 0 error(s)" in result.stderr
    verbose = run(tmp_path, "-v", "lint", "deploy")
    assert (
        "that are no manifests (no document has apiVersion, kind or metadata): deploy/overrides.yaml" in verbose.stderr
    )
