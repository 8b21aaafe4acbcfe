"""Autoscaling reads DCGM metrics from a kube-prometheus-stack Prometheus that would not scrape them.

Rationale: kube-prometheus-stack's Prometheus selects only ServiceMonitors labelled
``release: <release>`` (prometheus-community/helm-charts, charts/kube-prometheus-stack
values.yaml: ``serviceMonitorSelectorNilUsesHelmValues: true``), and names its Service
``<fullname>-prometheus``, so a ``monitoring.prometheusUrl`` of that form tells the release.
Without ``monitoring.serviceMonitorLabels`` the DCGM exporter's ServiceMonitor is not scraped,
KEDA's queries return nothing, and every ScaledObject stays on its fallback.

Fix: set ``monitoring.serviceMonitorLabels: {release: <release>}`` (the Helm release name of
kube-prometheus-stack).

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: h100
        nodeSelector: {agentpool: h100}
        gpu: {vendor: nvidia, model: H100, perNode: 8, nodes: 2}
    monitoring:
      prometheusUrl: http://monitoring-kube-prometheus-prometheus.monitoring.svc:9090
      serviceMonitorLabels: {release: monitoring}
    workloads:
      - namespace: serving
        type: inference
        quota: {gpus: 8}
        allowEgressTo: []
        autoscaling:
          - {deployment: llm, minReplicas: 1, maxReplicas: 4}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: h100
        nodeSelector: {agentpool: h100}
        gpu: {vendor: nvidia, model: H100, perNode: 8, nodes: 2}
    monitoring:
      prometheusUrl: http://monitoring-kube-prometheus-prometheus.monitoring.svc:9090
    workloads:
      - namespace: serving
        type: inference
        quota: {gpus: 8}
        allowEgressTo: []
        autoscaling:
          - {deployment: llm, minReplicas: 1, maxReplicas: 4}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator import regex
from generator.addresses import url_host
from generator.errors import InputError
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN501",
    "service-monitor-not-selected",
    "error",
    "kube-prometheus-stack's Prometheus would not scrape the DCGM exporter",
    __doc__,
)

# kube-prometheus-stack names its Prometheus Service `<fullname>-prometheus`, where fullname is
# the release name when it contains the chart name, else `<release>-kube-prometheus-stack` cut to
# 26 characters (`<release>-kube-prom...`); its Prometheus selects only ServiceMonitors labelled
# `release: <release>` (prometheus-community/helm-charts, charts/kube-prometheus-stack
# values.yaml, prometheus.prometheusSpec.serviceMonitorSelectorNilUsesHelmValues: true). A
# Service `<x>-kube-prometheus-stack-prometheus` may come from release `<x>` or from a release
# named that whole prefix; the hint names the shorter, the usual one.
_KUBE_PROMETHEUS_STACK = regex.compile(r"^(?P<release>kube-prometheus-stack|.+?)(-kube-prom[-a-z]*)?-prometheus$")


def _kube_prometheus_stack_release(url: str) -> str | None:
    """The Helm release of a kube-prometheus-stack Prometheus at ``url``, or None if it is not one."""
    service = url_host(url).split(".")[0]
    match = _KUBE_PROMETHEUS_STACK.match(service)
    if "kube-prom" not in service or match is None:
        return None
    return match.group("release")


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    m = spec["monitoring"]
    if not any(w["autoscaling"] for w in spec["workloads"]):
        return
    if not (m["serviceMonitor"] and m["dcgmExporter"]) or m["serviceMonitorLabels"]:
        return
    release = _kube_prometheus_stack_release(m["prometheusUrl"])
    if release is None:
        return
    written = "prometheusUrl" in doc.data.get("monitoring", {})
    yield doc.error(
        f"autoscaling reads DCGM metrics from kube-prometheus-stack's Prometheus ({m['prometheusUrl']}), which only "
        f"scrapes ServiceMonitors labelled release: {release}, and monitoring.serviceMonitorLabels is empty: every "
        "ScaledObject would see no metric and stay on its fallback",
        ("monitoring", "prometheusUrl") if written else ("monitoring",),
        f"set monitoring.serviceMonitorLabels: {{release: {release}}} (the Helm release name of kube-prometheus-stack)",
        at_value=written,
    )


CHECK = InputCheck(meta=META, check=check)
