"""Shared test fixtures: a throw-away copy of the project, the CLI, upstream CRD schemas."""

from __future__ import annotations

import fcntl
import functools
import json
import os
import shutil
import stat
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest
from click.testing import CliRunner

from generator.cli import cli


def _bytecode_in_temp() -> None:
    """Where PYTHONDONTWRITEBYTECODE is set (container images set it, so that nothing is written
    beside the sources), Python compiles every module at every start and pytest rewrites the
    asserts of every test module at every collection: seconds per xdist worker, and again in
    every `gpu-gitops` process a test starts. The test run writes its bytecode, and pytest its
    rewritten test modules, under a folder of the temporary directory instead (Python's
    ``pycache_prefix``): still nothing beside the sources. A prefix the user chose is kept; a
    folder another user could write to is not used."""
    if not sys.dont_write_bytecode or sys.pycache_prefix:
        return
    folder = Path(tempfile.gettempdir()) / f"gpu-gitops-tests-bytecode-{os.getuid()}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        state = folder.lstat()
    except OSError:
        return
    if not stat.S_ISDIR(state.st_mode) or state.st_uid != os.getuid() or state.st_mode & 0o077:
        return
    sys.pycache_prefix, sys.dont_write_bytecode = str(folder), False
    os.environ["PYTHONPYCACHEPREFIX"] = str(folder)  # for the processes tests start
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


_bytecode_in_temp()

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = sorted(p.name for p in (REPO / "clusters").iterdir() if (p / "cluster.yaml").is_file())

