"""render and check run the lint rules on what they render."""

from __future__ import annotations

from generator.diagnostic import format_text
from generator.inputs.load import load_cluster
from generator.lint.settings import for_cluster
from generator.paths import Project
from generator.render.checks import lint_rules
from generator.render.layout import build_tree

BAD_JOB = {
    "apiVersion": "batch/v1",
    "kind": "Job",
    "metadata": {"name": "train", "namespace": "gpu-training"},
    "spec": {
        "template": {
            "spec": {
                "restartPolicy": "Never",
                "containers": [
                    {
                        "name": "main",
                        "image": "nvcr.io/nvidia/pytorch:24.05-py3",
                        "resources": {
                            "requests": {"nvidia.com/gpu": 2},
                            "limits": {"nvidia.com/gpu": 1, "memory": "8Gi"},
                        },
                    }
                ],
            }
        }
    },
}


def test_rule_errors_become_render_problems_at_their_line(project):
    cluster = load_cluster(Project(project), "aks-h100-training")
    tree = build_tree(cluster.name, [("20-workloads", [("training", [BAD_JOB])])])
    problems = lint_rules(tree, cluster, "rendered/aks-h100-training")
    assert {p.severity for p in problems} == {"error"}
    messages = sorted(format_text(p) for p in problems)
    assert any(
        m.startswith("rendered/aks-h100-training/20-workloads/training/job_gpu-training_train.yaml:")
        and "must be equal to nvidia.com/gpu limit of 1 [GPU002]" in m
        for m in messages
    )
    assert any("[GPU004]" in m for m in messages)


def test_cluster_settings_follow_provider_and_pool_taints(project):
    cluster = load_cluster(Project(project), "aks-h100-training")
    settings = for_cluster(cluster.spec)
    assert settings.kubernetes_version == cluster.spec["kubernetesVersion"]
    gpu_taints = {t["key"] for p in cluster.spec["nodePools"] if "gpu" in p for t in p["taints"]}
    assert set(settings.taint_keys) == gpu_taints
    gke = dict(cluster.spec, provider="gke")
    assert for_cluster(gke).provider == "gke"


GPU_JOB_OVERRIDE = """\
{ 'workload-isolation'+: { 'job_gpu-training_train': {
  apiVersion: 'batch/v1', kind: 'Job', metadata: {name: 'train', namespace: 'gpu-training'},
  spec: {template: {spec: {restartPolicy: 'Never', containers: [{
    name: 'main', image: 'nvcr.io/nvidia/pytorch:24.05-py3',
    resources: {limits: {'nvidia.com/gpu': 1}},
  }]}}},
} } }
"""


def test_render_uses_the_config_files_lint_settings(project, run):
    """The job lacks the GPU toleration (GPU004, error) and a memory limit (GPU007, warning)."""
    (project / "clusters" / "aks-h100-training" / "overrides.libsonnet").write_text(GPU_JOB_OVERRIDE)
    config = project / ".gpu-gitops.yaml"
    failing = run(project, "render", "aks-h100-training")
    assert failing.exit_code == 2 and "[GPU004]" in failing.stderr and "[GPU007]" not in failing.stderr
    config.write_text('lint:\n  rules:\n    GPU004: "off"\n')
    assert run(project, "render", "aks-h100-training").exit_code == 0
    config.write_text(
        "lint:\n  ignore:\n    - {rules: [GPU004], kind: Job, name: train, reason: runs on the CPU pool}\n"
    )
    assert run(project, "render", "aks-h100-training").exit_code == 0
    config.write_text('lint:\n  rules:\n    GPU004: "off"\n    GPU007: error\n')
    escalated = run(project, "render", "aks-h100-training")
    assert escalated.exit_code == 2 and "[GPU007]" in escalated.stderr and "[GPU004]" not in escalated.stderr


def test_cluster_taints_and_version_win_over_the_config(project):
    cluster = load_cluster(Project(project), "aks-h100-training")
    config = {
        "lint": {
            "kubernetesVersion": "1.29",
            "provider": "gke",
            "taintKeys": ["example.com/x"],
            "rules": {"SEC006": "off"},
        }
    }
    settings = for_cluster(cluster.spec, config)
    assert settings.kubernetes_version == cluster.spec["kubernetesVersion"]
    assert settings.provider == cluster.spec["provider"] and "example.com/x" not in settings.taint_keys
    assert settings.rules == {"SEC006": "off"}
