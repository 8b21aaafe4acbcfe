"""KEDA: its API-server-facing pods leave the pod network exactly when the control plane cannot reach it."""

from __future__ import annotations

import functools
import re

import pytest
import yaml
from clusterinput import BASE, objects, replace, write
from conftest import REPO, SHARED, needs_shared

VALUES = SHARED / "helm-values" / "keda" / "v2.20.2" / "values.yaml"

# BASE with tunnel routing (no BIG TCP, which needs native routing) and one GPU-scaled workload.
TUNNEL = (
    replace(
        "      mode: native\n      ipv4NativeRoutingCIDR: 10.244.0.0/16\n",
        "      mode: tunnel\n",
        replace("    bigTCP: {ipv4: true}\n", ""),
    )
    + """\
workloads:
  - namespace: serve
    type: inference
    quota: {gpus: 8}
    allowEgressTo: []
    autoscaling:
      - {deployment: llm, gpuUtilization: 70, minReplicas: 1, maxReplicas: 4}
monitoring: {prometheusUrl: http://prometheus.monitoring.svc:9090}
"""
)


def keda_values(rendered: dict[str, list[dict]]) -> dict:
    (app,) = [o for o in rendered["keda"] if o["kind"] in ("HelmRelease", "Application")]
    return app["spec"]["values"] if app["kind"] == "HelmRelease" else app["spec"]["source"]["helm"]["valuesObject"]


@functools.cache
def chart_defaults() -> dict:
    return yaml.safe_load(VALUES.read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    ("provider", "text", "host_network"),
    [
        ("eks", TUNNEL, True),
        (
            "eks",
            replace("    kubeProxyReplacement: true\n", "    enabled: false\n    kubeProxyReplacement: true\n", TUNNEL),
            False,
        ),
        ("aks", TUNNEL, False),
        ("generic", TUNNEL, False),
    ],
    ids=["eks-tunnel", "eks-without-cilium", "aks-tunnel", "generic-tunnel"],
)
def test_host_network_only_when_the_control_plane_cannot_reach_pods(project, provider, text, host_network):
    write(project, replace("provider: generic", f"provider: {provider}", text))
    values = keda_values(objects(project, "t"))
    uses_host = (
        values.get("metricsServer", {}).get("useHostNetwork", False),
        values.get("webhooks", {}).get("useHostNetwork", False),
    )
    assert uses_host == (host_network, host_network)
    if host_network:
        assert values["metricsServer"]["dnsPolicy"] == "ClusterFirstWithHostNet"


def test_eks_native_routing_on_cluster_pool_also_needs_the_host_network(project):
    """The VPC does not route Cilium's cluster pool: the control plane reaches no pod either way."""
    write(project, replace("provider: generic", "provider: eks", BASE + TUNNEL[TUNNEL.index("workloads:") :]))
    assert keda_values(objects(project, "t"))["webhooks"]["useHostNetwork"] is True


def test_eks_with_eni_ipam_keeps_the_pod_network(project):
    """ENI IPAM (through the free-form values) gives pods VPC addresses the control plane reaches."""
    text = replace(
        "    bigTCP: {ipv4: true}\n",
        "    bigTCP: {ipv4: true}\n    values: {ipam: {mode: eni}, eni: {enabled: true}}\n",
        BASE + TUNNEL[TUNNEL.index("workloads:") :],
    )
    write(project, replace("provider: generic", "provider: eks", text))
    assert "webhooks" not in keda_values(objects(project, "t"))


@pytest.mark.parametrize(
    ("url", "release"),
    [
        ("http://kube-prometheus-stack-prometheus.monitoring.svc:9090", "kube-prometheus-stack"),
        ("http://prom-kube-prometheus-stack-prometheus.monitoring:9090", "prom"),
        ("http://monitoring-kube-prometheus-prometheus.monitoring.svc:9090", "monitoring"),
    ],
)
def test_kube_prometheus_stack_without_service_monitor_labels_is_refused(project, run, url, release):
    text = TUNNEL.replace(
        "monitoring: {prometheusUrl: http://prometheus.monitoring.svc:9090}", f"monitoring: {{prometheusUrl: {url}}}"
    )
    write(project, text)
    result = run(project, "render", "t")
    assert result.exit_code == 2, result.output
    line = next(n for n, t in enumerate(text.splitlines(), 1) if t.startswith("monitoring:"))
    assert re.search(
        rf"cluster\.yaml:{line}:\d+: error: .*only scrapes ServiceMonitors labelled release: {release}\b", result.output
    ), result.output
    assert f"hint: set monitoring.serviceMonitorLabels: {{release: {release}}}" in result.output


@pytest.mark.parametrize(
    "monitoring",
    [
        "monitoring: {prometheusUrl: http://kube-prometheus-stack-prometheus.monitoring.svc:9090, "
        "serviceMonitorLabels: {release: kube-prometheus-stack}}",
        "monitoring: {prometheusUrl: http://prometheus-operated.monitoring.svc:9090}",
        "monitoring: {prometheusUrl: http://kube-prometheus-stack-prometheus.monitoring.svc:9090, serviceMonitor: false}",
    ],
    ids=["labelled", "not-kube-prometheus-stack", "no-service-monitors"],
)
def test_labelled_or_other_prometheus_renders(project, run, monitoring):
    write(project, TUNNEL.replace("monitoring: {prometheusUrl: http://prometheus.monitoring.svc:9090}", monitoring))
    assert run(project, "render", "t").exit_code == 0


def test_bearer_token_secret_is_documented_without_a_value_in_git():
    """The TriggerAuthentication names a Secret nobody renders: docs say how to create it."""
    docs = (REPO / "docs" / "network.md").read_text(encoding="utf-8")
    section = docs[docs.index("## Prometheus bearer token") :]
    assert "kubectl -n" in section and "create secret generic" in section and "--from-file=bearerToken=" in section
    kinds = {
        yaml.safe_load(p.read_text(encoding="utf-8"))["kind"]
        for p in (REPO / "rendered" / "eks-mi300x-inference").rglob("*.yaml")
    }
    assert "TriggerAuthentication" in kinds and "Secret" not in kinds


@needs_shared(VALUES, "the KEDA chart's values")
def test_eks_example_values_exist_in_the_chart_and_ports_do_not_collide_on_a_node():
    values = keda_values(objects(REPO, "eks-mi300x-inference"))
    defaults = chart_defaults()
    for section in ("metricsServer", "webhooks"):
        assert values[section]["useHostNetwork"] is True
        for key in values[section]:
            assert key in defaults[section], f"{section}.{key} is not a value of the chart"
    # ports the two host-network pods bind on the node
    webhooks = {
        int(defaults["webhooks"]["port"] or 9443),
        defaults["webhooks"]["healthProbePort"],
        values["prometheus"]["webhooks"]["port"],
    }
    metrics_server = {defaults["service"]["portHttpsTarget"], defaults["prometheus"]["metricServer"]["port"]}
    assert not webhooks & metrics_server
    assert "port" in defaults["prometheus"]["webhooks"]
