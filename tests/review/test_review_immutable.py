"""Every immutable-field shape the review gates: an update the API server refuses is a danger
with its reason, and the fields it lets change are not (kubernetes pkg/apis/*/validation,
``Validate*Update``)."""

from __future__ import annotations

import copy

import pytest

from generator.review import danger
from generator.review.compare import Change, diff
from generator.review.objects import Identity, Placed


def _update(obj: dict, edit) -> list[str]:
    """The reasons of the dangers an update of ``obj`` by ``edit`` gives."""
    after = copy.deepcopy(obj)
    edit(after)
    group = obj["apiVersion"].rpartition("/")[0]
    ident = Identity(group, obj["kind"], obj["metadata"].get("namespace", ""), obj["metadata"]["name"])
    change = Change(
        "changed", ident, Placed(ident, "20-workloads/x.yaml", obj), Placed(ident, "20-workloads/x.yaml", after)
    )
    change.fields = diff(obj, after)
    return [f.reason for f in danger.classify(change) if f.level == danger.DANGER]


JOB = {
    "apiVersion": "batch/v1",
    "kind": "Job",
    "metadata": {"name": "eval", "namespace": "team"},
    "spec": {
        "completionMode": "NonIndexed",
        "backoffLimit": 3,
        "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "eval", "image": "python:3.12"}]}},
    },
}
STATEFULSET = {
    "apiVersion": "apps/v1",
    "kind": "StatefulSet",
    "metadata": {"name": "store", "namespace": "team"},
    "spec": {
        "serviceName": "store",
        "podManagementPolicy": "OrderedReady",
        "replicas": 1,
        "selector": {"matchLabels": {"app": "store"}},
        "volumeClaimTemplates": [{"metadata": {"name": "data"}, "spec": {"accessModes": ["ReadWriteOnce"]}}],
    },
}
SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "api", "namespace": "team"},
    "spec": {"clusterIP": "10.96.0.20", "clusterIPs": ["10.96.0.20"], "ipFamilies": ["IPv4"], "ports": [{"port": 80}]},
}
PVC = {
    "apiVersion": "v1",
    "kind": "PersistentVolumeClaim",
    "metadata": {"name": "data", "namespace": "team"},
    "spec": {
        "storageClassName": "fast",
        "accessModes": ["ReadWriteOnce"],
        "resources": {"requests": {"storage": "1Gi"}},
    },
}
STORAGECLASS = {
    "apiVersion": "storage.k8s.io/v1",
    "kind": "StorageClass",
    "metadata": {"name": "fast"},
    "provisioner": "ebs.csi.aws.com",
    "parameters": {"type": "gp3"},
    "allowVolumeExpansion": False,
}
CSIDRIVER = {
    "apiVersion": "storage.k8s.io/v1",
    "kind": "CSIDriver",
    "metadata": {"name": "ebs.csi.aws.com"},
    "spec": {"attachRequired": True, "podInfoOnMount": False, "volumeLifecycleModes": ["Persistent"]},
}
BINDING = {
    "apiVersion": "rbac.authorization.k8s.io/v1",
    "kind": "RoleBinding",
    "metadata": {"name": "edit", "namespace": "team"},
    "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "edit"},
    "subjects": [{"kind": "Group", "name": "team", "apiGroup": "rbac.authorization.k8s.io"}],
}


def _set(path: tuple, value):
    def edit(obj: dict) -> None:
        node = obj
        for part in path[:-1]:
            node = node[part]
        node[path[-1]] = value

    return edit


@pytest.mark.parametrize(
    ("obj", "path", "value", "field"),
    [
        (JOB, ("spec", "template", "spec", "containers", 0, "image"), "python:3.13", "spec.template"),
        (JOB, ("spec", "completionMode"), "Indexed", "spec.completionMode"),
        (JOB, ("spec", "podFailurePolicy"), {"rules": []}, "spec.podFailurePolicy"),
        (JOB, ("spec", "backoffLimitPerIndex"), 1, "spec.backoffLimitPerIndex"),
        (STATEFULSET, ("spec", "serviceName"), "store-headless", "spec.serviceName"),
        (STATEFULSET, ("spec", "podManagementPolicy"), "Parallel", "spec.podManagementPolicy"),
        (STATEFULSET, ("spec", "volumeClaimTemplates", 0, "spec", "accessModes"), ["ReadWriteMany"], "spec.volume"),
        (SERVICE, ("spec", "clusterIP"), "10.96.0.21", "spec.clusterIP"),
        (SERVICE, ("spec", "ipFamilies"), ["IPv6"], "spec.ipFamilies[0]"),
        (PVC, ("spec", "storageClassName"), "slow", "spec.storageClassName"),
        (PVC, ("spec", "accessModes"), ["ReadWriteMany"], "spec.accessModes"),
        (STORAGECLASS, ("parameters", "type"), "io2", "parameters"),
        (STORAGECLASS, ("provisioner",), "disk.csi.azure.com", "provisioner"),
        (CSIDRIVER, ("spec", "attachRequired"), False, "spec.attachRequired"),
        (CSIDRIVER, ("spec", "volumeLifecycleModes"), ["Persistent", "Ephemeral"], "spec.volumeLifecycleModes"),
        (BINDING, ("roleRef", "name"), "admin", "roleRef"),
    ],
)
def test_a_change_the_api_server_refuses_is_a_danger(obj, path, value, field):
    (reason,) = _update(obj, _set(path, value))
    assert "immutable" in reason and field in reason and "the API server refuses the update" in reason


@pytest.mark.parametrize(
    ("obj", "path", "value"),
    [
        (JOB, ("spec", "backoffLimit"), 6),
        (STATEFULSET, ("spec", "replicas"), 3),
        (SERVICE, ("spec", "ports"), [{"port": 8080}]),
        (SERVICE, ("spec", "ipFamilies"), ["IPv4", "IPv6"]),  # a second family added: dual-stack
        (PVC, ("spec", "resources"), {"requests": {"storage": "2Gi"}}),
        (STORAGECLASS, ("allowVolumeExpansion",), True),
        (CSIDRIVER, ("spec", "podInfoOnMount"), True),
        (BINDING, ("subjects",), [{"kind": "Group", "name": "ops", "apiGroup": "rbac.authorization.k8s.io"}]),
    ],
)
def test_a_change_the_api_server_accepts_is_no_immutable_danger(obj, path, value):
    assert not [r for r in _update(obj, _set(path, value)) if "immutable" in r]


def test_a_service_turned_external_name_may_drop_its_cluster_ip():
    def external(obj: dict) -> None:
        obj["spec"] = {"type": "ExternalName", "externalName": "api.example.com", "clusterIP": "None"}

    assert not [r for r in _update(SERVICE, external) if "immutable" in r]
