"""Lint against a cluster's contract: the contract read from the example clusters, the admission
policy judged by lint as by a second CEL implementation, and ``lint --cluster`` / ``lint.clusters``
over a set of application manifests giving the findings each cluster's contract implies."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pytest

from generator.errors import InputError
from generator.lint import admission
from generator.lint.clusters import clusters_of, settings_for
from generator.paths import Project
from tests.platform.test_gpu_admission_cel import EKS_CASES, KINDS, NVIDIA_CASES, evaluate, workload

REPO = Path(__file__).resolve().parents[2]
APPS = Path(__file__).resolve().parent / "apps"


def guardrails(contract):
    """The cluster's gpu-pod-guardrails policy (a cluster may have the fabric's policy too)."""
    (policy,) = [p for p in contract.policies if p.name == "gpu-pod-guardrails"]
    return policy


@pytest.fixture(scope="module")
def contracts():
    project = Project(REPO)
    return {name: settings_for(project, {}, name).contract for name in project.cluster_names()}


def test_contract_reads_pools_namespaces_classes_and_policy(contracts):
    aks = contracts["aks-h100-training"]
    assert aks.kubernetes_version == "1.32"
    h100 = next(p for p in aks.pools if p.name == "h100")
    # the InfiniBand fabric: rdmaHcaMax units of rdma/ib per node (training-fabric.libsonnet)
    assert dict(h100.offers) == {"nvidia.com/gpu": 8, "hugepages-2Mi": 4096 * 2**21, "rdma/ib": 63}
    assert [(t.key, t.value, t.effect) for t in h100.taints] == [("nvidia.com/gpu", "present", "NoSchedule")]
    assert dict(next(p for p in aks.pools if p.name == "l40s").offers) == {"nvidia.com/gpu": 8}  # 2 GPUs x 4 replicas
    assert {"gpu-training", "gpu-inference"} <= set(aks.namespaces)
    assert aks.quota_limit("gpu-training", "nvidia.com/gpu") == 32
    assert aks.storage_classes == ("local-nvme",) and "nvidia" in aks.runtime_classes  # the GPU Operator's
    assert guardrails(aks).namespaces == ("gpu-training", "gpu-inference")
    # the namespace that trains over the fabric is guarded by baseline with IPC_LOCK as well
    (fabric,) = [p for p in aks.policies if p.name == "fabric-pod-security"]
    assert fabric.namespaces == ("gpu-training",) and fabric.actions == ("Deny",)
    eks = contracts["eks-mi300x-inference"]
    mig = dict(next(p for p in eks.pools if p.name == "a100-mig").offers)
    assert mig == {"nvidia.com/mig-1g.5gb": 16, "nvidia.com/mig-2g.10gb": 8, "nvidia.com/mig-3g.20gb": 8}
    assert eks.nearest("nvidia.com/mig-1g.10gb") == "nvidia.com/mig-2g.10gb"
    assert (
        dict(next(p for p in contracts["ocp-a100-tuned"].pools if p.offers and p.name == "a100").offers)[
            "nvidia.com/gpu"
        ]
        == 56
    )


CASES = [("aks-h100-training", "gpu-training", n, c) for n, c in NVIDIA_CASES.items()] + [
    ("eks-mi300x-inference", "embeddings", n, c) for n, c in EKS_CASES.items()
]


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize(("cluster", "namespace", "case", "body"), CASES, ids=[c[2] for c in CASES])
def test_lint_and_admission_agree(contracts, cluster, namespace, case, body, kind):
    """The policy lint applies (Rust CEL) denies exactly what cel-python's evaluation of it denies."""
    pod, _expected = body
    obj = workload(kind, pod) if kind != "Pod" else copy.deepcopy(pod)
    policy = guardrails(contracts[cluster])
    by_cel_python = evaluate({"spec": policy.spec}, obj)
    by_lint = [d.message for d in admission.judge(policy, obj, namespace)]
    assert by_lint == by_cel_python


def test_pods_get_the_tolerations_extended_resource_toleration_adds(contracts):
    """Keyed by the resource's name: amd.com/gpu for an AMD pod, none for nvidia.com/gpu on MIG slices."""
    policy = guardrails(contracts["eks-mi300x-inference"])
    amd, _ = EKS_CASES["amd-with-only-nvidia-toleration"]
    assert admission.judge(policy, amd, "llm-serving") != []
    assert admission.judge(policy, amd, "llm-serving", resource_tolerations=True) == []
    assert admission.judge(policy, workload("Job", amd), "llm-serving", resource_tolerations=True) != []
    mig, _ = EKS_CASES["mig-slice-no-toleration"]
    assert admission.judge(policy, mig, "embeddings", resource_tolerations=True) != []