# Upstream files (CRDs, schemas, chart packages and values, examples) live beside the project in
# ../shared (GPU_GITOPS_SHARED elsewhere), never in it: a clone without them skips the tests
# that read them, and says so (`-rs`).
SHARED = Path(os.environ.get("GPU_GITOPS_SHARED", REPO.parent / "shared"))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Modules holding a slow test first, then the others by their number of tests, each module's
    tests in their own order. pytest-xdist hands modules to the workers in this order
    (``--dist loadfile --no-loadscope-reorder``): the longest work is started first, so the two
    workers finish together instead of one running a slow module alone at the end."""
    modules: dict[str, list[pytest.Item]] = {}
    for item in items:
        modules.setdefault(item.nodeid.split("::", 1)[0], []).append(item)
    slow = {name for name, tests in modules.items() if any(t.get_closest_marker("slow") for t in tests)}
    order = sorted(modules, key=lambda name: (name not in slow, -len(modules[name])))
    items[:] = [item for name in order for item in modules[name]]


def shared_missing(path: Path, what: str) -> str:
    """Why a test cannot read ``path`` under ../shared ("" when it can): the skip reason."""
    if path.exists():
        return ""
    return f"../shared not found: {what} (../shared/{path.relative_to(SHARED).as_posix()})"


def needs_shared(path: Path, what: str):
    """Skip marker for tests that read ``path`` under ../shared."""
    reason = shared_missing(path, what)
    return pytest.mark.skipif(bool(reason), reason=reason)


# Upstream CRD schemas (../shared/crd-schemas); the newer copies come first, as kubeconform's
# first-match rule wants.
CRD_SCHEMAS = SHARED / "crd-schemas"
CRD_LOCATIONS = [
    str(CRD_SCHEMAS / "_upstream-latest" / "{{.Group}}" / "{{.ResourceKind}}_{{.ResourceAPIVersion}}.json"),
    str(CRD_SCHEMAS / "{{.Group}}" / "{{.ResourceKind}}_{{.ResourceAPIVersion}}.json"),
]


# A Deployment whose selector does not match its pods' labels: an error of the lint rules
# (K8S006), which render reports.
MISMATCHED_DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "d", "namespace": "team"},
    "spec": {
        "selector": {"matchLabels": {"app": "a"}},
        "template": {"metadata": {"labels": {"app": "b"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}},
    },
}


# Schemas the tests' own (tests/schemas), for kinds whose CRD the mirror has no copy of: the nv-ipam
# IPPool of the fabric networks, whose CRD the Network Operator creates at run time.
OWN_SCHEMAS = str(REPO / "tests" / "schemas" / "{{.Group}}" / "{{.ResourceKind}}_{{.ResourceAPIVersion}}.json")
CRD_LOCATIONS.append(OWN_SCHEMAS)

# CRDs the examples render that ../shared/crd-schemas does not carry: ComputeDomain (the DRA
# driver's CRD) of the onprem-gb200-dra example; NodePool, EC2NodeClass and AKSNodeClass
# (Karpenter) of the provisioned pools; NicNodePolicy (Network Operator) of the training fabric;
# Kueue's Topology of the queued examples; Certificate and Issuer (cert-manager) of the AMD GPU
# Operator chart, inflated.
IMPORTED_CRDS = ("nvidia-dra-driver-gpu", "karpenter", "network-operator", "kueue", "cert-manager")


@pytest.fixture(scope="session", autouse=True)
def _imported_crd_location(tmp_path_factory) -> None:
    """The CRDs of ``IMPORTED_CRDS`` converted from the upstream CRD mirror (as `schemas import`
    does) once per test run, into a temporary folder the workers share, whose location joins
    ``CRD_LOCATIONS`` before the tests' own schemas (in place: a module that imported the list
    sees it). Nothing derived from upstream is kept in the repository; no worker converts them
    again, nor the xdist controller, which runs no test, nor a second import of this module."""
    from generator.lint.crdimport import import_files

    files = sorted(f for name in IMPORTED_CRDS for f in (SHARED / "upstream-crds" / name).glob("*.yaml"))
    if not files:
        return
    folder, _ = made_once(tmp_path_factory, "crd-import", lambda into: {"written": len(import_files(files, into, str))})
    location = str(folder / "{{.Group}}" / "{{.ResourceKind}}_{{.ResourceAPIVersion}}.json")
    if location not in CRD_LOCATIONS:
        CRD_LOCATIONS.insert(CRD_LOCATIONS.index(OWN_SCHEMAS), location)


# Helm chart packages the library pins (../shared/charts) and a real Helm (`.ci/run` installs one
# under .venv/tools/helm; GPU_GITOPS_HELM or PATH otherwise): the example clusters inflate their
# charts (clusters/charts.lock), so rendering them needs both.
CHARTS = SHARED / "charts"
_VENV_HELM = REPO / ".venv" / "tools" / "helm" / "helm"
if not os.environ.get("GPU_GITOPS_HELM") and not shutil.which("helm") and _VENV_HELM.is_file():
    os.environ["GPU_GITOPS_HELM"] = str(_VENV_HELM)


def helm_missing() -> str:
    """Why charts cannot be inflated here ("" when they can)."""
    if not CHARTS.is_dir():
        return shared_missing(CHARTS, "the Helm chart packages the library pins")
    if not (os.environ.get("GPU_GITOPS_HELM") or shutil.which("helm")):
        return "no helm on PATH or in GPU_GITOPS_HELM (.ci/run installs one)"
    return ""


def needs_helm():
    reason = helm_missing()
    return pytest.mark.skipif(bool(reason), reason=reason)


def helm_repository(name: str = "r", url: str = "https://charts.example.com") -> dict:
    """A Flux HelmRepository in flux-system, as a chart test's release points at one."""
    return {
        "apiVersion": "source.toolkit.fluxcd.io/v1",
        "kind": "HelmRepository",
        "metadata": {"name": name, "namespace": "flux-system"},
        "spec": {"url": url},
    }


