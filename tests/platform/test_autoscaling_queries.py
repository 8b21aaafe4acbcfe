"""ScaledObject queries on DCGM metrics, evaluated on the series dcgm-exporter emits (one per GPU,
labelled with the pod holding it), and the HPA's replica count from them: a replica's target is
its GPUs' average, whatever its GPU count."""

from __future__ import annotations

import math
import re

import pytest
from gpu_support import find, load_objects

from tests.inputs.test_gpu_consistency import AKS, EKS, edit, line_of, render_fails

# The two query shapes: sum(<metric>{...}) and sum(avg by (<labels>) (<metric>{...})), either * 100.
_SELECTOR = r"(?P<metric>DCGM_FI_[A-Z0-9_]+)\{(?P<matchers>[^}]*)\}"
_QUERY = re.compile(
    rf"^sum\((?:avg by \((?P<by>[a-z_, ]+)\) \({_SELECTOR}\)|{_SELECTOR.replace('?P<', '?P<s_')})\)(?P<scale> \* 100)?$"
)


def evaluate(query: str, series: list[tuple[dict, float]]) -> float:
    """The query's one value over ``series`` ((labels, value) per GPU)."""
    match = _QUERY.match(query)
    assert match, query
    metric = match["metric"] or match["s_metric"]
    matchers = dict(
        (m["label"], (m["op"], m["value"]))
        for m in re.finditer(
            r'(?P<label>[a-z_]+)(?P<op>=~|=)"(?P<value>[^"]*)"', match["matchers"] or match["s_matchers"]
        )
    )

    def selected(labels: dict) -> bool:
        if labels["__name__"] != metric:
            return False
        for label, (op, value) in matchers.items():
            if not (re.fullmatch(value, labels.get(label, "")) if op == "=~" else labels.get(label) == value):
                return False
        return True

    values = [(labels, v) for labels, v in series if selected(labels)]
    if match["by"]:
        keys = [k.strip() for k in match["by"].split(",")]
        groups: dict[tuple, list[float]] = {}
        for labels, v in values:
            groups.setdefault(tuple(labels.get(k) for k in keys), []).append(v)
        total = sum(sum(g) / len(g) for g in groups.values())
    else:
        total = sum(v for _, v in values)
    return total * (100 if match["scale"] else 1)


def desired_replicas(so: dict, value: float) -> int:
    """The HPA's replica count for an AverageValue external metric: ceil(total / target), within
    the ScaledObject's bounds (kubernetes pkg/controller/podautoscaler/replica_calculator.go
    GetExternalPerPodMetricReplicas)."""
    (trigger,) = so["spec"]["triggers"]
    assert trigger["metricType"] == "AverageValue"
    wanted = math.ceil(value / float(trigger["metadata"]["threshold"]))
    return max(so["spec"]["minReplicaCount"], min(so["spec"]["maxReplicaCount"], wanted))


def gpu_series(metric: str, namespace: tuple[str, str], pod_label: str, pods: dict) -> list[tuple[dict, float]]:
    """dcgm-exporter's series: one per GPU, with the namespace and pod holding it (labels named as
    the scrape keeps them: ``namespace`` is (label, value))."""
    return [
        ({"__name__": metric, namespace[0]: namespace[1], pod_label: pod, "gpu": str(i)}, v)
        for pod, values in pods.items()
        for i, v in enumerate(values)
    ]


@pytest.mark.parametrize("gpus", [1, 8])
def test_a_replica_counts_as_its_gpus_average(rendered, gpus):
    """Two 8-GPU (or 1-GPU) replicas of llm-server at 70% each, target 70: the HPA keeps two."""
    (so,) = find(load_objects(rendered / AKS), "ScaledObject", "llm-server")
    query = so["spec"]["triggers"][0]["metadata"]["query"]
    pods = {"llm-server-7d9f8b6c5d-abcde": [70.0] * gpus, "llm-server-7d9f8b6c5d-fghij": [70.0] * gpus}
    other = {"other-7d9f8b6c5d-zzzzz": [100.0] * gpus}  # another Deployment's GPUs do not count
    ns = ("namespace", "gpu-inference")
    series = gpu_series("DCGM_FI_DEV_GPU_UTIL", ns, "pod", pods | other)
    assert desired_replicas(so, evaluate(query, series)) == 2
    # saturated: one more replica; idle: down to the minimum
    hot = {p: [100.0] * gpus for p in pods}
    assert desired_replicas(so, evaluate(query, gpu_series("DCGM_FI_DEV_GPU_UTIL", ns, "pod", hot))) == 3
    idle = {p: [5.0] * gpus for p in pods}
    assert desired_replicas(so, evaluate(query, gpu_series("DCGM_FI_DEV_GPU_UTIL", ns, "pod", idle))) == 1


