"""The published lint hook picks manifests and leaves other YAML alone (pre-commit's own
matching: ``types: [yaml]``, then ``re.search`` of ``files`` and ``exclude``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from ruamel.yaml import YAML

HOOK = next(
    h
    for h in YAML(typ="safe").load(
        (Path(__file__).resolve().parents[2] / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    )
    if h["id"] == "gpu-gitops-lint"
)


def _linted(path: str) -> bool:
    return re.search(HOOK.get("files", ""), path) is not None and re.search(HOOK["exclude"], path) is None


@pytest.mark.parametrize(
    "path",
    [
        "deploy/deployment.yaml",
        "rendered/prod/10-platform/dcgm/daemonset_kube-system_dcgm.yaml",
        "manifests/crds/raycluster.yaml",
        "apps/keda/scaledobject.yml",
    ],
)
def test_manifests_are_linted(path):
    assert _linted(path)


@pytest.mark.parametrize(
    "path",
    [
        "charts/gpu-app/Chart.yaml",
        "charts/gpu-app/values.yaml",
        "charts/gpu-app/values-prod.yaml",
        "charts/gpu-app/templates/deployment.yaml",
        "helm/app/Chart.lock",
        "kustomization.yaml",
        "overlays/prod/kustomization.yml",
        "clusters/prod/cluster.yaml",
        ".github/workflows/ci.yml",
        ".gitlab-ci.yml",
        ".pre-commit-config.yaml",
        "mkdocs.yml",
        "docker-compose.yaml",
        ".gpu-gitops.yaml",
        "renovate.json",
        "web/package.json",
        ".golangci.yml",
        "ct.yaml",
        "site/static/examples/visibility/pending-workloads-dashboard.json",
    ],
)
def test_charts_kustomizations_and_tool_configuration_are_not(path):
    assert not _linted(path)


def test_the_hook_excludes_what_lint_passes_by_in_a_folder():
    from generator.lint import nonmanifests

    assert re.sub(r"\s+", "", HOOK["exclude"]) == re.sub(r"\s+", "", nonmanifests.PATTERN)


def test_lint_of_a_repository_skips_its_charts_and_tool_configuration(tmp_path):
    """`gpu-gitops lint .` in a repository: no "missing kind" on the files that are no manifests;
    a file named on the command line is linted whatever its name, passed by only for its contents."""
    from generator.lint import lint_paths
    from generator.lint.settings import Settings

    files = {
        ".gpu-gitops.yaml": "lint:\n  kubernetesVersion: '1.32'\n",
        ".pre-commit-config.yaml": "repos: []\n",
        "chart/Chart.yaml": "apiVersion: v2\nname: app\nversion: 0.1.0\n",
        "chart/values.yaml": "replicaCount: 1\n",
        "chart/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n",
        "deploy/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: flags\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    result = lint_paths([str(tmp_path)], Settings())
    assert [s.display for s in result.sources] == [str(tmp_path / "deploy" / "cm.yaml")]
    assert result.findings == []
    named = lint_paths([str(tmp_path / "chart" / "Chart.yaml")], Settings())
    assert [f.rule for f in named.findings] == ["K8S002"]  # apiVersion and no kind: the start of an object
    # by its contents (no apiVersion, kind or metadata) a values file is no manifest, however named
    assert lint_paths([str(tmp_path / "chart" / "values.yaml")], Settings()).passed_by == [
        str(tmp_path / "chart" / "values.yaml")
    ]


def test_lint_passes_by_exactly_the_paths_the_hooks_pattern_excludes():
    """``skipped`` answers from names and prefixes; the pattern (the hook's ``exclude``, as
    pre-commit searches it) is the definition: the two agree on every path made of the names
    the pattern mentions, near misses of them, and line breaks."""
    import itertools

    from generator.lint import nonmanifests

    pattern = re.compile(nonmanifests.PATTERN)
    stems = [*nonmanifests._TOOL_STEMS, "Chart", "kustomization", "values", "valuesX", "value", "chart", "cluster"]
    names = [f"{stem}{suffix}" for stem in stems for suffix in ("", ".yaml", ".yml", ".json", ".lock", ".yamlx")]
    names += ["dashboard.json", "my-dashboard-1.json", "dashboard.json.bak", "dash.json", "a.yaml", "", "x\n", "\n"]
    names += [".pre-commit-config.yaml", ".pre-commit-hooks.yaml", ".gpu-gitops.yaml", ".gitlab-ci.yml"]
    folders = ["", "templates", "charts", "clusters", "_bases", ".github", "docs", "ci", "prod", "a\nb", "templatesx"]
    paths = set(names)
    for depth in (1, 2, 3):
        for parts in itertools.product(folders, repeat=depth):
            paths.update("/".join((*parts, name)) for name in names)
    assert len(paths) > 100_000
    differ = [p for p in paths if nonmanifests.skipped(p) != (pattern.search(p) is not None)]
    assert differ == []
