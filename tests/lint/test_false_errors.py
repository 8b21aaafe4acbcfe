"""Errors lint gave on real manifests that the API server accepts, each with the reason it accepts them."""

from __future__ import annotations

import json
from pathlib import Path

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


CONFIGS = {
    # a netplan file, a Helm values file under a name of its own, a JSON request sample, a Kustomize JSON patch
    "net/01-netcfg.yaml": "network:\n  version: 2\n  ethernets:\n    ens2f0: {dhcp4: true}\n",
    "deploy/overrides.yaml": "replicaCount: 1\nimage:\n  repository: example.com/server\n",
    "samples/request.json": '{"prompt": "hello", "max_tokens": 8}\n',
    "patches/webhook.yaml": "- op: replace\n  path: /webhooks/0/name\n  value: validate.example.com\n",
}
CONFIGMAP = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: flags, namespace: apps}\ndata: {a: b}\n"


def test_files_with_no_object_are_passed_by_not_reported(tmp_path):
    """Configuration files with names of their own sit beside manifests: no document has
    apiVersion, kind or metadata, so none is a Kubernetes object, and the run says it passed them by."""
    for name, text in {**CONFIGS, "deploy/flags.yaml": CONFIGMAP}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    result = lint_paths([str(tmp_path)], Settings(), lambda p: str(Path(p).relative_to(tmp_path)))
    assert [f for f in result.findings if f.severity == "error"] == []
    assert sorted(result.passed_by) == sorted(CONFIGS)
    assert [s.display for s in result.sources] == ["deploy/flags.yaml"]


