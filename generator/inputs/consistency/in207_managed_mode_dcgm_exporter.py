"""``monitoring.dcgmExporter`` on while the platform runs the NVIDIA stack.

Rationale: with ``gpu.nvidia.mode: managed`` nothing renders the DCGM exporter, and GKE does
not run one in the cluster: it exports DCGM metrics to Cloud Monitoring when the cluster is
created with ``--monitoring=SYSTEM,DCGM`` (GKE docs, "Collect and view DCGM metrics"). GPU
metrics in Prometheus, and the autoscalers on them, would be missing.

Fix: set ``monitoring.dcgmExporter: false``.

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: gke
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    gpu: {nvidia: {mode: managed}}
    monitoring: {dcgmExporter: false}
    nodePools:
      - name: l4
        nodeSelector: {cloud.google.com/gke-nodepool: l4}
        gpu: {vendor: nvidia, model: L4, perNode: 4, nodes: 2}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: gke
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    gpu: {nvidia: {mode: managed}}
    monitoring: {dcgmExporter: true}
    nodePools:
      - name: l4
        nodeSelector: {cloud.google.com/gke-nodepool: l4}
        gpu: {vendor: nvidia, model: L4, perNode: 4, nodes: 2}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.advertised import platform_nvidia_pools
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN207", "managed-mode-dcgm-exporter", "error", "monitoring.dcgmExporter with gpu.nvidia.mode managed", __doc__
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    if not platform_nvidia_pools(spec, facts) or not spec["monitoring"]["dcgmExporter"]:
        return
    provider = spec["provider"]
    written = "dcgmExporter" in doc.data.get("monitoring", {})
    yield doc.error(
        "monitoring.dcgmExporter is on, and with gpu.nvidia.mode managed nothing renders the DCGM exporter "
        f"({provider} does not run one in the cluster): GPU metrics and the autoscalers on them would be missing",
        ("monitoring", "dcgmExporter") if written else ("gpu", "nvidia", "mode"),
        f"set monitoring.dcgmExporter: false ({provider} exports DCGM metrics to Cloud Monitoring when the "
        "cluster is created with --monitoring=SYSTEM,DCGM)",
        at_value=True,
    )


CHECK = InputCheck(meta=META, check=check)