def test_custom_resources_are_judged_by_their_pods(contracts):
    pod, _ = NVIDIA_CASES["no-toleration"]
    jobset = {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "spec": {"replicatedJobs": [{"name": "w", "template": {"spec": {"template": {"spec": pod["spec"]}}}}]},
    }
    policy = guardrails(contracts["aks-h100-training"])
    denials = admission.judge(policy, jobset, "gpu-training")
    assert [d.message for d in denials] == evaluate({"spec": policy.spec}, pod)
    assert denials[0].path == ("spec", "replicatedJobs", 0, "template", "spec", "template", "spec")
    assert admission.judge(policy, jobset, "kube-system") == []  # not bound there


def test_quantities_compare_by_value_as_after_decoding(contracts):
    """``1`` and ``"1"`` and ``1000m`` are one quantity to the API server: no "differs" denial."""
    policy = guardrails(contracts["aks-h100-training"])
    pod, _ = NVIDIA_CASES["limit-and-toleration"]
    pod = copy.deepcopy(pod)
    pod["spec"]["containers"][0]["resources"] = {
        "requests": {"nvidia.com/gpu": 1},
        "limits": {"nvidia.com/gpu": "1000m", "memory": "1Gi"},
    }
    assert admission.judge(policy, pod, "gpu-training") == []


def test_judging_leaves_the_object_and_its_pod_templates_as_they_were(contracts):
    """Quantities are respelt, and ExtendedResourceToleration's tolerations added, in copies of
    the parts they change: the linted object is untouched, and so is what ``pods`` remembers of
    it for the rules that run after CL006."""
    from generator.kube import pods

    policy = guardrails(contracts["eks-mi300x-inference"])
    amd, _ = EKS_CASES["amd-with-only-nvidia-toleration"]
    amd = copy.deepcopy(amd)
    amd["spec"]["containers"][0]["resources"]["limits"]["amd.com/gpu"] = 1  # respelt "1" for the policy
    for obj, denied in ((amd, False), (workload("Deployment", amd), True)):  # a template gets no toleration
        before, templates = copy.deepcopy(obj), pods.templates(obj)
        assert bool(admission.judge(policy, obj, "llm-serving", resource_tolerations=True)) is denied
        assert obj == before and pods.templates(obj) is templates


def test_the_object_is_handed_to_the_evaluator_once_per_policy(contracts, monkeypatch):
    from generator.validate import celrules

    made = []
    original = celrules.context
    monkeypatch.setattr(celrules, "context", lambda variables: made.append(1) or original(variables))
    pod, _ = NVIDIA_CASES["no-toleration"]
    policy = guardrails(contracts["aks-h100-training"])
    assert len(policy.spec["variables"]) + len(policy.spec["validations"]) > 5
    assert admission.judge(policy, pod, "gpu-training") != [] and len(made) == 1


def test_an_expression_that_reads_variables_other_than_by_name_gets_them_all():
    """Each expression is handed only the variables it names (``variables.<name>``); one that
    reads the map otherwise sees every variable computed before it, as the API server's does."""
    from generator.contract.model import Policy

    spec = {
        "matchConstraints": {"resourceRules": [{"apiGroups": [""], "resources": ["pods"], "operations": ["CREATE"]}]},
        "variables": [{"name": "a", "expression": "1"}, {"name": "b", "expression": "variables.a + 1"}],
        "validations": [
            {"expression": "size(variables) == 2", "message": "size"},
            {"expression": "variables['b'] == 2", "message": "index"},
            {"expression": "variables.b == 3", "message": "by name"},
        ],
    }
    pod = {"apiVersion": "v1", "kind": "Pod", "spec": {"containers": [{"name": "c", "image": "i"}]}}
    assert [d.message for d in admission.judge(Policy("p", spec), pod, "n")] == ["by name"]


def test_mapping_expands_cluster_folders():
    known = ["aks-h100-training", "eks-mi300x-inference"]
    mapping = {"apps/{cluster}/**": [], "apps/shared/**": known}
    assert clusters_of("apps/aks-h100-training/job.yaml", mapping, known) == ["aks-h100-training"]
    assert clusters_of("apps/shared/cm.yaml", mapping, known) == known
    assert clusters_of("other/cm.yaml", mapping, known) == []


def test_unknown_cluster_gets_did_you_mean():
    with pytest.raises(InputError) as caught:
        settings_for(Project(REPO), {}, "aks-h100-train")
    assert "did you mean 'aks-h100-training'?" in caught.value.diagnostics[0].hint


@pytest.fixture
def rendered_project(project) -> Path:
    """The repository's inputs, library and rendered trees in a temporary root, to change."""
    shutil.copytree(REPO / "rendered", project / "rendered")
    return project


