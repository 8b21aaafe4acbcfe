"""Kueue and its queues as rendered for the examples (docs/queues.md): the release's manager
configuration, the flavors, ClusterQueues and default LocalQueues, and the design rule that a
namespace's ResourceQuota never refuses what its queue admits."""

from __future__ import annotations

import tarfile
from fractions import Fraction

import pytest
from conftest import EXAMPLES, REPO, SHARED, shared_missing
from ruamel.yaml import YAML

from generator.kube import quantity

AKS, DRA = "aks-h100-training", "onprem-gb200-dra"
_yaml = YAML(typ="safe")


def _load(cluster: str, relative: str) -> dict:
    return _yaml.load((REPO / "rendered" / cluster / relative).read_text(encoding="utf-8"))


def _manager_config(cluster: str) -> dict:
    release = _load(cluster, "00-crds-operators/kueue/helmrelease_flux-system_kueue.yaml")
    return _yaml.load(release["spec"]["values"]["managerConfig"]["controllerManagerConfigYaml"])


def _queue_objects(cluster: str) -> list[dict]:
    folder = REPO / "rendered" / cluster / "20-workloads" / "queues"
    if not folder.is_dir():
        return []
    return [_yaml.load(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*_*.yaml"))]


def test_the_release_is_the_published_chart_at_the_pinned_version():
    release = _load(AKS, "00-crds-operators/kueue/helmrelease_flux-system_kueue.yaml")
    repository = _load(AKS, "00-crds-operators/kueue/helmrepository_flux-system_kueue.yaml")
    assert repository["spec"] == {"interval": "1h", "type": "oci", "url": "oci://registry.k8s.io/kueue/charts"}
    assert release["spec"]["chart"]["spec"]["version"] == "0.19.2"
    assert release["spec"]["targetNamespace"] == "kueue-system"
    assert release["spec"]["values"]["enablePrometheus"] is False  # ours carries the Prometheus's labels


def test_kueue_manages_only_the_queued_namespaces_and_only_accelerators():
    config = _manager_config(AKS)
    assert config["managedJobsNamespaceSelector"] == {
        "matchExpressions": [
            {"key": "kubernetes.io/metadata.name", "operator": "In", "values": ["gpu-inference", "gpu-training"]}
        ]
    }
    assert config["resources"] == {"quotaCheckStrategy": "IgnoreUndeclared"}
    assert config["integrations"] == {"frameworks": ["batch/job"]}
    assert config["waitForPodsReady"] == {"timeout": "30m", "blockAdmission": False}
    assert config["fairSharing"]["preemptionStrategies"] == ["LessThanOrEqualToFinalShare", "LessThanInitialShare"]
    dra = _manager_config(DRA)
    # every class nvl-training's claims use, its ComputeDomain's channel too: Kueue refuses a
    # workload whose claim names an unmapped class
    assert dra["resources"]["deviceClassMappings"] == [
        {
            "name": "compute-domain-default-channel.nvidia.com/devices",
            "deviceClassNames": ["compute-domain-default-channel.nvidia.com"],
        },
        {"name": "gpu.nvidia.com/devices", "deviceClassNames": ["gpu.nvidia.com"]},
    ]
    assert "fairSharing" not in dra  # no queue of it is in a cohort


def test_the_chart_settings_the_configuration_replaces_are_kept():
    """The configuration replaces the chart's whole; what it copies must be the chart's."""
    chart = SHARED / "charts" / "kueue-0.19.2.tgz"
    if not chart.is_file():
        pytest.skip(shared_missing(chart, "the Kueue chart package"))
    with tarfile.open(chart) as tar:
        member = tar.extractfile("kueue/values.yaml")
        assert member is not None
        values = _yaml.load(member.read().decode("utf-8"))
    upstream = _yaml.load(values["managerConfig"]["controllerManagerConfigYaml"])
    ours = _manager_config(AKS)
    for key in (
        "apiVersion",
        "kind",
        "health",
        "metrics",
        "webhook",
        "leaderElection",
        "controller",
        "clientConnection",
    ):
        assert ours[key] == upstream[key], key


def test_flavors_carry_the_pools_labels_tolerations_and_topology():
    objects = {(o["kind"], o["metadata"]["name"]): o for o in _queue_objects(DRA)}
    flavor = objects[("ResourceFlavor", "gb200")]["spec"]
    assert flavor == {
        "nodeLabels": {"node.example.com/pool": "gb200"},
        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
        "topologyName": "gb200",
    }
    levels = objects[("Topology", "gb200")]["spec"]["levels"]
    assert [level["nodeLabel"] for level in levels] == ["nvidia.com/gpu.clique", "kubernetes.io/hostname"]
    assert ("LocalQueue", "default") in objects
    assert all(o["kind"] != "Topology" for o in _queue_objects(AKS))


def test_cluster_queues_borrow_only_what_the_input_allows():
    objects = {o["metadata"]["name"]: o for o in _queue_objects(AKS) if o["kind"] == "ClusterQueue"}
    training, inference = objects["gpu-training"]["spec"], objects["gpu-inference"]["spec"]
    assert training["cohortName"] == inference["cohortName"] == "gpu"
    assert inference["fairSharing"] == {"weight": "2"}
    [h100] = training["resourceGroups"][0]["flavors"]
    assert h100["resources"] == [{"name": "nvidia.com/gpu", "nominalQuota": "24", "borrowingLimit": "8"}]
    # a limit Kueue would read as "borrow without bound" is written as 0
    assert [f["resources"][0]["borrowingLimit"] for f in inference["resourceGroups"][0]["flavors"]] == ["0", "0"]
    assert training["namespaceSelector"] == {"matchLabels": {"kubernetes.io/metadata.name": "gpu-training"}}
    assert training["preemption"] == {
        "withinClusterQueue": "LowerPriority",
        "reclaimWithinCohort": "Any",
        "borrowWithinCohort": {"policy": "Never"},
    }


@pytest.mark.parametrize("cluster", EXAMPLES)
def test_no_resourcequota_refuses_what_a_queue_admits(cluster):
    """The design rule of docs/queues.md, on every example: per queued namespace and
    accelerator, the ResourceQuota's hard limit is at least nominal quota plus borrowing limit
    summed over the queue's flavors."""
    queues = _queue_objects(cluster)
    quotas: dict[str, dict[str, Fraction]] = {}
    for path in (REPO / "rendered" / cluster / "20-workloads").rglob("resourcequota_*.yaml"):
        quota = _yaml.load(path.read_text(encoding="utf-8"))
        hard = quotas.setdefault(quota["metadata"]["namespace"], {})
        hard.update({k: quantity.parse(str(v)) for k, v in quota["spec"]["hard"].items()})
    compared = 0
    for cq in (o for o in queues if o["kind"] == "ClusterQueue"):
        namespace = cq["spec"]["namespaceSelector"]["matchLabels"]["kubernetes.io/metadata.name"]
        most: dict[str, Fraction] = {}
        for flavor in cq["spec"]["resourceGroups"][0]["flavors"]:
            for r in flavor["resources"]:
                extra = quantity.parse(r.get("borrowingLimit", "0"))
                most[r["name"]] = most.get(r["name"], Fraction(0)) + quantity.parse(r["nominalQuota"]) + extra
        for resource, value in most.items():
            key = f"requests.{resource}"
            if resource.endswith("/devices"):
                key = resource.removesuffix("/devices") + ".deviceclass.resource.k8s.io/devices"
            limit = quotas.get(namespace, {}).get(key)
            assert limit is None or value <= limit, (cluster, namespace, resource, value, limit)
            compared += limit is not None
    assert compared or not queues, cluster


def test_clusters_without_queues_render_no_kueue():
    for cluster in EXAMPLES:
        if cluster in (AKS, DRA):
            continue
        assert not (REPO / "rendered" / cluster / "00-crds-operators" / "kueue").exists(), cluster
        assert _queue_objects(cluster) == [], cluster


def test_lint_knows_the_namespace_a_release_has_its_engine_create():
    """Kueue's ServiceMonitor lives in kueue-system, which helm-controller creates for the release."""
    from generator.contract.build import build
    from generator.inputs.load import load_cluster
    from generator.paths import Project

    project = Project(REPO)
    contract = build(load_cluster(project, AKS), project.rendered / AKS)
    assert contract.manages("kueue-system")
    [training] = [q for q in contract.queues if q.namespace == "gpu-training"]
    assert (training.name, training.cluster_queue) == ("default", "gpu-training")
    assert [(f.name, dict(f.most)) for f in training.flavors] == [("h100", {"nvidia.com/gpu": 32})]
