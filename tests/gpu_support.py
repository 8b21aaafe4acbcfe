"""Shared by the GPU stack tests: the example clusters rendered once per session, object lookup."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from ruamel.yaml import YAML

from generator.cli import cli
from conftest import REPO, strict_args


@pytest.fixture(scope="session")
def rendered(tmp_path_factory) -> Path:
    """``rendered/`` of a copy of the project, rendered with the upstream CRD schemas required
    (when ../shared is here)."""
    root = tmp_path_factory.mktemp("gpu") / "proj"
    root.mkdir()
    for name in ("clusters", "libsonnet", "schemas"):
        shutil.copytree(REPO / name, root / name)
    result = CliRunner().invoke(cli, ["--root", str(root), "--color", "never", "render", *strict_args()],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return root / "rendered"


def load_objects(folder: Path) -> list[dict]:
    """Every object under ``folder`` (one per file, as render writes them)."""
    yaml = YAML(typ="safe")
    objects = []
    for path in sorted(folder.rglob("*.yaml")):
        if path.name != "kustomization.yaml":
            objects.append(yaml.load(path.read_text()))
    return objects


def find(objects: list[dict], kind: str, name: str | None = None) -> list[dict]:
    return [o for o in objects if o["kind"] == kind and (name is None or o["metadata"]["name"] == name)]