def widget_crd(group: str = "example.com", schema: dict | None = None) -> dict:
    """A namespaced ``Widget`` CRD of ``group`` serving and storing v1 with ``schema`` (a bare
    object when None): the custom resource the chart, review and schema tests install."""
    version = {
        "name": "v1",
        "served": True,
        "storage": True,
        "schema": {"openAPIV3Schema": schema or {"type": "object"}},
    }
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"widgets.{group}"},
        "spec": {
            "group": group,
            "names": {"kind": "Widget", "plural": "widgets"},
            "scope": "Namespaced",
            "versions": [version],
        },
    }


def settle(monkeypatch) -> None:
    """Runs start an hour from now, so what a test just wrote is past the stat record's racy
    window (files changed within seconds of a run are always read again)."""
    from generator.tree import statcache

    monkeypatch.setattr(statcache, "now_ns", lambda: time.time_ns() + 3600 * 10**9)


def needs_crd_schemas():
    return needs_shared(CRD_SCHEMAS, "upstream CRD schemas")


def validate_json(instance: object, schema: dict) -> None:
    """``jsonschema.validate(instance, schema)``, the schema's own metaschema check made once per
    process and schema (``validate`` makes it on every call: up to a second on a chart's values
    schema or a large config schema, paid again by every parametrised case)."""
    import jsonschema

    error = jsonschema.exceptions.best_match(
        _checked_validator(json.dumps(schema, sort_keys=True)).iter_errors(instance)
    )
    if error is not None:
        raise error


@functools.cache
def _checked_validator(schema_text: str):
    import jsonschema

    schema = json.loads(schema_text)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


class Outcome(NamedTuple):
    """What a CLI run made once per test run answered (a click Result's fields, kept as JSON)."""

    exit_code: int
    output: str
    stdout: str
    stderr: str


def _outcome(result) -> dict:
    return {"exit_code": result.exit_code, "output": result.output, "stdout": result.stdout, "stderr": result.stderr}


