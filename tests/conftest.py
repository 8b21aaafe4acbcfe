"""Shared test fixtures: a throw-away copy of the project, the CLI, upstream CRD schemas."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.cli import cli

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = sorted(p.name for p in (REPO / "clusters").iterdir() if (p / "cluster.yaml").is_file())

# Upstream CRD schemas live beside the project (../shared/crd-schemas); the newer copies
# come first, as kubeconform's first-match rule wants.
_SHARED = Path(os.environ.get("GPU_GITOPS_SHARED", REPO.parent / "shared"))
CRD_SCHEMAS = _SHARED / "crd-schemas"
CRD_LOCATIONS = [
    str(CRD_SCHEMAS / "_upstream-latest" / "{{.Group}}" / "{{.ResourceKind}}_{{.ResourceAPIVersion}}.json"),
    str(CRD_SCHEMAS / "{{.Group}}" / "{{.ResourceKind}}_{{.ResourceAPIVersion}}.json"),
]


def needs_crd_schemas():
    return pytest.mark.skipif(not CRD_SCHEMAS.is_dir(), reason="upstream CRD schemas (../shared) not present")


@pytest.fixture(autouse=True)
def _own_cache(tmp_path_factory, monkeypatch):
    """Every test gets an empty gpu-gitops cache: a schema set synced on this machine never leaks in,
    nor does one an earlier test synced (validators built on it are cached per process)."""
    from generator import pipeline

    monkeypatch.setenv("GPU_GITOPS_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    pipeline.validator.cache_clear()


@pytest.fixture(scope="session")
def synced_cache(tmp_path_factory) -> Path:
    """A cache folder holding the schema set synced once from ../shared/upstream-crds (read-only use)."""
    from generator import schemasync

    mirror = _SHARED / "upstream-crds"
    if not mirror.is_dir():
        pytest.skip("upstream CRD mirror (../shared) not present")
    root = tmp_path_factory.mktemp("synced")
    schemasync.sync(mirror=mirror, root=root)
    return root


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A copy of the repository's inputs and library in a temporary root."""
    root = tmp_path / "proj"
    root.mkdir()
    for name in ("clusters", "libsonnet", "schemas"):
        shutil.copytree(REPO / name, root / name)
    return root


@pytest.fixture
def run():
    """Run the CLI in-process: run(root, 'render', ...) → click Result (exit_code, stdout, stderr)."""
    runner = CliRunner()

    def invoke(root: Path, *args: str, env: dict | None = None):
        return runner.invoke(cli, ["--root", str(root), "--color", "never", *args], env=env, catch_exceptions=False)

    return invoke


def strict_args() -> list[str]:
    """``--require-schemas`` with the upstream locations when they are here, else nothing:
    for tests whose subject is not upstream validity (that is asserted where it is)."""
    return ["--require-schemas", *crd_args()] if CRD_SCHEMAS.is_dir() else []


def crd_args() -> list[str]:
    args = []
    for loc in CRD_LOCATIONS:
        args += ["--schema-location", loc]
    return args


def write_config(root: Path) -> None:
    """A project config that points at the upstream CRD schemas, as a real repository's would."""
    lines = ["schemaLocations:"] + [f"  - {json.dumps(loc)}" for loc in CRD_LOCATIONS]
    (root / ".gpu-gitops.yaml").write_text("\n".join(lines) + "\n")


@pytest.fixture(scope="session")
def rendered(tmp_path_factory) -> Path:
    """``rendered/`` of a copy of the project, rendered with the upstream CRD schemas required
    (when ../shared is here)."""
    root = tmp_path_factory.mktemp("gpu") / "proj"
    root.mkdir()
    for name in ("clusters", "libsonnet", "schemas"):
        shutil.copytree(REPO / name, root / name)
    result = CliRunner().invoke(
        cli, ["--root", str(root), "--color", "never", "render", *strict_args()], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    return root / "rendered"
