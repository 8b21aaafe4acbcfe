"""The pod template paths lint follows in custom resources are the ones their CRDs define.

Each path of ``pods`` is walked through the upstream CRD's served schemas (read from
../shared/upstream-crds, never copied): it must end at an object with ``containers`` (a
PodSpec), or for NIMService at a spec with ``resources`` and ``tolerations``.
"""

from __future__ import annotations

import functools

import pytest
from conftest import SHARED, needs_shared

from generator.kube import pods
from generator.lint.loader import read

CRDS = SHARED / "upstream-crds"

_FOLDERS = (
    "kuberay",
    "kubeflow-training-operator",
    "kubeflow-trainer",
    "jobset",
    "lws",
    "volcano",
    "keda",
    "kueue",
    "nvidia-nim-operator",
    "kserve",
)
pytestmark = needs_shared(CRDS, "the upstream CRD mirror")


@functools.cache
def _schemas() -> dict[tuple[str, str], list[dict]]:
    found: dict[tuple[str, str], list[dict]] = {}
    for path in sorted(p for folder in _FOLDERS for p in (CRDS / folder).glob("*.yaml")):
        for doc in (res.obj for res in read(str(path), str(path)).resources):  # the fast reader: CRDs run to MBs
            if isinstance(doc, dict) and doc.get("kind") == "CustomResourceDefinition":
                key = (doc["spec"]["group"], doc["spec"]["names"]["kind"])
                found.setdefault(key, []).extend(
                    v["schema"]["openAPIV3Schema"] for v in doc["spec"]["versions"] if v.get("served")
                )
    return found


def _walk(schema: dict, path: tuple) -> dict | None:
    for part in path:
        if part == "*":
            schema = schema.get("items") or schema.get("additionalProperties")
        else:
            schema = (schema.get("properties") or {}).get(part)
        if not isinstance(schema, dict):
            return None
    return schema


@pytest.mark.parametrize("key", sorted(pods._CUSTOM_TEMPLATES), ids=lambda k: f"{k[1]}.{k[0]}")
def test_every_template_path_is_a_pod_spec_in_the_crd(key):
    schemas = _schemas()[key]
    for path in pods._CUSTOM_TEMPLATES[key]:
        for schema in schemas:
            node = _walk(schema, path)
            assert node is not None and "containers" in node.get("properties", {}), (key, path)


def test_nimservice_spec_carries_resources_and_tolerations():
    for key in pods._SPEC_IS_POD_AND_CONTAINER:
        for schema in _schemas()[key]:
            assert {"resources", "tolerations", "nodeSelector"} <= set(_walk(schema, ("spec",))["properties"])


def test_trainjob_trainer_carries_resources_per_node():
    for schema in _schemas()[pods._TRAINJOB]:
        node = _walk(schema, ("spec", "trainer", "resourcesPerNode"))
        assert node is not None and {"limits", "requests"} <= set(node["properties"])


def test_kserve_components_runtimes_and_model_keys_are_in_the_crds():
    for schema in _schemas()[pods._KSERVE_SERVICE]:
        for component in pods._KSERVE_COMPONENTS:
            spec = _walk(schema, ("spec", component))
            assert {"containers", "tolerations"} <= set(spec["properties"]), component
        assert "containers" in _walk(schema, ("spec", "predictor", "workerSpec"))["properties"]
        predictor = _walk(schema, ("spec", "predictor"))["properties"]
        for key in pods._KSERVE_MODEL_KEYS:
            assert "resources" in predictor[key]["properties"], key
    for key in pods._KSERVE_RUNTIMES:
        for schema in _schemas()[key]:
            assert {"containers", "tolerations", "workerSpec"} <= set(_walk(schema, ("spec",))["properties"])


