"""Huge-page ResourceQuotas are checked against what the node pools reserve, as GPU quotas are."""

from __future__ import annotations

import pytest

EKS = "eks-mi300x-inference"  # mi300x: 1Gi: 64 pages x 2 nodes = 128Gi; quota hugepages-1Gi: 64Gi
AKS = "aks-h100-training"  # h100: 2Mi: 4096 pages x 4 nodes = 32Gi; quota hugepages-2Mi: 8Gi


def _render_fails(project, run, cluster, old, new, needle, message, hint):
    path = project / "clusters" / cluster / "cluster.yaml"
    text = path.read_text(encoding="utf-8")
    assert old in text
    text = text.replace(old, new, 1)
    path.write_text(text, encoding="utf-8")
    line = text[: text.index(needle)].count("\n") + 1
    result = run(project, "render", cluster)
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    at = [
        n for n, ln in enumerate(lines) if ln.startswith(f"clusters/{cluster}/cluster.yaml:{line}:") and message in ln
    ]
    assert at, result.stderr
    assert lines[at[0] + 1].startswith("  hint: ") and hint in lines[at[0] + 1], result.stderr


CASES = {
    "1Gi-above-capacity": (
        EKS,
        "hugepages-1Gi: 64Gi}",
        "hugepages-1Gi: 129Gi}",
        "129Gi",
        "quota asks for 129Gi of hugepages-1Gi; the node pools reserve 128Gi",
        "lower quota.hugepages-1Gi",
    ),
    "2Mi-above-capacity": (
        AKS,
        "hugepages-2Mi: 8Gi",
        "hugepages-2Mi: 33Gi",
        "33Gi",
        "quota asks for 33Gi of hugepages-2Mi; the node pools reserve 32Gi",
        "nodePools[].hugepages.2Mi",
    ),
    "size-no-pool-reserves": (
        AKS,
        "hugepages-2Mi: 8Gi",
        "hugepages-1Gi: 8Gi",
        "hugepages-1Gi: 8Gi",
        "quota asks for 8Gi of hugepages-1Gi; no node pool reserves 1Gi huge pages",
        "nodePools[].hugepages.1Gi",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_hugepage_quota_above_pool_capacity(project, run, case):
    _render_fails(project, run, *CASES[case])


def test_quota_at_capacity_renders(project, run):
    path = project / "clusters" / EKS / "cluster.yaml"
    path.write_text(
        path.read_text(encoding="utf-8").replace("hugepages-1Gi: 64Gi}", "hugepages-1Gi: 128Gi}", 1), encoding="utf-8"
    )
    assert run(project, "render", EKS).exit_code == 0


def test_huge_pages_above_the_nodes_memory_are_refused_at_the_pool(project, run):
    """mi300x reserves 2048 x 2Mi + 64 x 1Gi = 68Gi per node; nodes of 68Gi could never hold them."""
    _render_fails(
        project,
        run,
        EKS,
        "    hugepages: {2Mi: 2048, 1Gi: 64",
        "    memory: 68Gi\n    hugepages: {2Mi: 2048, 1Gi: 64",
        "    hugepages: {2Mi: 2048, 1Gi: 64",
        "node pool mi300x reserves 68Gi of huge pages per node, and its nodes have 68Gi of memory",
        "correct nodePools[",
    )


@pytest.mark.parametrize("memory", ["2Ti", "2048Gi", "1.5Ti"])
def test_huge_pages_within_the_nodes_memory_render(project, run, memory):
    path = project / "clusters" / EKS / "cluster.yaml"
    text = path.read_text(encoding="utf-8")
    old = "    hugepages: {2Mi: 2048, 1Gi: 64"
    assert old in text
    path.write_text(text.replace(old, f"    memory: {memory}\n{old}", 1), encoding="utf-8")
    result = run(project, "render", EKS)
    assert result.exit_code == 0, result.output


def test_the_aks_example_states_its_nodes_memory_and_fits():
    from conftest import REPO
    from ruamel.yaml import YAML

    from generator.inputs.advertised import hugepages_per_node as per_node
    from generator.kube.quantity import parse

    pools = YAML(typ="safe").load((REPO / "clusters" / AKS / "cluster.yaml").read_text(encoding="utf-8"))["nodePools"]
    (h100,) = [p for p in pools if p["name"] == "h100"]
    assert parse(h100["memory"]) > per_node(h100)
