"""AMD GPU Operator mode: the DeviceConfig names the pinned device plugin and labeller images
(v1.4.0 runs rocm/k8s-device-plugin:latest without them), and images.digests pins them."""

from __future__ import annotations

from gpu_support import find, load_objects

from tests.inputs.test_gpu_consistency import ONPREM, edit

DIGEST = "sha256:" + "ab" * 32


def test_device_config_names_the_pinned_images(rendered):
    for config in find(load_objects(rendered / ONPREM), "DeviceConfig"):
        plugin = config["spec"]["devicePlugin"]
        assert plugin["devicePluginImage"] == "docker.io/rocm/k8s-device-plugin:1.31.0.8"
        assert plugin["nodeLabellerImage"] == "docker.io/rocm/k8s-device-plugin:labeller-1.31.0.8"


def test_digests_pin_them(project, run):
    edit(
        project,
        ONPREM,
        "workloads:\n",
        "images:\n  digests:\n"
        f"    docker.io/rocm/k8s-device-plugin:1.31.0.8: {DIGEST}\n"
        f"    docker.io/rocm/k8s-device-plugin:labeller-1.31.0.8: {DIGEST}\n"
        "workloads:\n",
    )
    result = run(project, "render", ONPREM)
    assert result.exit_code == 0, result.output
    (config, *_) = find(load_objects(project / "rendered" / ONPREM), "DeviceConfig")
    assert config["spec"]["devicePlugin"]["devicePluginImage"] == f"docker.io/rocm/k8s-device-plugin:1.31.0.8@{DIGEST}"
    assert config["spec"]["devicePlugin"]["nodeLabellerImage"].endswith(f"labeller-1.31.0.8@{DIGEST}")


def test_pinned_references_match_the_crd_pattern():
    """The v1.4.0 CRD's pattern for both fields admits a tag and a digest together."""
    import re

    import pytest
    import yaml
    from conftest import SHARED, shared_missing

    crd = SHARED / "upstream-crds" / "amd-gpu-operator" / "amd.com_deviceconfigs.yaml"
    if not crd.is_file():
        pytest.skip(shared_missing(crd, "the AMD GPU Operator's DeviceConfig CRD"))
    schema = yaml.safe_load(crd.read_text(encoding="utf-8"))["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    plugin = schema["properties"]["spec"]["properties"]["devicePlugin"]["properties"]
    for field in ("devicePluginImage", "nodeLabellerImage"):
        pattern = plugin[field]["pattern"]
        assert re.match(pattern, f"docker.io/rocm/k8s-device-plugin:labeller-1.31.0.8@{DIGEST}"), field
