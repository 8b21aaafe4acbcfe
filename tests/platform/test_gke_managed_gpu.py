"""GKE's managed GPU stack (``managedNvidiaStack``): GKE installs the NVIDIA driver and runs its
own device plugin on GPU node pools, with no ``nvidia`` RuntimeClass. ``gpu.nvidia.mode:
managed`` renders none of the NVIDIA node software there; ``device-plugin`` is refused."""

from __future__ import annotations

import re

import pytest
from clusterinput import objects

GKE = """\
name: g
kubernetesVersion: "1.32"
provider: gke
gitops: {engine: flux, repository: https://git.example.com/x.git}
nodePools:
  - name: system
    nodeSelector: {cloud.google.com/gke-nodepool: system}
  - name: l4
    nodeSelector: {cloud.google.com/gke-nodepool: l4}
    gpu: {vendor: nvidia, model: L4, perNode: 1, nodes: 2, timeSlicing: {replicas: 4}}
gpu:
  nvidia:
    mode: managed
monitoring: {dcgmExporter: false}
workloads:
  - namespace: inference
    type: inference
    quota: {gpus: 8}
    allowEgressTo: []
"""


def write(project, text: str) -> None:
    folder = project / "clusters" / "g"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "cluster.yaml").write_text(text)


def errors(result) -> list[tuple[int, str, str]]:
    found = re.findall(r"clusters/g/cluster\.yaml:(\d+):\d+: error: (.*)\n  hint: (.*)", result.output)
    return [(int(line), message, hint) for line, message, hint in found]


def line_of(text: str, fragment: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if fragment in line)


def test_device_plugin_mode_on_gke_is_refused_with_the_managed_mode_as_hint(project, run):
    text = GKE.replace("mode: managed", "mode: device-plugin").replace("monitoring: {dcgmExporter: false}\n", "")
    write(project, text)
    result = run(project, "render", "g")
    assert result.exit_code == 2, result.output
    ((line, message, hint),) = errors(result)
    assert line == line_of(text, "mode: device-plugin")
    assert "runtimeClassName: nvidia has no handler" in message and "second time" in message
    assert hint.startswith("set gpu.nvidia.mode: managed") and "gpu-driver-version=default" in hint


def test_managed_mode_renders_only_what_gke_lacks(project, run):
    write(project, GKE)
    result = run(project, "render", "g")
    assert result.exit_code == 0, result.output
    rendered = objects(project, "g")
    for component in ("nvidia-device-plugin", "nvidia-gpu-operator", "dcgm-exporter", "gpu-node-config"):
        assert rendered[component] == [], component
    every = [o for objs in rendered.values() for o in objs]
    assert not [o for o in every if o["kind"] == "RuntimeClass"]
    assert "runtimeClassName" not in repr(every)
    assert not [
        o for o in rendered["gpu-validation"] if o["kind"] == "DaemonSet"
    ]  # GKE's pods see GPUs only by request
    quotas = [o for o in every if o["kind"] == "ResourceQuota" and o["metadata"]["namespace"] == "inference"]
    assert any(q["spec"]["hard"].get("requests.nvidia.com/gpu") == "8" for q in quotas), quotas


@pytest.mark.parametrize(
    "old,new,fragment,message",
    [
        (
            "provider: gke",
            "provider: aks",
            "mode: managed",
            "aks runs neither",
        ),
        (
            "monitoring: {dcgmExporter: false}\n",
            "",
            "mode: managed",
            "nothing renders the DCGM exporter",
        ),
        (
            "timeSlicing: {replicas: 4}",
            "timeSlicing: {replicas: 4, renameByDefault: true}",
            "renameByDefault",
            "not nvidia.com/gpu.shared",
        ),
        (
            "gpu: {vendor: nvidia, model: L4, perNode: 1, nodes: 2, timeSlicing: {replicas: 4}}",
            "gpu: {vendor: nvidia, model: A100-40GB, perNode: 1, nodes: 2, mig: {strategy: mixed, profiles: {1g.5gb: 7}}}",
            "strategy: mixed",
            "no nvidia.com/mig-* resource",
        ),
        (
            "timeSlicing: {replicas: 4}}",
            "allocation: dra}",
            "allocation: dra",
            "the NVIDIA DRA driver beside it",
        ),
    ],
    ids=["not-gke", "dcgm-exporter", "renamed-time-slicing", "mixed-mig", "dra"],
)
def test_what_managed_mode_cannot_honour_is_a_located_error(project, run, old, new, fragment, message):
    assert old in GKE
    text = GKE.replace(old, new)
    write(project, text)
    result = run(project, "render", "g")
    assert result.exit_code == 2, result.output
    matching = [(line, hint) for line, m, hint in errors(result) if message in m]
    assert matching, result.output
    assert matching[0][0] == line_of(text, fragment)
