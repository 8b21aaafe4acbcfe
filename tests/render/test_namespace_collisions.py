"""A workload namespace may not be the platform's or a component's, and no object may be rendered
by two components: each is one located error, exit 2."""

from __future__ import annotations

import pytest

from tests.inputs.test_gpu_consistency import AKS, OCP, edit, line_of, render_fails

WORKLOAD = "  - namespace: gpu-training\n"


@pytest.mark.parametrize(
    ("namespace", "message"),
    [
        ("kube-system", "namespace 'kube-system' belongs to the platform"),
        ("kube-node-lease", "namespace 'kube-node-lease' belongs to the platform"),
        ("openshift-monitoring", "namespace 'openshift-monitoring' belongs to the platform"),
        ("monitoring", "namespace 'monitoring' is monitoring.namespace"),
        # rendered by components: the GPU Operator (Namespace), KEDA (a release's target
        # namespace), GPU validation, the node tuning DaemonSets, the engine's own namespace
        ("gpu-operator", "namespace 'gpu-operator' is also used by the 'nvidia-gpu-operator' component"),
        ("keda", "namespace 'keda' is also used by the 'keda' component"),
        ("gpu-validation", "namespace 'gpu-validation' is also used by the 'gpu-validation' component"),
        # not a team's to isolate: the default namespace, the engines', the documented prerequisites'
        ("default", "namespace 'default' is not a team's to isolate: it is where every object"),
        ("flux-system", "namespace 'flux-system' is not a team's to isolate: it is Flux's own"),
        ("argocd", "namespace 'argocd' is not a team's to isolate: it is Argo CD's own"),
        ("cert-manager", "namespace 'cert-manager' is not a team's to isolate: it is cert-manager's"),
        ("karpenter", "namespace 'karpenter' is not a team's to isolate: it is Karpenter's"),
    ],
)
def test_a_workload_namespace_of_the_platform_is_located(project, run, namespace, message):
    # the NCCL test follows the namespace it runs in (fabric.ncclTestNamespace)
    edit(project, AKS, "ncclTestNamespace: gpu-training", f"ncclTestNamespace: {namespace}")
    text = edit(project, AKS, WORKLOAD, f"  - namespace: {namespace}\n")
    render_fails(run, project, AKS, line_of(text, f"  - namespace: {namespace}\n"), message, "a namespace of its own")
    assert not (project / "rendered" / AKS).exists() or not any((project / "rendered" / AKS).iterdir())


def test_the_engine_namespace_of_argocd_is_located(project, run):
    text = edit(project, "eks-mi300x-inference", "  - namespace: batch-eval\n", "  - namespace: argocd\n")
    render_fails(
        run,
        project,
        "eks-mi300x-inference",
        line_of(text, "  - namespace: argocd\n"),
        "namespace 'argocd' is not a team's to isolate",
        "a namespace of its own",
    )


def test_openshift_namespaces_are_the_platforms(project, run):
    text = edit(project, OCP, "  - namespace: notebooks\n", "  - namespace: openshift-user-workload-monitoring\n")
    render_fails(
        run,
        project,
        OCP,
        line_of(text, "openshift-user-workload-monitoring\n"),
        "belongs to the platform",
        "openshift-*",
    )


def test_an_object_rendered_by_two_components_is_an_error(project, run):
    (project / "clusters" / AKS / "overrides.libsonnet").write_text(
        "{ team: [{ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole',"
        " metadata: { name: 'gpu-node-config' }, rules: [] }] }\n",
        encoding="utf-8",
    )
    result = run(project, "render", AKS)
    assert result.exit_code == 2, result.output
    assert (
        f"clusters/{AKS}/overrides.libsonnet: error: ClusterRole gpu-node-config (rbac.authorization.k8s.io) is "
        "rendered by both 'gpu-node-config' and 'team'"
    ) in result.stderr
    assert "hint: rename or remove one of them" in result.stderr


def test_a_component_of_ones_own_may_render_into_a_workload_namespace(project, run):
    (project / "clusters" / AKS / "overrides.libsonnet").write_text(
        "{ team: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'gpu-training' } }] }\n",
        encoding="utf-8",
    )
    assert run(project, "render", AKS).exit_code == 0
