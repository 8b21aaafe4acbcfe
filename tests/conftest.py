"""Shared test fixtures: a throw-away copy of the project, the CLI, upstream CRD schemas."""

from __future__ import annotations

import atexit
import json
import os
import shutil
import tempfile
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


def _imported_locations(projects: tuple[str, ...]) -> list[str]:
    """A location for the CRDs the examples render that ../shared/crd-schemas does not carry,
    converted once per test run from the upstream CRD mirror (as `schemas import` does) into a
    temporary folder: nothing derived from upstream is kept in the repository."""
    from generator.lint.crdimport import import_files

    files = sorted(f for name in projects for f in (_SHARED / "upstream-crds" / name).glob("*.yaml"))
    if not files:
        return []
    folder = Path(tempfile.mkdtemp(prefix="gpu-gitops-crd-import-"))
    atexit.register(shutil.rmtree, folder, True)
    import_files(files, folder, str)
    return [str(folder / "{{.Group}}" / "{{.ResourceKind}}_{{.ResourceAPIVersion}}.json")]


# ComputeDomain (the DRA driver's CRD) of the onprem-gb200-dra example; NodePool, EC2NodeClass and
# AKSNodeClass (Karpenter) of the provisioned pools; NicNodePolicy (Network Operator) of the
# training fabric; Kueue's Topology of the queued examples.
CRD_LOCATIONS += _imported_locations(("nvidia-dra-driver-gpu", "karpenter", "network-operator", "kueue"))


def needs_crd_schemas():
    return pytest.mark.skipif(not CRD_SCHEMAS.is_dir(), reason="upstream CRD schemas (../shared) not present")


@pytest.fixture(scope="session")
def schema_checks(tmp_path_factory) -> Path:
    """The metaschema-check memo (``schema-checks/``) every cache folder of the session shares:
    a schema document that passed its check is not checked again by the next test (the check
    takes seconds on the largest CRDs). Only passes are recorded, so every refusal is still
    checked, by the code under test."""
    return tmp_path_factory.mktemp("schema-checks")


def empty_cache(tmp_path_factory, name: str, schema_checks: Path) -> Path:
    """A new gpu-gitops cache folder, empty but for the session's metaschema-check memo."""
    cache = tmp_path_factory.mktemp(name)
    (cache / "schema-checks").symlink_to(schema_checks, target_is_directory=True)
    return cache


@pytest.fixture(scope="module", autouse=True)
def _module_cache(tmp_path_factory, schema_checks):
    """A module's own fixtures are set up before any test's cache is: they get an empty cache of
    the module's (never the user's, nor one another module's fixtures wrote to)."""
    from generator.render import pipeline

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GPU_GITOPS_CACHE_DIR", str(empty_cache(tmp_path_factory, "module-cache", schema_checks)))
        pipeline.validator.cache_clear()
        yield


@pytest.fixture(autouse=True)
def _own_cache(tmp_path_factory, monkeypatch, schema_checks):
    """Every test gets an empty gpu-gitops cache: a schema set synced on this machine never leaks in,
    nor does one an earlier test synced (validators built on it are cached per process)."""
    from generator.render import pipeline

    monkeypatch.setenv("GPU_GITOPS_CACHE_DIR", str(empty_cache(tmp_path_factory, "cache", schema_checks)))
    pipeline.validator.cache_clear()


@pytest.fixture(scope="session")
def mirror_sync(tmp_path_factory, schema_checks):
    """``gpu-gitops schemas sync --from ../shared/upstream-crds`` run once, into a cache folder of
    its own: (cache folder, the command's click Result). Tests only read the installed set."""
    mirror = _SHARED / "upstream-crds"
    if not mirror.is_dir():
        pytest.skip("upstream CRD mirror (../shared) not present")
    root = empty_cache(tmp_path_factory, "synced", schema_checks)
    project = tmp_path_factory.mktemp("sync-project")
    result = CliRunner().invoke(
        cli,
        ["--root", str(project), "--color", "never", "schemas", "sync", "--from", str(mirror)],
        env={"GPU_GITOPS_CACHE_DIR": str(root)},
        catch_exceptions=False,
    )
    return root, result


@pytest.fixture
def synced_cache(mirror_sync) -> Path:
    """A cache folder holding the schema set synced once from ../shared/upstream-crds (read-only use)."""
    root, result = mirror_sync
    assert result.exit_code == 0, result.output
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
    (root / ".gpu-gitops.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture(scope="session")
def strict_render(tmp_path_factory, schema_checks):
    """A copy of the project rendered once with the upstream CRD schemas required (when ../shared
    is here), in a cache folder of its own: (project root, the click Result). Read-only."""
    root = tmp_path_factory.mktemp("gpu") / "proj"
    root.mkdir()
    for name in ("clusters", "libsonnet", "schemas"):
        shutil.copytree(REPO / name, root / name)
    # a cache folder of its own: the per-test one does not exist yet, and the user's must not leak in
    cache = empty_cache(tmp_path_factory, "rendered-cache", schema_checks)
    result = CliRunner().invoke(
        cli,
        ["--root", str(root), "--color", "never", "render", *strict_args()],
        env={"GPU_GITOPS_CACHE_DIR": str(cache)},
        catch_exceptions=False,
    )
    return root, result


@pytest.fixture(scope="session")
def rendered(strict_render) -> Path:
    """``rendered/`` of ``strict_render``."""
    root, result = strict_render
    assert result.exit_code == 0, result.output
    return root / "rendered"
