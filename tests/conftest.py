"""Shared test fixtures: a throw-away copy of the project, the CLI, upstream CRD schemas."""

from __future__ import annotations

import hashlib
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


@pytest.fixture(scope="module", autouse=True)
def _module_cache(tmp_path_factory):
    """A module's own fixtures are set up before any test's cache is: they get an empty cache of
    the module's (never the user's, nor one another module's fixtures wrote to)."""
    from generator import pipeline

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GPU_GITOPS_CACHE_DIR", str(tmp_path_factory.mktemp("module-cache")))
        pipeline.validator.cache_clear()
        yield


@pytest.fixture(autouse=True)
def _own_cache(tmp_path_factory, monkeypatch):
    """Every test gets an empty gpu-gitops cache: a schema set synced on this machine never leaks in,
    nor does one an earlier test synced (validators built on it are cached per process)."""
    from generator import pipeline

    monkeypatch.setenv("GPU_GITOPS_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    pipeline.validator.cache_clear()


@pytest.fixture(scope="session", autouse=True)
def _metaschema_check_once_per_document(tmp_path_factory):
    """A schema document that passed its metaschema check passes it again: the check is a pure
    function of the draft and the document, and takes seconds on the largest CRDs, in every
    render and lint that loads them. So each document is checked once per session; one that
    fails is checked every time, so every refusal is still the code's own. The documents that
    passed are marked in a folder, so the render and lint workers forked from this process
    share the record."""
    import jsonschema

    passed = tmp_path_factory.mktemp("metaschema-passed")
    patched = []
    drafts = ("Draft3", "Draft4", "Draft6", "Draft7", "Draft201909", "Draft202012")
    for cls in (getattr(jsonschema, f"{draft}Validator") for draft in drafts):

        def once(schema, *args, _cls=cls, _check=cls.check_schema, **kwargs):
            if args or kwargs not in ({}, {"format_checker": None}):
                return _check(schema, *args, **kwargs)
            try:
                text = json.dumps([_cls.__name__, sorted(kwargs), schema], sort_keys=True)
            except (TypeError, ValueError):
                return _check(schema, **kwargs)
            marker = passed / hashlib.sha256(text.encode()).hexdigest()
            if not marker.exists():
                _check(schema, **kwargs)
                marker.touch()

        patched.append((cls, cls.__dict__["check_schema"]))
        cls.check_schema = staticmethod(once)
    yield
    for cls, original in patched:
        cls.check_schema = original


@pytest.fixture(scope="session")
def mirror_sync(tmp_path_factory):
    """``gpu-gitops schemas sync --from ../shared/upstream-crds`` run once, into a cache folder of
    its own: (cache folder, the command's click Result). Tests only read the installed set."""
    mirror = _SHARED / "upstream-crds"
    if not mirror.is_dir():
        pytest.skip("upstream CRD mirror (../shared) not present")
    root = tmp_path_factory.mktemp("synced")
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
    (root / ".gpu-gitops.yaml").write_text("\n".join(lines) + "\n")


@pytest.fixture(scope="session")
def strict_render(tmp_path_factory):
    """A copy of the project rendered once with the upstream CRD schemas required (when ../shared
    is here), in a cache folder of its own: (project root, the click Result). Read-only."""
    root = tmp_path_factory.mktemp("gpu") / "proj"
    root.mkdir()
    for name in ("clusters", "libsonnet", "schemas"):
        shutil.copytree(REPO / name, root / name)
    # a cache folder of its own: the per-test one does not exist yet, and the user's must not leak in
    cache = tmp_path_factory.mktemp("rendered-cache")
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
