"""Autoscaling: every ScaledObject must read a DCGM metric that exists for the namespace's GPUs,
from a Prometheus that scrapes the exporter."""

from __future__ import annotations

import re
from collections.abc import Iterator

from generator.addresses import url_host
from generator.errors import InputError
from generator.inputs.conventions import may_get_mig_slices
from generator.inputs.repeats import repeats
from generator.yamlio.positions import Located

# DCGM reports device-level utilisation for whole GPUs only; MIG slices expose the profiling
# metrics (DCGM_FI_PROF_*) instead.
# (NVIDIA/dcgm-exporter issues 216 and 430.)
_WHOLE_GPU_ONLY = {"DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_MEM_COPY_UTIL"}


def _is_percent(metric: str) -> bool:
    """DCGM's *_UTIL fields are percent; the DCGM_FI_PROF_* ratios are rendered as percent
    (autoscaling.libsonnet multiplies them by 100)."""
    return metric.endswith("_UTIL") or metric.startswith("DCGM_FI_PROF_")


# kube-prometheus-stack names its Prometheus Service `<fullname>-prometheus`, where fullname is
# the release name when it contains the chart name, else `<release>-kube-prometheus-stack` cut to
# 26 characters (`<release>-kube-prom...`); its Prometheus selects only ServiceMonitors labelled
# `release: <release>` (prometheus-community/helm-charts, charts/kube-prometheus-stack
# values.yaml, prometheus.prometheusSpec.serviceMonitorSelectorNilUsesHelmValues: true). A
# Service `<x>-kube-prometheus-stack-prometheus` may come from release `<x>` or from a release
# named that whole prefix; the hint names the shorter, the usual one.
_KUBE_PROMETHEUS_STACK = re.compile(r"^(?P<release>kube-prometheus-stack|.+?)(-kube-prom[-a-z]*)?-prometheus$")


def _kube_prometheus_stack_release(url: str) -> str | None:
    """The Helm release of a kube-prometheus-stack Prometheus at ``url``, or None if it is not one."""
    service = url_host(url).split(".")[0]
    match = _KUBE_PROMETHEUS_STACK.match(service)
    if "kube-prom" not in service or match is None:
        return None
    return match.group("release")


def _service_monitor_errors(spec: dict, doc: Located) -> Iterator[InputError]:
    """KEDA reads DCGM series that exist only if the Prometheus selects the exporter's ServiceMonitor."""
    m = spec["monitoring"]
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


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    if any(w["autoscaling"] for w in spec["workloads"]):
        yield from _service_monitor_errors(spec, doc)
    nvidia_pools = [p["gpu"] for p in spec["nodePools"] if p.get("gpu", {}).get("vendor") == "nvidia"]
    all_mig = bool(nvidia_pools) and all(g["mig"]["strategy"] != "none" for g in nvidia_pools)
    for i, workload in enumerate(spec["workloads"]):
        entries = workload["autoscaling"]
        if not entries:
            continue
        at = ("workloads", i, "autoscaling")
        ns = workload["namespace"]
        problem = _no_gpus(spec, workload, nvidia_pools)
        if problem:
            yield doc.error(f"workloads[{i}] ({ns}) autoscales on DCGM GPU metrics but {problem[0]}", at, problem[1])
            continue
        for j, _first, deployment in repeats((j, e["deployment"]) for j, e in enumerate(entries)):
            yield doc.error(
                f"Deployment {deployment!r} is autoscaled twice in {ns}",
                at + (j, "deployment"),
                "keep one entry per Deployment",
                at_value=True,
            )
        for j, entry in enumerate(entries):
            here = at + (j,)
            if entry["minReplicas"] > entry["maxReplicas"]:
                yield doc.error(
                    f"minReplicas {entry['minReplicas']} is above maxReplicas {entry['maxReplicas']}",
                    here + ("minReplicas",),
                    "lower minReplicas or raise maxReplicas",
                    at_value=True,
                )
            if entry.get("fallbackReplicas", 0) > entry["maxReplicas"]:
                yield doc.error(
                    f"fallbackReplicas {entry['fallbackReplicas']} is above maxReplicas {entry['maxReplicas']}",
                    here + ("fallbackReplicas",),
                    "the fallback must be a replica count the Deployment may have",
                    at_value=True,
                )
            yield from _metric_problems(spec, doc, workload, here, all_mig)


def _metric_problems(spec: dict, doc: Located, workload: dict, here: tuple, all_mig: bool) -> Iterator[InputError]:
    """A metric DCGM does not report for the namespace's MIG slices; a percent target above 100."""
    entry = workload["autoscaling"][here[-1]]
    metric = entry["metric"]
    if metric in _WHOLE_GPU_ONLY and all_mig:
        yield doc.error(
            f"{metric} is not reported for MIG slices, and every NVIDIA pool uses MIG",
            here + ("metric",),
            "use metric: DCGM_FI_PROF_GR_ENGINE_ACTIVE (graphics engine activity per slice)",
            at_value=True,
        )
    elif metric in _WHOLE_GPU_ONLY and may_get_mig_slices(spec, workload):
        yield doc.warning(
            f"{metric} is not reported for MIG slices, and {workload['namespace']} may get MIG slices: "
            "replicas on slices count as idle, so the Deployment does not scale up for them",
            here + ("metric",),
            "use metric: DCGM_FI_PROF_GR_ENGINE_ACTIVE (reported for MIG slices and whole GPUs), or remove "
            "metric to get it by default",
            at_value=True,
        )
    if _is_percent(metric):
        for key in ("gpuUtilization", "activationThreshold"):
            if entry[key] > 100:
                yield doc.error(
                    f"{key} {entry[key]} is above 100, but {metric} is a percent averaged over each replica's GPUs",
                    here + (key,),
                    f"give {key} as the percent one replica's GPUs should average (at most 100)",
                    at_value=True,
                )


def _no_gpus(spec: dict, workload: dict, nvidia_pools: list[dict]) -> tuple[str, str] | None:
    """Why the namespace has no NVIDIA GPUs to read DCGM metrics from, with a hint; or None."""
    if not spec["monitoring"]["dcgmExporter"]:
        return "monitoring.dcgmExporter is false", "enable monitoring.dcgmExporter or remove the autoscaling entries"
    vendor = workload.get("gpuVendor")
    if vendor is None:
        return "it has no gpuVendor", "set gpuVendor: nvidia (DCGM exports NVIDIA GPUs only)"
    if vendor != "nvidia":
        return (
            f"its GPUs are {vendor}",
            "DCGM exports NVIDIA GPUs only: autoscale a namespace with gpuVendor: "
            "nvidia, or remove the autoscaling entries",
        )
    if not nvidia_pools:
        return "the cluster has no NVIDIA node pools", "add an NVIDIA GPU pool or remove the autoscaling entries"
    quota = workload["quota"]
    if quota.get("gpus") == 0 and not any(quota.get("mig", {}).values()):
        return "its quota allows no GPUs", "raise quota.gpus (or quota.mig) above 0"
    return None
