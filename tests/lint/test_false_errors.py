"""Errors lint gave on real manifests that the API server accepts, each with the reason it accepts them."""

from __future__ import annotations

import json

import pytest

from generator.lint import lint_paths
from generator.lint.crdimport import strict
from generator.lint.settings import Settings
from generator.validate import SchemaValidator, kubernetes

JOBSET = {
    "apiVersion": "jobset.x-k8s.io/v1alpha2",
    "kind": "JobSet",
    "metadata": {"name": "train", "namespace": "gpu-training"},
    "spec": {
        "failurePolicy": {
            "maxRestarts": 3,
            "rules": [{"action": "FailJobSet", "onJobFailureReasons": ["PodFailurePolicy"]}],
        },
        "replicatedJobs": [
            {
                "name": "workers",
                "template": {
                    "spec": {
                        "template": {
                            "spec": {"restartPolicy": "Never", "containers": [{"name": "w", "image": "busybox:1.36"}]}
                        }
                    }
                },
            }
        ],
    },
}


@pytest.mark.slow
def test_jobset_rule_names_are_the_webhooks(synced_cache, monkeypatch):
    """The CRD requires failurePolicy.rules[].name; JobSet's webhook fills it (failurePolicyRule<i>)."""
    monkeypatch.setenv("GPU_GITOPS_CACHE_DIR", str(synced_cache))
    validator = SchemaValidator("1.32")
    assert validator.check(JOBSET) == []
    bad = json.loads(json.dumps(JOBSET))
    bad["spec"]["failurePolicy"]["rules"][0]["action"] = "Explode"
    assert [p.path for p in validator.check(bad)] == [("spec", "failurePolicy", "rules", 0, "action")]


def test_statefulset_service_name_is_not_required_before_1_33():
    statefulset = {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "db"},
        "spec": {
            "selector": {"matchLabels": {"app": "db"}},
            "template": {"metadata": {"labels": {"app": "db"}}, "spec": {"containers": [{"name": "db", "image": "p"}]}},
        },
    }
    for version in ("1.25", "1.30", "1.32", "1.33"):
        assert SchemaValidator(version).check(statefulset) == [], version
    assert (
        "serviceName" not in kubernetes.definitions((1, 32))["$defs"]["io.k8s.api.apps.v1.StatefulSetSpec"]["required"]
    )


QUANTITY = {
    "anyOf": [{"type": "integer"}, {"type": "string"}],
    "pattern": "^[0-9]+(Ki|Mi|Gi)?$",
    "x-kubernetes-int-or-string": True,
}


def test_imported_int_or_string_keeps_one_set_of_alternatives():
    assert strict({"properties": {"q": QUANTITY}})["properties"]["q"] == {
        "anyOf": [{"type": "integer"}, {"type": "string"}],
        "pattern": "^[0-9]+(Ki|Mi|Gi)?$",
    }
    # a CRD that says int-or-string without spelling the alternatives gets them once
    assert strict({"x-kubernetes-int-or-string": True}) == {"anyOf": [{"type": "integer"}, {"type": "string"}]}


def test_a_bad_quantity_is_one_finding_naming_both_types(tmp_path):
    schema = {
        "type": "object",
        "properties": {
            "apiVersion": {"type": "string"},
            "kind": {"type": "string"},
            "metadata": {"type": "object"},
            "spec": {"type": "object", "properties": {"memory": QUANTITY}},
        },
    }
    folder = tmp_path / "schemas" / "example.com"
    folder.mkdir(parents=True)
    (folder / "widget_v1.json").write_text(json.dumps(strict(schema)), encoding="utf-8")
    (tmp_path / "w.yaml").write_text(
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {memory: true}\n"
        "---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {name: v}\nspec: {memory: 12XB}\n",
        encoding="utf-8",
    )
    location = str(tmp_path / "schemas" / "{{.Group}}" / "{{.ResourceKind}}_{{.ResourceAPIVersion}}.json")
    findings = lint_paths([str(tmp_path / "w.yaml")], Settings(schema_locations=[location])).findings
    assert [(f.line, f.message) for f in findings] == [
        (4, "spec.memory: true is not of type 'integer' or 'string'"),
        (9, "spec.memory: '12XB' does not match '^[0-9]+(Ki|Mi|Gi)?$'"),
    ]


@pytest.mark.slow
def test_upstream_examples_and_rendered_trees_have_no_errors(synced_cache, monkeypatch):
    """The vendors' own manifests (device plugin, DRA driver quickstarts at 1.34, where
    resource.k8s.io/v1 is served) and every rendered tree lint without an error."""
    from conftest import REPO, SHARED

    monkeypatch.setenv("GPU_GITOPS_CACHE_DIR", str(synced_cache))
    examples = SHARED / "upstream-examples"
    paths = [str(examples / "k8s-device-plugin"), str(examples / "k8s-dra-driver-gpu")]
    found = lint_paths(paths, Settings(kubernetes_version="1.34")).findings
    assert [f for f in found if f.severity == "error"] == []
    assert (
        len({f.file for f in lint_paths(paths, Settings(kubernetes_version="1.32")).findings if f.rule == "API004"})
        == 9
    )
    assert [f for f in lint_paths([str(REPO / "rendered")], Settings()).findings if f.severity == "error"] == []


def test_a_custom_group_sharing_a_builtin_groups_first_label_is_not_builtin():
    """The bundled file names keep the group's first label only and cover every definition:
    Volcano's scheduling.incubator.k8s.io/v1alpha1 PodGroup is not 1.35's PodGroup struct."""
    assert kubernetes.served_in("scheduling.incubator.k8s.io/v1alpha1", "PodGroup") == ()
    assert kubernetes.builtin_schema((1, 35), "scheduling.k8s.io/v1alpha1", "PodGroup") is None  # a struct, no kind
    assert kubernetes.builtin_schema((1, 35), "apps/v1", "Deployment") is not None
    assert kubernetes.served_in("resource.k8s.io/v1", "DeviceClass")[0] == (1, 34)


def test_role_ref_api_group_is_defaulted_by_rbac():
    """pkg/apis/rbac/v1/defaults.go fills roleRef.apiGroup; the OpenAPI of 1.25-1.35 lists it required."""
    binding = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRoleBinding",
        "metadata": {"name": "view"},
        "roleRef": {"kind": "ClusterRole", "name": "view"},
        "subjects": [{"kind": "ServiceAccount", "name": "app", "namespace": "apps"}],
    }
    for version in ("1.25", "1.30", "1.35", "1.37"):
        assert SchemaValidator(version).check(binding) == [], version
        namespaced = {**binding, "kind": "RoleBinding", "metadata": {"name": "view", "namespace": "apps"}}
        assert SchemaValidator(version).check(namespaced) == [], version
    no_kind = {**binding, "roleRef": {"name": "view"}}
    assert [p.path for p in SchemaValidator("1.32").check(no_kind)] == [("roleRef",)]
    assert "apiGroup" not in kubernetes.definitions((1, 32))["$defs"]["io.k8s.api.rbac.v1.RoleRef"]["required"]


def test_csidriver_without_spec_is_defaulted():
    """pkg/apis/storage/v1/defaults.go fills every field of an absent CSIDriver spec."""
    driver = {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": {"name": "nvme.example.com"}}
    assert SchemaValidator("1.32").check(driver) == []