def test_trainjob_and_kserve_containers_are_read():
    trainjob = {
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "TrainJob",
        "spec": {"trainer": {"resourcesPerNode": {"limits": {"nvidia.com/gpu": 8}}}},
    }
    (pod,) = pods.templates(trainjob)
    assert pod.partial and pods.pod_requests_gpu(pod) == {"nvidia.com/gpu"}
    assert pods.resources_path(pod.containers[0][0]) == ("spec", "trainer", "resourcesPerNode")
    isvc = {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "spec": {
            "predictor": {
                "model": {"modelFormat": {"name": "huggingface"}, "resources": {"limits": {"nvidia.com/gpu": 1}}},
                "workerSpec": {"containers": [{"name": "w", "resources": {"limits": {"nvidia.com/gpu": 1}}}]},
            },
            "transformer": {"containers": [{"name": "t", "image": "x"}]},
        },
    }
    found = {(p.path, p.partial): [c for c, _ in p.containers] for p in pods.templates(isvc)}
    assert found == {
        (("spec", "predictor"), True): [("spec", "predictor", "model")],
        (("spec", "predictor", "workerSpec"), True): [("spec", "predictor", "workerSpec", "containers", 0)],
        (("spec", "transformer"), False): [("spec", "transformer", "containers", 0)],
    }


@pytest.mark.parametrize(
    ("resources", "claims", "expected"),
    [
        ({}, False, False),
        ({"limits": {"cpu": "1", "memory": "1Gi"}}, False, False),
        ({"limits": {"nvidia.com/gpu": 1}}, False, True),
        ({"requests": {"nvidia.com/mig-1g.5gb": 1}}, False, True),
        ({"limits": {"amd.com/gpu": 1}}, False, True),
        ({"requests": {"gpu.intel.com/i915": 1}}, False, True),
        ({"limits": {"hugepages-2Mi": "1Gi", "memory": "1Gi"}}, False, True),
        ({"limits": {"nvidia.com/": 1}}, False, True),  # a GPU vendor's domain, as is_gpu reads it
        ({"limits": {"nvidia.com": 1, "example.com/foo": 1}}, False, False),  # no domain; not a GPU vendor's
        ({"limits": {"requests.nvidia.com/gpu": 1}}, False, False),  # a quota key, not a resource
        ({"limits": {"cpu": "1"}}, True, True),  # devices through a resource claim
    ],
)
def test_a_pod_uses_devices_when_it_asks_for_gpus_huge_pages_or_claimed_devices(resources, claims, expected):
    container = {"name": "c", "image": "i", "resources": dict(resources)}
    spec: dict = {"containers": [{"name": "init", "image": "i"}], "initContainers": [container]}
    if claims:
        spec["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": "t"}]
        container["resources"]["claims"] = [{"name": "gpu"}]
    [pod] = pods.templates({"apiVersion": "v1", "kind": "Pod", "spec": spec})
    assert pods.uses_devices(pod) is expected


@pytest.mark.parametrize(
    ("resources", "expected"),
    [
        ({}, False),
        ({"limits": {"cpu": "1", "memory": "1Gi", "ephemeral-storage": "1Gi"}}, False),
        ({"limits": {"hugepages-2Mi": "2Mi", "memory": "1Gi"}}, False),  # huge pages are no extended resource
        ({"requests": {"example.com/widget": 1}}, True),
        ({"limits": {"nvidia.com/gpu": 1}}, True),
        ({"limits": {"kubernetes.io/batteries": 1}}, False),  # the kubernetes.io domain is the API's own
        ({"limits": {"requests.nvidia.com/gpu": 1}}, False),  # a quota key, not a resource
    ],
)
def test_a_pod_names_an_extended_resource_when_a_container_requests_or_limits_one(resources, expected):
    container = {"name": "c", "image": "i", "resources": dict(resources)}
    spec = {"containers": [{"name": "app", "image": "i"}], "initContainers": [container]}
    [pod] = pods.templates({"apiVersion": "v1", "kind": "Pod", "spec": spec})
    assert pods.names_extended(pod) is expected


def test_complete_pods_skip_the_templates_a_runtime_completes_and_count_what_is_wanted():
    """CL014 and CL015 walk these: a TrainJob's trainer is completed by its runtime (``partial``)."""
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "spec": {"template": {"spec": {"containers": [{"resources": {"limits": {"rdma/ib": 1, "cpu": 2}}}]}}},
    }
    trainjob = {
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "TrainJob",
        "spec": {"trainer": {"resourcesPerNode": {"limits": {"rdma/ib": 1}}}},
    }
    [(pod, wanted)] = pods.complete_pods(job, pods.is_fabric)
    assert pod.path == ("spec", "template", "spec") and wanted == {"rdma/ib": 1}
    assert list(pods.complete_pods(trainjob, pods.is_fabric)) == []