def test_a_manifest_missing_its_kind_is_still_reported(tmp_path):
    """One object-like document makes a file a manifest: every document of it is checked,
    the kind-less ones before it included; a list of objects and unreadable YAML are reported too."""
    files = {
        "no-kind.yaml": "apiVersion: v1\nmetadata: {name: flags}\ndata: {a: b}\n",
        "only-metadata.yaml": "metadata: {name: flags}\ndata: {a: b}\n",
        "mixed.yaml": "replicaCount: 1\n---\n" + CONFIGMAP,
        "listed.yaml": "- " + CONFIGMAP.replace("\n", "\n  ").rstrip() + "\n",
        "broken.yaml": "network: [\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    result = lint_paths([str(tmp_path)], Settings(), lambda p: Path(p).name)
    errors = sorted((f.file, f.line, f.rule) for f in result.findings if f.severity == "error")
    assert errors == [
        ("broken.yaml", 1, "K8S001"),
        ("listed.yaml", 1, "K8S001"),
        ("mixed.yaml", 1, "K8S002"),
        ("no-kind.yaml", 1, "K8S002"),
        ("only-metadata.yaml", 1, "K8S002"),
    ]
    assert result.passed_by == []


def test_upstream_config_beside_examples_is_passed_by():
    """mig-parted's own config.yaml (`version: v1`, `mig-configs:`) is no manifest."""
    from conftest import SHARED, shared_missing

    config = SHARED / "upstream-examples" / "mig-parted" / "config.yaml"
    if not config.is_file():
        pytest.skip(shared_missing(config, "the mig-parted example configuration"))
    result = lint_paths([str(config)], Settings(kubernetes_version="1.34"))
    assert (result.findings, result.passed_by) == ([], [str(config)])


# Real projects' files, read from clones kept outside the repository: GPU_GITOPS_CORPUS names a
# folder of git clones as <owner>/<name>; each file is taken at the commit it was linted at.
FETCHED_CONFIGS = {
    ("Mellanox/network-operator", "b06827e085c5"): ["example/network-init/netplan/01-netcfg.yaml"],
    ("awslabs/ai-on-eks", "41a979ee7614"): ["infra/base/terraform/helm-values/jupyterhub-values.yaml"],
    ("NVIDIA/nim-deploy", "3c6bcbd05f0c"): [
        "cloud-service-providers/aws/eks/storage/custom-values-ebs-sc.yaml",
        "cloud-service-providers/google-cloud/vertexai/python/samples/request.json",
    ],
    ("kubernetes/examples", "279e8e4fe314"): ["databases/cassandra/image/files/cassandra.yaml"],
    ("kubeflow/training-operator", "a55f03a8ccb7"): ["manifests/base/webhook/patch.yaml"],
    ("NVIDIA/k8s-dra-driver-gpu", "22407113785e"): ["demo/specs/quickstart/mig-parted-config.yaml"],
}


def _fetched(folder: Path, repo: str, commit: str, paths: list[str]) -> list[str]:
    """The files of ``repo`` at ``commit``, written under ``folder``; skips the test without the clone."""
    import os
    import subprocess

    corpus = os.environ.get("GPU_GITOPS_CORPUS")
    clone = Path(corpus) / repo if corpus else None
    if clone is None or not clone.exists():
        pytest.skip(f"no clone of {repo} (GPU_GITOPS_CORPUS)")
    written = []
    for path in paths:
        shown = subprocess.run(["git", "-C", str(clone), "show", f"{commit}:{path}"], capture_output=True)
        if shown.returncode != 0:
            pytest.skip(f"{repo} has no {path} at {commit}")
        target = folder / repo / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(shown.stdout)
        written.append(f"{repo}/{path}")
    return written


def test_real_configuration_files_are_passed_by(tmp_path):
    """Netplan, Helm values under names of their own, a request sample, Cassandra's config, a
    Kustomize JSON patch and a mig-parted config, as their projects hold them."""
    expected = [
        name for (repo, commit), paths in FETCHED_CONFIGS.items() for name in _fetched(tmp_path, repo, commit, paths)
    ]
    result = lint_paths([str(tmp_path)], Settings(), lambda p: Path(p).relative_to(tmp_path).as_posix())
    assert (result.findings, sorted(result.passed_by)) == ([], sorted(expected))


def test_a_real_sriov_policy_without_node_selector_is_still_an_error(tmp_path, synced_cache, monkeypatch):
    """The SR-IOV operator's mutating webhook defaults priority and isRdma only
    (k8snetworkplumbingwg/sriov-network-operator pkg/webhook/mutate.go), so the API server
    refuses a SriovNetworkNodePolicy without the nodeSelector its CRD requires."""
    monkeypatch.setenv("GPU_GITOPS_CACHE_DIR", str(synced_cache))
    path = "example/sriov-network/infiniband/sriov-network-node-policy.yaml"
    _fetched(tmp_path, "Mellanox/network-operator", "b06827e085c5", [path])
    found = lint_paths([str(tmp_path)], Settings(kubernetes_version="1.32")).findings
    assert [(f.rule, f.message.split(" (checked")[0]) for f in found if f.severity == "error"] == [
        ("K8S003", "spec: 'nodeSelector' is a required property")
    ]


def test_a_kind_the_target_serves_is_looked_up_in_the_target_version_alone(tmp_path, monkeypatch):
    """API004 and K8S004 ask whether the target serves an object's kind: when it does, the other
    bundled versions' schema files are not read (13 per kind, in a lint after an edit)."""
    from generator.lint.rules import api004_api_version_not_served as api004
    from generator.lint.rules import k8s004_schema_missing as k8s004

    for cached in (kubernetes.served_in, api004.not_served, api004._off, api004._hits, k8s004._told_elsewhere):
        cached.cache_clear()
    asked: list[tuple[int, int]] = []
    real = kubernetes.builtin_schema
    monkeypatch.setattr(
        kubernetes, "builtin_schema", lambda version, *kind: asked.append(version) or real(version, *kind)
    )
    (tmp_path / "d.yaml").write_text(
        "apiVersion: apps/v1\nkind: ControllerRevision\nmetadata: {name: r, namespace: n}\nrevision: 1\n",
        encoding="utf-8",
    )
    findings = lint_paths([str(tmp_path)], Settings(kubernetes_version="1.32")).findings
    assert [f.rule for f in findings if f.rule in ("API004", "K8S004")] == []
    assert set(asked) == {(1, 32)}