@pytest.fixture(scope="module")
def linted_project(tmp_path_factory) -> Path:
    """The same, one copy for the tests that only lint against it (a lint writes nothing there)."""
    root = tmp_path_factory.mktemp("contract") / "proj"
    for name in ("clusters", "libsonnet", "schemas", "rendered"):
        shutil.copytree(REPO / name, root / name)
    return root


def _findings(run, root, *args) -> list[dict]:
    result = run(root, "lint", "--no-cache", "-o", "json", *args)
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)["findings"]


# (cluster, file under tests/lint/apps) -> the contract findings it must give, as (rule, line)
EXPECTED = {
    "aks-h100-training": {
        ("CL006", "train.yaml", 7),  # the policy: no toleration of nvidia.com/gpu
        ("CL003", "train.yaml", 10),  # 16 GPUs, nodes have 8
        ("CL001", "train.yaml", 14),  # sku=gpu is no pool's taint
        ("XR007", "serve.yaml", 14),
        ("CL002", "serve.yaml", 21),  # l40s time-slices without renaming: nvidia.com/gpu
        ("CL004", "eval.yaml", 2),  # once per file, at the first object in the namespace
        ("CL002", "eval.yaml", 16),  # no AMD pool
    },
    "eks-mi300x-inference": {
        ("CL006", "eval.yaml", 7),  # a Job's template gets no ExtendedResourceToleration
        ("CL003", "eval.yaml", 9),  # 12 AMD GPUs, nodes have 8
        ("CL005", "eval.yaml", 9),  # batch-eval's quota: 8
        ("XR001", "eval.yaml", 27),  # local-nvme-block here (a warning: the provider may have it)
        ("CL004", "serve.yaml", 2),
        ("XR007", "serve.yaml", 14),
        ("CL002", "serve.yaml", 21),
        ("CL004", "train.yaml", 2),  # PriorityClass gpu-training: eks has it too (llm-training)
        ("CL003", "train.yaml", 10),  # 16 GPUs, the h100 nodes have 8
    },
}


def _contract_findings(findings):
    return {
        (f["rule"], Path(f["file"]).name, f["line"]) for f in findings if f["rule"].startswith(("CL", "XR", "API004"))
    }


@pytest.mark.parametrize("cluster", sorted(EXPECTED))
def test_apps_linted_for_each_cluster_give_the_contract_findings(cluster, run, linted_project):
    findings = _findings(run, linted_project, "--cluster", cluster, str(APPS))
    assert _contract_findings(findings) == EXPECTED[cluster]


def test_mapping_lints_one_file_per_cluster(run, rendered_project):
    shutil.copytree(APPS, rendered_project / "apps")
    (rendered_project / ".gpu-gitops.yaml").write_text(
        "lint:\n  clusters:\n    apps/**: [aks-h100-training, eks-mi300x-inference]\n", encoding="utf-8"
    )
    findings = _findings(run, rendered_project, str(rendered_project / "apps"))
    for cluster, expected in EXPECTED.items():
        mine = [f for f in findings if f["message"].startswith(f"[{cluster}] ")]
        assert _contract_findings(mine) == expected


def test_dra_workloads_against_the_dra_cluster(run, linted_project):
    """The documented DRA example runs on its cluster; claims that miss a pool's taint, a listed
    claim, a memory limit or a DeviceClass do not."""
    assert (
        _contract_findings(
            _findings(
                run,
                linted_project,
                "--cluster",
                "onprem-gb200-dra",
                str(REPO / "docs" / "examples" / "dra-claims.yaml"),
            )
        )
        == set()
    )
    findings = _findings(run, linted_project, "--cluster", "onprem-gb200-dra", str(APPS.parent / "apps-dra"))
    assert _contract_findings(findings) | {(f["rule"], f["line"]) for f in findings if f["rule"] == "DRA001"} == {
        ("CL006", "claims.yaml", 7),  # memory limit and toleration, the policy's two messages
        ("CL001", "claims.yaml", 9),
        ("DRA001", 18),
        ("CL007", "claims.yaml", 30),
    }
    assert sum(f["rule"] == "CL006" for f in findings) == 2


def test_a_checked_input_completes_as_a_full_load_does():
    """``lint --cluster`` skips the input checks for a tree its sum file says is fresh: the
    completed spec must be the same."""
    from generator.inputs.load import load_cluster

    project = Project(REPO)
    for name in project.cluster_names():
        assert load_cluster(project, name, checked=True).spec == load_cluster(project, name).spec, name