def made_once(tmp_path_factory, name: str, make: Callable[[Path], dict]) -> tuple[Path, dict]:
    """``make(folder)`` run once per test run, into ``folder``, and its answer (a JSON object).

    pytest-xdist gives each worker a session (and a base temporary folder) of its own under one
    root: the first worker to ask makes the folder there, under a lock, and every other waits for
    it and reads its answer, so what costs minutes is not paid once per worker."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent
    folder, answer = base / name, base / f"{name}.json"
    with (base / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not answer.is_file():
            shutil.rmtree(folder, ignore_errors=True)  # what a failed attempt left
            folder.mkdir()
            answer.write_text(json.dumps(make(folder)), encoding="utf-8")
    return folder, json.loads(answer.read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def schema_checks(tmp_path_factory) -> Path:
    """The metaschema-check memo (``schema-checks/``) every cache folder of the test run shares:
    a schema document that passed its check is not checked again by the next test (the check
    takes seconds on the largest CRDs). Only passes are recorded, so every refusal is still
    checked, by the code under test."""
    return made_once(tmp_path_factory, "schema-checks", lambda folder: {})[0]


@pytest.fixture
def own_cache(tmp_path: Path, monkeypatch) -> Path:
    """An empty cache with no chart in it (not the session's chart store)."""
    cache = tmp_path / "own-cache"
    cache.mkdir()
    monkeypatch.setenv("GPU_GITOPS_CACHE_DIR", str(cache))
    return cache


@pytest.fixture(scope="session")
def chart_store(tmp_path_factory) -> Path:
    """The test run's chart cache: every package of ../shared/charts stored under its digest (as
    `charts pull --from` stores them), and the inflations made from them. Content-addressed
    (each entry written in one rename), so sharing them between tests changes no result; a test
    of the cache itself uses its own."""
    from generator.charts import store

    def make(root: Path) -> dict:
        folder = root / "charts" / "sha256"
        folder.mkdir(parents=True)
        (root / "inflated").mkdir()
        for package in sorted(CHARTS.glob("*.tgz")) if CHARTS.is_dir() else []:
            data = package.read_bytes()
            (folder / f"{store.digest(data).removeprefix('sha256:')}.tgz").write_bytes(data)
        return {}

    return made_once(tmp_path_factory, "chart-store", make)[0]


def _link_shared(cache: Path, schema_checks: Path, charts: Path | None) -> Path:
    (cache / "schema-checks").symlink_to(schema_checks, target_is_directory=True)
    if charts is not None:
        (cache / "charts").symlink_to(charts / "charts", target_is_directory=True)
        (cache / "inflated").symlink_to(charts / "inflated", target_is_directory=True)
    return cache


def empty_cache(tmp_path_factory, name: str, schema_checks: Path, charts: Path | None = None) -> Path:
    """A new gpu-gitops cache folder, empty but for the test run's metaschema-check memo and,
    given ``charts`` (``chart_store``), its chart packages and inflations."""
    return _link_shared(tmp_path_factory.mktemp(name), schema_checks, charts)


def cache_with_charts(folder: Path) -> Path:
    """A new cache folder at ``folder`` holding only the test's chart packages and inflations
    (linked from the cache the test runs with): for tests whose subject is another cache."""
    folder.mkdir(parents=True, exist_ok=True)
    current = Path(os.environ["GPU_GITOPS_CACHE_DIR"])
    for name in ("charts", "inflated"):
        if (current / name).exists():
            (folder / name).symlink_to((current / name).resolve(), target_is_directory=True)
    return folder


@pytest.fixture(scope="module", autouse=True)
def _module_cache(tmp_path_factory, schema_checks, chart_store):
    """A module's own fixtures are set up before any test's cache is: they get an empty cache of
    the module's (never the user's, nor one another module's fixtures wrote to)."""
    from generator.render import pipeline

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(
            "GPU_GITOPS_CACHE_DIR", str(empty_cache(tmp_path_factory, "module-cache", schema_checks, chart_store))
        )
        pipeline.validator.cache_clear()
        yield


@pytest.fixture(autouse=True)
def _own_cache(tmp_path_factory, monkeypatch, schema_checks, chart_store):
    """Every test gets an empty gpu-gitops cache: a schema set synced on this machine never leaks in,
    nor does one an earlier test synced (validators built on it are cached per process). The
    session's chart packages are linked in: the example clusters inflate their charts."""
    from generator.render import pipeline

    monkeypatch.setenv("GPU_GITOPS_CACHE_DIR", str(empty_cache(tmp_path_factory, "cache", schema_checks, chart_store)))
    pipeline.validator.cache_clear()


@pytest.fixture(scope="session")
def mirror_sync(tmp_path_factory, schema_checks, chart_store):
    """``gpu-gitops schemas sync --from ../shared/upstream-crds`` run once per test run, into a
    cache folder of its own: (cache folder, the command's Outcome). Tests only read the
    installed set."""
    mirror = SHARED / "upstream-crds"
    if not mirror.is_dir():
        pytest.skip(shared_missing(mirror, "the upstream CRD mirror `schemas sync --from` reads"))

    def make(folder: Path) -> dict:
        root, project = folder / "cache", folder / "project"
        for empty in (root, project):
            empty.mkdir()
        _link_shared(root, schema_checks, chart_store)
        result = CliRunner().invoke(
            cli,
            ["--root", str(project), "--color", "never", "schemas", "sync", "--from", str(mirror)],
            env={"GPU_GITOPS_CACHE_DIR": str(root)},
            catch_exceptions=False,
        )
        return _outcome(result)

    folder, answer = made_once(tmp_path_factory, "synced", make)
    return folder / "cache", Outcome(**answer)


@pytest.fixture
def synced_cache(mirror_sync) -> Path:
    """A cache folder holding the schema set synced once from ../shared/upstream-crds (read-only use)."""
    root, result = mirror_sync
    assert result.exit_code == 0, result.output
    return root


def copy_repository(source: Path, target: Path) -> Path:
    """A copy of the git work tree ``source`` at ``target``: files copied (a test may edit them in
    place), git's object files hard-linked (git never writes one in place: a new object is a new
    file), which is most of a committed tree's files."""
    objects = source / ".git" / "objects"

    def copy(src: str, dst: str) -> None:
        if Path(src).is_relative_to(objects):
            os.link(src, dst)
        else:
            shutil.copy2(src, dst)

    shutil.copytree(source, target, symlinks=True, copy_function=copy)
    return target


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
    own = (REPO / ".gpu-gitops.yaml").read_text(encoding="utf-8")
    lint = own[own.index("\nlint:\n") + 1 :]  # the repository's lint settings (an OpenShift kind without a schema)
    (root / ".gpu-gitops.yaml").write_text("\n".join(lines) + "\n" + lint, encoding="utf-8")


@pytest.fixture(scope="session")
def strict_render(tmp_path_factory, schema_checks, chart_store):
    """A copy of the project rendered once per test run with the upstream CRD schemas required
    (when ../shared is here), in a cache folder of its own: (project root, the command's
    Outcome). Read-only."""

    def make(folder: Path) -> dict:
        root = folder / "proj"
        for name in ("clusters", "libsonnet", "schemas"):
            shutil.copytree(REPO / name, root / name)
        # a cache folder of its own: the per-test one does not exist yet, and the user's must not leak in
        cache = folder / "cache"
        cache.mkdir()
        _link_shared(cache, schema_checks, chart_store)
        result = CliRunner().invoke(
            cli,
            ["--root", str(root), "--color", "never", "render", *strict_args()],
            env={"GPU_GITOPS_CACHE_DIR": str(cache)},
            catch_exceptions=False,
        )
        return _outcome(result)

    folder, answer = made_once(tmp_path_factory, "strict-render", make)
    return folder / "proj", Outcome(**answer)


@pytest.fixture(scope="session")
def rendered(strict_render) -> Path:
    """``rendered/`` of ``strict_render``."""
    root, result = strict_render
    assert result.exit_code == 0, result.output
    return root / "rendered"


@pytest.fixture
def rendered_project(strict_render, tmp_path: Path) -> Path:
    """A copy of ``strict_render``'s project, its trees included (a plain render of the examples
    gives the same bytes: schema checks change none), for tests whose subject starts once the
    examples are rendered. Files are copied, not linked: a test may edit them in place."""
    source, result = strict_render
    assert result.exit_code == 0, result.output
    root = tmp_path / "proj"
    shutil.copytree(source, root)
    return root


@functools.cache  # asked at collection, by more than one module
def cilium_enabled(name: str) -> bool:
    """Whether example ``name`` runs Cilium, as its completed input says: a provider whose
    clusters come with their own CNI (GKE) defaults it off where the input is silent."""
    from generator.inputs.load import load_cluster
    from generator.paths import Project

    return bool(load_cluster(Project(REPO), name).spec["network"]["cilium"]["enabled"])


def record_position_reads(monkeypatch) -> list[str]:
    """The texts the reader reads again for a position from now on: for its event map
    (``read.locate``) or, by the compiled reader, for the paths asked (``find``)."""
    from generator.yamlio import read

    texts: list[str] = []
    locate, compiled = read.locate, read._compiled

    class Recording:
        """A compiled reader whose reads for a position are recorded."""

        def __init__(self, reader):
            self.reader = reader

        def load(self, text):
            return self.reader.load(text)

        def locate(self, text, node):
            return self.reader.locate(text, node)

        def find(self, text, *args):
            texts.append(text)
            return self.reader.find(text, *args)

    def recording(text, *args):
        texts.append(text)
        return locate(text, *args)

    monkeypatch.setattr(read, "locate", recording)
    monkeypatch.setattr(
        read, "_compiled", lambda *args: None if compiled(*args) is None else Recording(compiled(*args))
    )
    return texts
