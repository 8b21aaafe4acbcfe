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
    ],
)
def test_charts_kustomizations_and_tool_configuration_are_not(path):
    assert not _linted(path)
