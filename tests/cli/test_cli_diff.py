"""`gpu-gitops diff`: says when nothing would change, and summarises changes as Markdown."""

from __future__ import annotations

import re

from conftest import EXAMPLES

from generator.tree.diffsummary import ClusterDiff, markdown
from generator.tree.write import Changes

# rendered_project (tests/conftest.py): a copy of the test run's one render of the examples, to change.


def test_diff_without_changes_says_so(rendered_project, run):
    result = run(rendered_project, "diff")
    assert result.exit_code == 0
    assert result.stdout == f"no changes: rendered/ matches the inputs of {len(EXAMPLES)} cluster(s)\n"
    assert run(rendered_project, "diff", "-q").stdout == ""


def test_markdown_without_changes_says_so(rendered_project, run):
    result = run(rendered_project, "diff", "--format", "markdown")
    assert result.exit_code == 0
    assert f"No changes: `rendered/` matches the inputs of {len(EXAMPLES)} cluster(s)." in result.stdout


def test_markdown_summarises_per_cluster_and_layer(rendered_project, run):
    path = rendered_project / "clusters" / "aks-h100-training" / "cluster.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("branch: main", "branch: release"), encoding="utf-8")
    gone = rendered_project / "rendered" / "ocp-a100-tuned" / "20-workloads"
    victim = sorted(gone.rglob("*_*.yaml"))[0]
    victim.unlink()
    result = run(rendered_project, "diff", "--format", "markdown")
    assert result.exit_code == 1
    text = result.stdout
    assert f"2 of {len(EXAMPLES)} cluster(s) would change" in text
    assert "### aks-h100-training" in text and "### ocp-a100-tuned" in text
    assert "### eks-mi300x-inference" not in text
    assert "| `gitops` | 0 | 1 | 0 |" in text
    assert "| `20-workloads` | 1 | 0 | 0 |" in text
    assert f"+ {victim.relative_to(rendered_project / 'rendered' / 'ocp-a100-tuned').as_posix()}" in text
    assert "~ gitops/gitrepository_flux-system_aks-h100-training.yaml" in text
    assert ".gpu-gitops.sum" not in text.split("<summary>Diff</summary>")[0]  # render's bookkeeping, no object


def test_markdown_keeps_every_diff_line_inside_a_fence(rendered_project, run):
    path = rendered_project / "clusters" / "aks-h100-training" / "cluster.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("branch: main", "branch: release"), encoding="utf-8")
    text = run(rendered_project, "diff", "--format", "markdown").stdout
    inside, outside = False, []
    for line in text.splitlines():
        if re.match(r"^`{3,}", line):
            inside = not inside
        elif not inside:
            outside.append(line)
    assert not inside
    assert "-    branch: main" in text and "+    branch: release" in text
    # outside the fences nothing is a raw diff line that Markdown would turn into a list or a rule
    assert not [line for line in outside if line.startswith(("+", "-", "@@"))]


def test_a_fence_is_longer_than_the_backticks_it_holds():
    diff = "+  # run ```gpu-gitops render```\n"
    text = markdown([ClusterDiff("a", Changes([], ["x/y.yaml"], []), diff)])
    assert "````diff\n" + diff + "````\n" in text


def test_a_long_diff_is_cut_with_a_pointer_to_the_full_one():
    diff = "".join(f"+line {i}\n" for i in range(1000))
    text = markdown([ClusterDiff("big", Changes(["x/y.yaml"], [], []), diff)])
    assert "+line 399\n" in text and "+line 400\n" not in text
    assert "600 more lines: `gpu-gitops diff big` shows them all." in text
