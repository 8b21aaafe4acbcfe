"""The workload namespaces' LimitRanges, applied as the API server applies them: the LimitRanger
admission plugin gives a container each `default` limit it lacks, whatever its request
(kubernetes plugin/pkg/admission/limitranger/admission.go mergeContainerResources), and core
validation then refuses a request above its limit. No rendered LimitRange may turn a valid
container into a refused one."""

from __future__ import annotations

import pytest
from conftest import EXAMPLES, REPO
from gpu_support import find, load_objects

from generator.kube.quantity import parse as parse_quantity


def limit_ranger(container: dict, limit_range: dict) -> dict:
    """The container's resources after LimitRanger's defaults (Container limits only)."""
    requests = dict(container.get("resources", {}).get("requests", {}))
    limits = dict(container.get("resources", {}).get("limits", {}))
    # core defaulting first: an unset request takes its limit
    for name, value in limits.items():
        requests.setdefault(name, value)
    for item in limit_range["spec"]["limits"]:
        if item["type"] != "Container":
            continue
        for name, value in item.get("default", {}).items():
            limits.setdefault(name, value)
        for name, value in item.get("defaultRequest", {}).items():
            requests.setdefault(name, value)
    return {"requests": requests, "limits": limits}


def refused(resources: dict) -> list[str]:
    """Core validation: a request above its limit."""
    return [
        name
        for name, limit in resources["limits"].items()
        if name in resources["requests"] and parse_quantity(resources["requests"][name]) > parse_quantity(limit)
    ]


BIG = {"name": "trainer", "resources": {"requests": {"cpu": "32", "memory": "64Gi"}}}


@pytest.mark.parametrize("cluster", EXAMPLES)
def test_a_large_request_without_a_limit_stays_admissible(cluster):
    ranges = find(load_objects(REPO / "rendered" / cluster), "LimitRange")
    assert ranges
    for limit_range in ranges:
        assert refused(limit_ranger(BIG, limit_range)) == [], limit_range["metadata"]["namespace"]


def test_a_container_that_sets_nothing_still_gets_requests():
    (limit_range,) = find(load_objects(REPO / "rendered" / "aks-h100-training"), "LimitRange")[:1]
    resources = limit_ranger({"name": "c"}, limit_range)
    assert set(resources["requests"]) == {"cpu", "memory"} and resources["limits"] == {}
