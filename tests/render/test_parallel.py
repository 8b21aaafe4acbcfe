"""Large repositories: parallel render, --changed-only, --shard, the progress bar."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator import cpus, progress
from generator.cli import Ui, cli
from generator.paths import Project
from generator.render import pipeline, selection
from generator.tree import write as tree

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]


def _add_clusters(root: Path, count: int) -> None:
    """More clusters, copies of the examples under new names, so a pool has work to share."""
    examples = sorted(p.name for p in (root / "clusters").iterdir() if (p / "cluster.yaml").is_file())
    for i in range(count):
        source = examples[i % len(examples)]
        name = f"{source[:30]}-{i}"
        shutil.copytree(root / "clusters" / source, root / "clusters" / name)
        path = root / "clusters" / name / "cluster.yaml"
        path.write_text(
            path.read_text(encoding="utf-8").replace(f"name: {source}\n", f"name: {name}\n", 1), encoding="utf-8"
        )


@pytest.mark.slow
def test_parallel_render_is_byte_identical_to_serial(project, run, tmp_path):
    _add_clusters(project, 1)
    twin = tmp_path / "twin"
    shutil.copytree(project, twin)
    assert run(project, "render", "--jobs", "1").exit_code == 0
    result = run(twin, "render", "--jobs", "2")
    assert result.exit_code == 0, result.stderr
    serial = tree.read_tree(project / "rendered")
    parallel = tree.read_tree(twin / "rendered")
    expected = len(Project(project).cluster_names())
    assert len([p for p in serial if p.endswith("/gitops/kustomization.yaml")]) == expected
    assert serial == parallel
    # reported in cluster order, whatever order the workers finished in
    names = [line.split(":")[0] for line in result.stdout.splitlines()]
    assert names == sorted(names) and len(names) == expected
    assert "rendering" not in result.stderr  # no progress bar off a terminal


def test_parallel_render_reports_input_errors_from_workers(project, run):
    path = project / "clusters" / "ocp-a100-tuned" / "cluster.yaml"
    path.write_text(
        path.read_text(encoding="utf-8").replace("provider: openshift", "provider: moon\nsurprise: 1"), encoding="utf-8"
    )
    result = run(project, "render", "--jobs", "2")
    assert result.exit_code == 2
    # both errors of the one bad cluster survive the trip back from the worker, with their lines
    assert "clusters/ocp-a100-tuned/cluster.yaml:9:" in result.stderr
    assert "surprise" in result.stderr
    assert (project / "rendered" / "aks-h100-training" / "kustomization.yaml").is_file()


def test_affected_clusters():
    fleet = ["a", "b", "c"]
    assert selection.affected(["clusters/b/cluster.yaml"], fleet) == ["b"]
    assert selection.affected(["rendered/c/20-workloads/x.yaml", "README.md"], fleet) == ["c"]
    assert selection.affected(["libsonnet/components/keda.libsonnet"], fleet) == fleet
    assert selection.affected(["schemas/cluster.schema.json"], fleet) == fleet
    assert selection.affected([".gpu-gitops.yaml"], fleet) == fleet
    assert selection.affected(["docs/inputs.md", "clusters/gone/cluster.yaml"], fleet) == []


@pytest.mark.parametrize("total", [1, 2, 3, 7])
def test_shards_partition_the_sorted_list(total):
    fleet = [f"c{i:02d}" for i in range(10)][::-1]
    parts = [selection.shard(fleet, i, total) for i in range(1, total + 1)]
    assert [name for part in parts for name in part] == sorted(fleet)
    sizes = [len(p) for p in parts]
    assert max(sizes) - min(sizes) <= 1


@pytest.mark.parametrize("spec", ["0/3", "4/3", "1/0", "a/b", "2"])
def test_bad_shard_is_a_usage_error(project, run, spec):
    result = run(project, "check", "--shard", spec)
    assert result.exit_code == 2
    assert f"invalid --shard '{spec}'" in result.stderr
    assert "hint:" in result.stderr


def test_shard_checks_only_its_clusters(rendered_project, run):
    project = rendered_project
    stale = project / "rendered" / "ocp-a100-tuned" / "kustomization.yaml"
    stale.write_text(stale.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    # sorted: aks-h100-training, eks-mi300x-inference | ocp-a100-tuned
    assert run(project, "check", "--shard", "1/2").exit_code == 0
    result = run(project, "check", "--shard", "2/2")
    assert result.exit_code == 1
    assert "rendered/ocp-a100-tuned/kustomization.yaml: stale" in result.stderr


def test_cluster_names_and_selection_flags_exclude_each_other(project, run):
    result = run(project, "check", "--changed-only", "aks-h100-training")
    assert result.exit_code == 2 and "not both" in result.stderr


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_changed_only_follows_git(rendered_project, run):
    project = rendered_project
    subprocess.run([*GIT, "init", "-q", "-b", "main"], cwd=project, check=True)
    subprocess.run([*GIT, "add", "-A"], cwd=project, check=True)
    subprocess.run([*GIT, "commit", "-qm", "init"], cwd=project, check=True)
    # a stale tree that nobody changed in this commit is not looked at...
    eks = project / "clusters" / "eks-mi300x-inference" / "cluster.yaml"
    eks.write_text(eks.read_text(encoding="utf-8") + "gitops: {branch: release}\n", encoding="utf-8")
    subprocess.run([*GIT, "commit", "-qam", "retarget eks"], cwd=project, check=True)
    result = run(project, "check", "--changed-only")
    assert result.exit_code == 0, result.stderr
    assert "0 cluster(s) up to date" in result.stdout
    # ...but it is against the branch point
    result = run(project, "check", "--changed-only", "--base", "HEAD~1")
    assert result.exit_code == 1
    assert "rendered/eks-mi300x-inference/gitops/" in result.stderr
    # an unstaged change to one cluster selects that cluster only
    aks = project / "clusters" / "aks-h100-training" / "cluster.yaml"
    aks.write_text(aks.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    result = run(project, "check", "--changed-only")
    assert result.exit_code == 1  # the tree's sum file records the input's old hash
    assert "rendered/aks-h100-training/.gpu-gitops.sum: stale" in result.stderr
    assert "eks-mi300x-inference" not in result.stderr
    # a change to a base selects the clusters that use it
    base = project / "clusters" / "_bases" / "argocd-platform.yaml"
    base.write_text(base.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    result = run(project, "check", "--changed-only")
    assert "rendered/onprem-mi300x-operator/.gpu-gitops.sum: stale" in result.stderr
    assert "ocp-a100-tuned" not in result.stderr
    # the library affects every cluster
    (project / "libsonnet" / "lib" / "extra.libsonnet").write_text("{}\n", encoding="utf-8")
    result = run(project, "check", "--changed-only")
    assert result.exit_code == 1 and "eks-mi300x-inference" in result.stderr
    result = run(project, "check", "--changed-only", "--base", "no-such-rev")
    assert result.exit_code == 2 and "hint:" in result.stderr


def test_progress_bar_only_for_a_person(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert progress.wanted(quiet=False, total=5)
    assert not progress.wanted(quiet=True, total=5)
    assert not progress.wanted(quiet=False, total=1)
    monkeypatch.setenv("CI", "true")
    assert not progress.wanted(quiet=False, total=5)


def test_colour_only_when_asked_or_on_a_terminal(project, run, monkeypatch):
    path = project / "clusters" / "aks-h100-training" / "cluster.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("provider: aks", "provider: moon"), encoding="utf-8")
    plain = run(project, "render", "aks-h100-training")  # the runner's stderr is not a terminal
    assert plain.exit_code == 2 and "\x1b[" not in plain.stderr
    forced = CliRunner().invoke(cli, ["--root", str(project), "--color", "always", "render", "aks-h100-training"])
    assert "\x1b[" in forced.stderr
    monkeypatch.setenv("NO_COLOR", "1")
    assert Ui(False, False, "auto").color is False
    assert Ui(False, False, "always").color is True


# --- the default of --jobs ----------------------------------------------------------------------


def _cgroup(tmp_path: Path, proc_line: str, files: dict[str, str]) -> tuple[Path, Path]:
    root = tmp_path / "cgroup"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    proc = tmp_path / "proc-self-cgroup"
    proc.write_text(proc_line, encoding="utf-8")
    return root, proc


@pytest.mark.parametrize(
    "proc_line, files, expected",
    [
        ("0::/ci/job\n", {"ci/job/cpu.max": "150000 100000\n"}, 2),  # 1.5 CPUs rounds up
        ("0::/ci/job\n", {"ci/cpu.max": "100000 100000\n", "ci/job/cpu.max": "max 100000\n"}, 1),  # ancestor
        ("0::/ci/job\n", {"ci/job/cpu.max": "max 100000\n"}, None),  # no quota: affinity
        (
            "4:cpu,cpuacct:/docker/abc\n",
            {
                "cpu,cpuacct/docker/abc/cpu.cfs_quota_us": "50000\n",
                "cpu,cpuacct/docker/abc/cpu.cfs_period_us": "100000\n",
            },
            1,
        ),  # v1
        (
            "4:cpu,cpuacct:/docker/abc\n",
            {"cpu,cpuacct/docker/abc/cpu.cfs_quota_us": "-1\n", "cpu,cpuacct/docker/abc/cpu.cfs_period_us": "100000\n"},
            None,
        ),
    ],
    ids=["v2-quota", "v2-ancestor-quota", "v2-unlimited", "v1-quota", "v1-unlimited"],
)
def test_available_cpus_respect_the_cgroup_quota(tmp_path, monkeypatch, proc_line, files, expected):
    monkeypatch.setattr(cpus.os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    root, proc = _cgroup(tmp_path, proc_line, files)
    assert cpus.available(root, proc) == (expected or 4)


def test_available_cpus_respect_the_affinity_mask(tmp_path, monkeypatch):
    monkeypatch.setattr(cpus.os, "sched_getaffinity", lambda pid: {3}, raising=False)
    root, proc = _cgroup(tmp_path, "0::/\n", {"cpu.max": "800000 100000\n"})
    assert cpus.available(root, proc) == 1


def test_jobs_defaults_to_the_available_cpus(project, run, monkeypatch):
    seen = []
    monkeypatch.setattr(cpus, "available", lambda: 3)
    real = pipeline.render_many
    monkeypatch.setattr(pipeline, "render_many", lambda *a, **k: seen.append(k["jobs"]) or real(*a, **k))
    # one cluster: the default is what the command passes on, whatever the pool makes of it
    assert run(project, "render", "aks-h100-training").exit_code == 0
    shutil.rmtree(project / "rendered")  # an up-to-date tree is not rendered again
    assert run(project, "render", "--jobs", "1", "aks-h100-training").exit_code == 0
    assert seen == [3, 1]