def test_the_contract_is_read_from_the_files_of_the_kinds_it_needs(monkeypatch):
    """The contract parses only the rendered files its kinds are written to (the layout names a
    file after its object's kind): it is the contract every file of the tree gives."""
    from generator.contract import build as platform
    from generator.inputs.load import load_cluster

    project = Project(REPO)
    for name in project.cluster_names():
        cluster = load_cluster(project, name, checked=True)
        named = platform.build(cluster, project.rendered / name)
        with monkeypatch.context() as patch:
            patch.setattr(platform, "_FILE_PREFIXES", ("",))  # every file
            assert platform.build(cluster, project.rendered / name) == named, name


def test_a_stale_tree_is_said_and_a_bad_input_is_an_input_error(run, rendered_project):
    path = rendered_project / "clusters" / "aks-h100-training" / "cluster.yaml"
    path.write_text(path.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    result = run(rendered_project, "lint", "--no-cache", "--cluster", "aks-h100-training", str(APPS / "serve.yaml"))
    assert (
        result.exit_code == 1
        and "rendered/aks-h100-training is not what `gpu-gitops render` writes now" in result.stderr
    )
    path.write_text(
        path.read_text(encoding="utf-8").replace('kubernetesVersion: "1.32"', 'kubernetesVersion: "1.3"'),
        encoding="utf-8",
    )
    result = run(rendered_project, "lint", "--no-cache", "--cluster", "aks-h100-training", str(APPS / "serve.yaml"))
    assert result.exit_code == 2 and "cluster.yaml:" in result.stderr and "Traceback" not in result.stderr


def test_one_file_linted_for_two_clusters_reports_its_unmanaged_namespace_for_each(run, linted_project, tmp_path):
    """CL004 reports once per file and namespace: per cluster too, even when the same file is the
    last one checked for one cluster and the first for the next, in one process."""
    app = tmp_path / "app.yaml"
    app.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: nope}\n", encoding="utf-8")
    clusters = ["ocp-a100-tuned", "aks-h100-training"]
    args = [a for c in clusters for a in ("--cluster", c)]
    findings = _findings(run, linted_project, "--jobs", "1", *args, str(app))
    assert sorted(f["message"].split("]")[0] for f in findings if f["rule"] == "CL004") == sorted(
        f"[{c}" for c in clusters
    )


def test_linting_for_several_clusters_hashes_the_library_once(run, linted_project, monkeypatch, tmp_path):
    """Whether each cluster's tree is fresh is found for all of them at once: the tool, the
    library and the schemas, which every sum file records, are hashed once per run."""
    from generator.tree import fingerprint

    calls = []
    original = fingerprint.shared_lines
    monkeypatch.setattr(fingerprint, "shared_lines", lambda *a: calls.append(a) or original(*a))
    app = tmp_path / "app.yaml"
    app.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default}\n", encoding="utf-8")
    clusters = ["ocp-a100-tuned", "aks-h100-training", "eks-mi300x-inference"]
    _findings(run, linted_project, *[a for c in clusters for a in ("--cluster", c)], str(app))
    assert len(calls) == 1


def test_a_namespace_a_file_creates_is_not_looked_up_for_its_later_objects(tmp_path):
    """CL004 keeps a located finding per file for each namespace the cluster lacks, in case no
    linted Namespace creates it; after a Namespace of that name in the same file none is kept."""
    from generator.lint import lint_paths

    path = tmp_path / "team.yaml"
    path.write_text(
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n---\n"
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: team}\n---\n"
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: d, namespace: other}\n",
        encoding="utf-8",
    )
    result = lint_paths([str(path)], settings_for(Project(REPO), {}, "aks-h100-training"))
    assert [fact for rule, fact, _ in result.sources[0].facts if rule == "CL004"] == [
        ("class", "team"),
        ("use", "other"),
    ]
    assert [(f.rule, f.line) for f in result.findings if f.rule == "CL004"] == [("CL004", 9)]


def test_policies_of_one_name_with_other_rules_are_not_taken_for_each_other():
    """Whether a policy selects a kind is remembered per policy: two clusters' policies of one
    name and bindings, one selecting Pods and one Nodes, judge a Pod each by its own rules."""
    from generator.contract.model import Policy

    def policy(resource: str) -> Policy:
        rules = [{"apiGroups": [""], "resources": [resource], "operations": ["CREATE"]}]
        validation = {"expression": "has(object.spec.nodeName)", "message": "pin it"}
        return Policy("guard", {"matchConstraints": {"resourceRules": rules}, "validations": [validation]})

    pod = {"apiVersion": "v1", "kind": "Pod", "spec": {"containers": [{"name": "c", "image": "i"}]}}
    assert [d.message for d in admission.judge(policy("pods"), pod, "n")] == ["pin it"]
    assert admission.judge(policy("nodes"), pod, "n") == []
    assert [d.message for d in admission.judge(policy("pods"), pod, "n")] == ["pin it"]