def test_profiling_ratios_are_averaged_then_scaled_to_percent(rendered):
    """embedder on MIG slices (exported_* labels: honorLabels false), ratio 0.6 on two slices per pod."""
    (so,) = find(load_objects(rendered / EKS), "ScaledObject", "embedder")
    query = so["spec"]["triggers"][0]["metadata"]["query"]
    pods = {f"embedder-5c6d7e8f9a-{x}": [0.6, 0.6] for x in ("aaaaa", "bbbbb", "ccccc")}
    ns = ("exported_namespace", "embeddings")
    value = evaluate(query, gpu_series("DCGM_FI_PROF_GR_ENGINE_ACTIVE", ns, "exported_pod", pods))
    assert value == pytest.approx(180.0)
    assert desired_replicas(so, value) == 3


def test_a_percent_target_above_100_is_located(project, run):
    text = edit(project, AKS, "gpuUtilization: 70", "gpuUtilization: 560")
    render_fails(
        run,
        project,
        AKS,
        line_of(text, "gpuUtilization: 560"),
        "gpuUtilization 560 is above 100, but DCGM_FI_DEV_GPU_UTIL is a percent averaged over each replica's GPUs",
        "at most 100",
    )


def test_a_target_in_the_metrics_own_unit_may_exceed_100(project, run):
    """Framebuffer memory in MiB per replica: 40000 is a right target, and renders."""
    edit(project, AKS, "gpuUtilization: 70", "metric: DCGM_FI_DEV_FB_USED, gpuUtilization: 40000")
    assert run(project, "render", AKS).exit_code == 0
    (so,) = find(load_objects(project / "rendered" / AKS), "ScaledObject", "llm-server")
    meta = so["spec"]["triggers"][0]["metadata"]
    assert meta["threshold"] == "40000" and meta["query"].startswith(
        "sum(avg by (namespace, pod) (DCGM_FI_DEV_FB_USED{"
    )


def test_mig_namespaces_default_to_graphics_engine_activity(project, run):
    """No metric written in a namespace that gets MIG slices: the one DCGM reports for them."""
    edit(project, EKS, "metric: DCGM_FI_PROF_GR_ENGINE_ACTIVE, ", "")
    assert run(project, "render", EKS).exit_code == 0
    (so,) = find(load_objects(project / "rendered" / EKS), "ScaledObject", "embedder")
    assert "DCGM_FI_PROF_GR_ENGINE_ACTIVE{" in so["spec"]["triggers"][0]["metadata"]["query"]


def test_gpu_util_where_mig_slices_may_run_is_a_located_warning(project, run):
    """A pool of whole GPUs beside the MIG pool: the metric still misses the slices, so a warning."""
    edit(
        project,
        EKS,
        "\ngpu:\n  nvidia:\n",  # the pools end where the cluster-wide gpu block starts
        "\n  - name: l4\n    nodeSelector: {karpenter.sh/nodepool: l4}\n"
        "    gpu: {vendor: nvidia, model: L4, perNode: 1}\ngpu:\n  nvidia:\n",
    )
    text = edit(project, EKS, "metric: DCGM_FI_PROF_GR_ENGINE_ACTIVE, ", "metric: DCGM_FI_DEV_GPU_UTIL, ")
    result = run(project, "render", EKS)
    assert result.exit_code == 0, result.output
    line = line_of(text, "metric: DCGM_FI_DEV_GPU_UTIL")
    assert re.search(
        rf"clusters/{EKS}/cluster\.yaml:{line}:\d+: warning: DCGM_FI_DEV_GPU_UTIL is not reported for MIG slices, "
        "and embeddings may get MIG slices",
        result.stderr,
    ), result.stderr
