"""The rendered workloads' own security posture: every hardening check they do not pass is an
exception annotated with its reason, in the form both `gpu-gitops lint` and checkov read, and
images are pinned by digest when the input gives digests."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest
from conftest import EXAMPLES
from gpu_support import find, load_objects

from generator.lint import lint_paths
from generator.lint.settings import Settings

_WORKLOADS = ("DaemonSet", "Deployment", "StatefulSet", "Job", "CronJob", "Pod")
_DIGEST = "sha256:" + "0123456789abcdef" * 4


@pytest.mark.parametrize("cluster", EXAMPLES)
def test_lint_finds_nothing_unexplained_in_the_examples(rendered, cluster):
    """Every SEC finding on a rendered workload is either fixed or suppressed by an annotated
    reason; K8S004 (CRDs without a schema here) is the project configuration's business."""
    findings = lint_paths([str(rendered / cluster)], Settings.from_config({})).findings
    unexplained = [f"{f.file}:{f.line}: {f.message} [{f.rule}]" for f in findings if f.rule != "K8S004"]
    assert unexplained == []


@pytest.mark.parametrize("cluster", EXAMPLES)
def test_every_exception_has_a_reason(rendered, cluster):
    for obj in load_objects(rendered / cluster):
        if obj["kind"] not in _WORKLOADS:
            continue
        annotations = obj["metadata"].get("annotations", {})
        for key, value in annotations.items():
            if "checkov.io/skip" in key:
                check, sep, reason = value.partition("=")
                assert re.fullmatch(r"CKV_K8S_\d+", check) and sep and reason.strip() and "=" not in reason, value


def test_a_kube_system_agent_without_its_annotations_is_reported(rendered, tmp_path):
    """The suppressions are what silences lint, not an exemption of kube-system."""
    path = rendered / "eks-mi300x-inference" / "40-per-node" / "nvidia-device-plugin"
    ds_file = path / "daemonset_kube-system_nvidia-device-plugin-a100-mig.yaml"
    text = ds_file.read_text(encoding="utf-8")
    stripped = re.sub(r"\n  annotations:\n(    .*\n)+", "\n", text, count=1)
    assert stripped != text
    copy = tmp_path / "unannotated.yaml"
    copy.write_text(stripped, encoding="utf-8")
    rules = {f.rule for f in lint_paths([str(copy)], Settings.from_config({})).findings}
    assert {"SEC002", "SEC004", "SEC007"} <= rules


def test_images_are_pinned_by_the_digests_the_input_gives(project, run):
    path = project / "clusters" / "eks-mi300x-inference" / "cluster.yaml"
    text = path.read_text(encoding="utf-8")
    result = run(project, "render", "eks-mi300x-inference")
    assert result.exit_code == 0, result.output
    (plugin,) = find(
        load_objects(project / "rendered" / "eks-mi300x-inference"), "DaemonSet", "nvidia-device-plugin-a100-mig"
    )
    image = plugin["spec"]["template"]["spec"]["containers"][0]["image"]
    assert "@" not in image
    assert any(v.startswith(f"CKV_K8S_43=no digest for {image} ") for v in plugin["metadata"]["annotations"].values())

    path.write_text(text + f"images:\n  digests:\n    {image}: {_DIGEST}\n", encoding="utf-8")
    result = run(project, "render", "eks-mi300x-inference")
    assert result.exit_code == 0, result.output
    objects = load_objects(project / "rendered" / "eks-mi300x-inference")
    (plugin,) = find(objects, "DaemonSet", "nvidia-device-plugin-a100-mig")
    assert plugin["spec"]["template"]["spec"]["containers"][0]["image"] == f"{image}@{_DIGEST}"
    skips = " ".join(v for k, v in plugin["metadata"]["annotations"].items() if "checkov.io/skip" in k)
    assert "CKV_K8S_43" not in skips and "CKV_K8S_15" not in skips
    # an image without a digest keeps its explained exception
    (exporter,) = find(objects, "DaemonSet", "dcgm-exporter-a100-mig")
    assert any(v.startswith("CKV_K8S_43=") for v in exporter["metadata"]["annotations"].values())


def test_a_malformed_digest_is_an_input_error(project, run):
    path = project / "clusters" / "eks-mi300x-inference" / "cluster.yaml"
    path.write_text(
        path.read_text(encoding="utf-8")
        + "images:\n  digests:\n    nvcr.io/nvidia/k8s-device-plugin:v0.20.0: latest\n",
        encoding="utf-8",
    )
    result = run(project, "render", "eks-mi300x-inference")
    assert result.exit_code == 2
    assert "cluster.yaml:" in result.output and "error:" in result.output


@pytest.mark.skipif(shutil.which("checkov") is None, reason="checkov is not installed (optional: pip install checkov)")
def test_checkov_fails_no_check_on_the_examples(rendered):
    """checkov over every example's output: each check a workload does not pass is skipped by
    its annotation, with a reason (offline: --skip-download)."""
    result = subprocess.run(
        ["checkov", "-d", str(rendered), "--framework", "kubernetes", "--skip-download", "--compact", "-o", "json"],
        capture_output=True,
        encoding="utf-8",
        check=False,
    )
    reports = json.loads(result.stdout)
    reports = reports if isinstance(reports, list) else [reports]
    failed = [
        f"{c['resource']}: {c['check_id']} {c['check_name']}"
        for report in reports
        for c in report["results"]["failed_checks"]
    ]
    assert failed == []
    skipped = [c for report in reports for c in report["results"]["skipped_checks"]]
    assert skipped and all(c["check_result"]["suppress_comment"] != "No comment provided" for c in skipped)
