"""Time-sliced pools with renameByDefault advertise nvidia.com/gpu.shared: quotas and their
capacity checks key on that name, not on nvidia.com/gpu."""

from __future__ import annotations

from gpu_support import find, load_objects
from test_gpu_consistency import edit, line_of, render_fails

AKS = "aks-h100-training"
RENAMED = ("timeSlicing: {replicas: 4, renameByDefault: false}", "timeSlicing: {replicas: 4, renameByDefault: true}")


def _quota(project, namespace: str) -> dict:
    (quota,) = [
        q
        for q in find(load_objects(project / "rendered" / AKS), "ResourceQuota")
        if q["metadata"]["namespace"] == namespace
    ]
    return quota["spec"]["hard"]


def test_shared_gpus_render_the_shared_resource_quota(project, run):
    edit(project, AKS, *RENAMED)
    edit(project, AKS, "quota: {gpus: 24}", "quota: {sharedGpus: 32}")
    edit(project, AKS, "{pool: l40s, quota: {gpus: 12}}", "{pool: l40s, quota: {sharedGpus: 12}}")  # its queue
    result = run(project, "render", AKS)
    assert result.exit_code == 0, result.output
    assert _quota(project, "gpu-inference") == {"requests.nvidia.com/gpu.shared": "32"}
    # the node check expects the pool to advertise the name the quota limits
    (ds,) = find(load_objects(project / "rendered" / AKS), "DaemonSet", "gpu-validation-l40s")
    (check,) = [c for c in ds["spec"]["template"]["spec"]["initContainers"] if c["name"] == "advertised"]
    assert "nvidia.com/gpu.shared=8" in check["command"]


def test_gpus_quota_does_not_count_renamed_pools(project, run):
    """8 H100s x 4 nodes advertise 32 nvidia.com/gpu; the L40S pool's 32 replicas are
    nvidia.com/gpu.shared, so 40 nvidia.com/gpu cannot be honoured."""
    edit(project, AKS, *RENAMED)
    text = edit(project, AKS, "quota: {gpus: 24}", "quota: {gpus: 40}")
    render_fails(
        run,
        project,
        AKS,
        line_of(text, "quota: {gpus: 40}"),
        "quota asks for 40 nvidia GPUs; the node pools have 32",
        "advertise 32 nvidia.com/gpu.shared, which quota.gpus does not count: quota them with quota.sharedGpus",
    )


def test_without_rename_replicas_count_as_gpus(project, run):
    edit(project, AKS, "quota: {gpus: 24}", "quota: {gpus: 64}")
    assert run(project, "render", AKS).exit_code == 0
    assert _quota(project, "gpu-inference") == {"requests.nvidia.com/gpu": "64"}


def test_shared_gpus_need_a_renamed_pool(project, run):
    text = edit(project, AKS, "quota: {gpus: 24}", "quota: {sharedGpus: 8}")
    render_fails(
        run,
        project,
        AKS,
        line_of(text, "quota: {sharedGpus: 8}"),
        "quota asks for 8 nvidia.com/gpu.shared; the node pools advertise 0",
        "only NVIDIA pools with timeSlicing.renameByDefault: true advertise nvidia.com/gpu.shared",
    )


def test_shared_gpus_beyond_the_replicas(project, run):
    edit(project, AKS, *RENAMED)
    text = edit(project, AKS, "quota: {gpus: 24}", "quota: {sharedGpus: 33}")
    render_fails(
        run,
        project,
        AKS,
        line_of(text, "quota: {sharedGpus: 33}"),
        "quota asks for 33 nvidia.com/gpu.shared; the node pools advertise 32",
        "lower quota.sharedGpus",
    )
