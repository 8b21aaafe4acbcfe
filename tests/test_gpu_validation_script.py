"""scripts/validate-gpu-node.sh run for real, against fake nvidia-smi / amd-smi on PATH."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from conftest import REPO
from gpu_support import find, load_objects, rendered  # noqa: F401  (rendered is a fixture)

SCRIPT = REPO / "libsonnet" / "scripts" / "validate-gpu-node.sh"


def fake_tool(bin_dir: Path, name: str, output: str, status: int = 0) -> None:
    tool = bin_dir / name
    tool.write_text(f"#!/bin/sh\ncat <<'OUT'\n{output}OUT\nexit {status}\n")
    tool.chmod(0o755)


def run_script(bin_dir: Path, *args: str) -> subprocess.CompletedProcess:
    # Only the fake tools and the basic utilities the script needs are on PATH.
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "NODE_NAME": "gpu-node-1"}
    return subprocess.run(["sh", str(SCRIPT), *args], capture_output=True, text=True, env=env, timeout=30)


@pytest.fixture
def bin_dir(tmp_path: Path) -> Path:
    path = tmp_path / "bin"
    path.mkdir()
    return path


def nvidia_output(version: str, count: int) -> str:
    return "".join(f"{version}\n" for _ in range(count))


def test_nvidia_pass(bin_dir):
    fake_tool(bin_dir, "nvidia-smi", nvidia_output("580.95.05", 8))
    result = run_script(bin_dir, "nvidia", "550.54.15", "8")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == ("gpu-validation: PASS node=gpu-node-1 vendor=nvidia driver=580.95.05 gpus=8 "
                                     "(minimum driver 550.54.15, expected 8)")


@pytest.mark.parametrize("version,minimum", [("550.54.14", "550.54.15"), ("535.183.01", "550.54.15"),
                                             ("9.1", "10.0")])
def test_nvidia_old_driver_fails(bin_dir, version, minimum):
    fake_tool(bin_dir, "nvidia-smi", nvidia_output(version, 8))
    result = run_script(bin_dir, "nvidia", minimum, "8")
    assert result.returncode == 1
    assert f"FAIL node=gpu-node-1 vendor=nvidia: driver {version} is older than the required minimum {minimum}" \
        in result.stdout


def test_numeric_not_lexical_comparison(bin_dir):
    """570.10 is newer than 570.9 although it sorts before it as text."""
    fake_tool(bin_dir, "nvidia-smi", nvidia_output("570.10", 2))
    assert run_script(bin_dir, "nvidia", "570.9", "2").returncode == 0


def test_nvidia_missing_gpu_fails(bin_dir):
    fake_tool(bin_dir, "nvidia-smi", nvidia_output("580.95.05", 7))
    result = run_script(bin_dir, "nvidia", "550.54.15", "8")
    assert result.returncode == 1
    assert "found 7 GPUs, the pool declares 8 per node" in result.stdout


def test_nvidia_smi_error_is_reported(bin_dir):
    fake_tool(bin_dir, "nvidia-smi", "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver\n", 9)
    result = run_script(bin_dir, "nvidia", "550.54.15", "8")
    assert result.returncode == 1
    assert "nvidia-smi failed: NVIDIA-SMI has failed" in result.stdout


def test_nvidia_smi_absent(bin_dir):
    result = run_script(bin_dir, "nvidia", "550.54.15", "8")
    assert result.returncode == 1
    assert "nvidia-smi not found" in result.stdout


AMD_STATIC = "".join(f"GPU: {i}\n    DRIVER:\n        NAME: amdgpu\n        VERSION: 6.10.5\n\n" for i in range(8))


def test_amd_pass(bin_dir):
    fake_tool(bin_dir, "amd-smi", AMD_STATIC)
    result = run_script(bin_dir, "amd", "6.8.5", "8")
    assert result.returncode == 0, result.stdout
    assert "gpu-validation: PASS node=gpu-node-1 vendor=amd driver=6.10.5 gpus=8" in result.stdout


def test_amd_wrong_count(bin_dir):
    fake_tool(bin_dir, "amd-smi", AMD_STATIC)
    result = run_script(bin_dir, "amd", "6.8.5", "4")
    assert result.returncode == 1
    assert "found 8 GPUs, the pool declares 4 per node" in result.stdout


def test_rendered_configmap_carries_the_script(rendered):
    (cm,) = find(load_objects(rendered / "eks-mi300x-inference"), "ConfigMap", "gpu-validation-script")
    assert cm["data"]["validate-gpu-node.sh"] == SCRIPT.read_text()


def test_validation_daemonsets_check_each_pool(rendered):
    objects = load_objects(rendered / "eks-mi300x-inference")
    commands = {ds["metadata"]["name"]: ds["spec"]["template"]["spec"]["initContainers"][0]["command"]
                for ds in find(objects, "DaemonSet") if ds["metadata"]["name"].startswith("gpu-validation-")}
    assert commands == {
        "gpu-validation-mi300x": ["sh", "/scripts/validate-gpu-node.sh", "amd", "6.8.5", "8"],
        "gpu-validation-a100-mig": ["sh", "/scripts/validate-gpu-node.sh", "nvidia", "550.54.15", "8"],
    }

