"""dcgm-exporter maps a time-sliced GPU's pods to its series only with KUBERNETES_VIRTUAL_GPUS=true
(NVIDIA/dcgm-exporter pkg/cmd/app.go): set wherever a pool shares GPUs, and only there."""

from __future__ import annotations

from gpu_support import find, load_objects

from tests.inputs.test_gpu_consistency import AKS, EKS, edit

VIRTUAL = {"name": "KUBERNETES_VIRTUAL_GPUS", "value": "true"}


def test_operator_mode_exporter_maps_shared_gpus(rendered):
    """aks-h100-training time-slices its l40s pool: the operator's one exporter gets the setting."""
    (release,) = find(load_objects(rendered / AKS), "HelmRelease", "gpu-operator")
    assert VIRTUAL in release["spec"]["values"]["dcgmExporter"]["env"]


def test_no_shared_pool_no_setting(rendered):
    (release,) = find(load_objects(rendered / "ocp-a100-tuned"), "HelmRelease", "gpu-operator")
    assert "env" not in release["spec"]["values"]["dcgmExporter"]


def test_device_plugin_mode_sets_it_on_the_shared_pools_exporter(project, run):
    edit(
        project,
        EKS,
        "\ngpu:\n  nvidia:\n",  # the pools end where the cluster-wide gpu block starts
        "\n  - name: l4\n    nodeSelector: {karpenter.sh/nodepool: l4}\n"
        "    gpu: {vendor: nvidia, model: L4, perNode: 1, timeSlicing: {replicas: 4}}\ngpu:\n  nvidia:\n",
    )
    assert run(project, "render", EKS).exit_code == 0
    objects = load_objects(project / "rendered" / EKS)
    env = {
        ds["metadata"]["name"]: ds["spec"]["template"]["spec"]["containers"][0]["env"]
        for ds in find(objects, "DaemonSet")
        if ds["metadata"]["name"].startswith("dcgm-exporter-")
    }
    assert VIRTUAL in env["dcgm-exporter-l4"]
    assert VIRTUAL not in env["dcgm-exporter-a100-mig"]
