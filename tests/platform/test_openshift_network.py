"""OpenShift: the workload namespaces admit the Prometheus of user-defined projects
(openshift-user-workload-monitoring; no `monitoring` namespace exists there) and, in the
namespaces that serve users, the OpenShift router."""

from __future__ import annotations

from gpu_support import find, load_objects

from tests.inputs.test_gpu_consistency import AKS, OCP, edit

ROUTER = [{"namespaceSelector": {"matchLabels": {"policy-group.network.openshift.io/ingress": ""}}}]


def scrapers(objects: list[dict]) -> dict[str, list]:
    return {
        p["metadata"]["namespace"]: p["spec"]["ingress"][0]["from"]
        for p in find(objects, "NetworkPolicy", "allow-metrics-scraping")
    }


def test_openshift_metrics_come_from_user_workload_monitoring(rendered):
    for peers in scrapers(load_objects(rendered / OCP)).values():
        assert peers == [
            {
                "namespaceSelector": {
                    "matchLabels": {"kubernetes.io/metadata.name": "openshift-user-workload-monitoring"}
                }
            }
        ]
    # elsewhere the conventional namespace, and a written one wins
    for peers in scrapers(load_objects(rendered / AKS)).values():
        assert peers[0]["namespaceSelector"]["matchLabels"]["kubernetes.io/metadata.name"] == "monitoring"


def test_the_router_reaches_the_notebooks_only(rendered):
    objects = load_objects(rendered / OCP)
    (policy,) = find(objects, "NetworkPolicy", "allow-from-router")
    assert policy["metadata"]["namespace"] == "notebooks"  # interactive; research-training is training
    assert policy["spec"] == {"podSelector": {}, "policyTypes": ["Ingress"], "ingress": [{"from": ROUTER}]}
    assert not find(load_objects(rendered / AKS), "NetworkPolicy", "allow-from-router")


def test_a_written_monitoring_namespace_wins_on_openshift(project, run):
    edit(project, OCP, "workloads:\n", "monitoring: {namespace: prometheus}\nworkloads:\n")
    assert run(project, "render", OCP).exit_code == 0
    for peers in scrapers(load_objects(project / "rendered" / OCP)).values():
        assert peers[0]["namespaceSelector"]["matchLabels"]["kubernetes.io/metadata.name"] == "prometheus"
