"""The published pre-commit hooks, run by pre-commit itself on a throw-away git repository.

The hooks are taken from .pre-commit-hooks.yaml and run as `repo: local` with
`language: system` (the gpu-gitops of this virtualenv), so pre-commit needs no network.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CRD_SCHEMAS, REPO, shared_missing, write_config
from ruamel.yaml import YAML

YAML_SAFE = YAML(typ="safe")
HOOKS = {h["id"]: h for h in YAML_SAFE.load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))}
BIN = Path(sys.executable).parent
GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]

pytestmark = pytest.mark.skipif(
    shutil.which("git") is None or shutil.which("pre-commit", path=str(BIN)) is None,
    reason="git or pre-commit not installed",
)


def _lint_exists() -> bool:
    done = subprocess.run([str(BIN / "gpu-gitops"), "lint", "--help"], capture_output=True)
    return done.returncode == 0


def _config(hook_ids: list[str]) -> str:
    hooks = []
    for hook_id in hook_ids:
        hook = dict(HOOKS[hook_id], language="system")
        hooks.append(hook)
    stream = __import__("io").StringIO()
    YAML().dump({"repos": [{"repo": "local", "hooks": hooks}]}, stream)
    return stream.getvalue()


def _env(tmp_path: Path) -> dict:
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env["PRE_COMMIT_HOME"] = str(tmp_path / "pre-commit-home")
    env.pop("CI", None)
    return env


def _git_repo(project: Path, hook_ids: list[str]) -> None:
    """Commit ``project`` (rendered: ``rendered_project``) with a pre-commit config of ``hook_ids``."""
    (project / ".pre-commit-config.yaml").write_text(_config(hook_ids), encoding="utf-8")
    subprocess.run([*GIT, "init", "-q", "-b", "main"], cwd=project, check=True)
    subprocess.run([*GIT, "add", "-A"], cwd=project, check=True)
    subprocess.run([*GIT, "commit", "-qm", "init"], cwd=project, check=True)


def _pre_commit(project: Path, tmp_path: Path, *files: str) -> subprocess.CompletedProcess:
    """``pre-commit run`` on every file, or on ``files`` (as a commit of only those runs it)."""
    chosen = ["--files", *files] if files else ["--all-files"]
    return subprocess.run(
        [str(BIN / "pre-commit"), "run", *chosen, "--color", "never"],
        cwd=project,
        env=_env(tmp_path),
        capture_output=True,
        encoding="utf-8",
    )


def test_hooks_file_declares_the_two_hooks():
    check, lint = HOOKS["gpu-gitops-check"], HOOKS["gpu-gitops-lint"]
    assert check["entry"] == "gpu-gitops check --staged" and check["pass_filenames"] is False
    for folder in ("clusters", "libsonnet", "schemas", "rendered"):
        assert folder in check["files"]
    assert lint["entry"] == "gpu-gitops lint --context ." and lint["types"] == ["yaml"]


def _local_hooks() -> dict:
    config = YAML_SAFE.load((REPO / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    return {h["id"]: h for repo in config["repos"] for h in repo["hooks"]}


def test_repository_config_uses_the_published_hooks():
    local = _local_hooks()
    for hook_id, published in HOOKS.items():
        ours = local[hook_id]
        for key in ("entry", "files", "types", "pass_filenames"):
            assert ours.get(key) == published.get(key), (hook_id, key)
    # the repository's lint hook skips what the published one skips, plus its rule fixtures and
    # the application manifests of the cluster contract tests
    ours, published = local["gpu-gitops-lint"]["exclude"], HOOKS["gpu-gitops-lint"]["exclude"]
    assert ours == published.replace("^(", "^(tests/(fixtures|lint/apps[^/]*)/.*|", 1)


def test_check_hooks_run_when_the_config_file_changes():
    for hooks in (HOOKS, _local_hooks()):
        files = re.compile(hooks["gpu-gitops-check"]["files"])
        assert files.search(".gpu-gitops.yaml") and files.search("rendered/a/kustomization.yaml")
        assert not files.search("docs/.gpu-gitops.yaml.md")


def test_lint_passes_on_every_file_the_repository_hook_selects(run):
    """What `pre-commit run gpu-gitops-lint --all-files` lints in this repository: all clean."""
    identify = pytest.importorskip("identify.identify")
    hook = _local_hooks()["gpu-gitops-lint"]
    listed = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, encoding="utf-8", check=True).stdout
    exclude = re.compile(hook["exclude"])
    selected = [
        f
        for f in listed.splitlines()
        if (REPO / f).is_file()
        and not exclude.search(f)
        and set(hook["types"]) <= identify.tags_from_path(str(REPO / f))
    ]
    assert any(f.startswith("rendered/") for f in selected)
    result = run(REPO, "lint", *selected)
    assert result.exit_code == 0, result.stdout


@pytest.mark.slow
def test_check_hook_fails_on_a_stale_render_and_passes_when_clean(rendered_project, tmp_path):
    project = rendered_project
    _git_repo(project, ["gpu-gitops-check"])
    clean = _pre_commit(project, tmp_path)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "Passed" in clean.stdout

    path = project / "clusters" / "aks-h100-training" / "cluster.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("branch: main", "branch: release"), encoding="utf-8")
    subprocess.run([*GIT, "add", "-A"], cwd=project, check=True)
    stale = _pre_commit(project, tmp_path)
    assert stale.returncode == 1
    assert "Failed" in stale.stdout
    assert "rendered/aks-h100-training/gitops/" in stale.stdout and "stale" in stale.stdout


@pytest.mark.slow
def test_check_hook_fails_on_a_new_cluster_committed_without_its_tree(rendered_project, run, tmp_path):
    project = rendered_project
    _git_repo(project, ["gpu-gitops-check"])
    shutil.copytree(project / "clusters" / "aks-h100-training", project / "clusters" / "new-one")
    path = project / "clusters" / "new-one" / "cluster.yaml"
    path.write_text(
        path.read_text(encoding="utf-8").replace("name: aks-h100-training", "name: new-one"), encoding="utf-8"
    )
    assert run(project, "-q", "render", "new-one").exit_code == 0  # on disk, but not added
    subprocess.run([*GIT, "add", "clusters"], cwd=project, check=True)
    failed = _pre_commit(project, tmp_path)
    assert failed.returncode == 1
    assert "rendered/new-one: stale: missing" in failed.stdout
    subprocess.run([*GIT, "add", "rendered"], cwd=project, check=True)
    passed = _pre_commit(project, tmp_path)
    assert passed.returncode == 0, passed.stdout


@pytest.mark.slow
def test_lint_hook_fails_on_a_bad_manifest_and_passes_when_clean(rendered_project, tmp_path):
    project = rendered_project
    if not _lint_exists():
        pytest.skip("`gpu-gitops lint` is not in this build yet; the lint hook cannot run")
    if not CRD_SCHEMAS.is_dir():
        pytest.skip(
            shared_missing(CRD_SCHEMAS, "the upstream CRD schemas lint needs for the rendered custom resources")
        )
    write_config(project)
    _git_repo(project, ["gpu-gitops-lint"])
    clean = _pre_commit(project, tmp_path)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    bad = project / "apps" / "train.yaml"
    bad.parent.mkdir()
    bad.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: train, namespace: gpu-training}\n"
        "spec:\n  containers:\n  - name: t\n    image: trainer:1\n"
        "    resources: {requests: {nvidia.com/gpu: 1}}\n",
        encoding="utf-8",
    )
    subprocess.run([*GIT, "add", "-A"], cwd=project, check=True)
    failed = _pre_commit(project, tmp_path, "apps/train.yaml")  # the clean rest was linted above
    assert failed.returncode == 1
    assert "apps/train.yaml" in failed.stdout


PIN = re.compile(r"^[\s#]*rev:\s*(\S+)", re.M)  # in YAML, and in the hooks file's comment


def _pins() -> dict[str, list[str]]:
    docs = {
        path: PIN.findall((REPO / path).read_text(encoding="utf-8"))
        for path in ("README.md", "docs/lint.md", "docs/releasing.md", ".pre-commit-hooks.yaml")
    }
    return docs


def test_every_documented_rev_is_a_commit_or_the_version_the_package_reports():
    """Before the first tag exists a tag pin cannot work, so docs may pin a full commit SHA;
    a tag pin names the version the package reports."""
    from generator import __version__

    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(rf'^version = "{re.escape(__version__)}"$', pyproject, re.M), "pyproject and __version__ differ"
    for path, pins in _pins().items():
        assert pins, f"{path} documents no rev: pin"
        tags = {p for p in pins if not re.fullmatch(r"[0-9a-f]{40}", p)}
        assert tags <= {f"v{__version__}"}, (path, pins)


def test_the_user_facing_pins_work_before_the_first_release():
    for path in ("README.md", "docs/lint.md", ".pre-commit-hooks.yaml"):
        assert all(re.fullmatch(r"[0-9a-f]{40}", p) for p in _pins()[path]), path
        assert "until the first release" in (REPO / path).read_text(encoding="utf-8"), path


def test_the_release_tag_where_present_is_on_a_commit_of_that_version():
    from generator import __version__

    tag = f"v{__version__}"
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("not a git checkout")
    listed = subprocess.run(
        ["git", "tag", "--list", tag], cwd=REPO, capture_output=True, encoding="utf-8"
    ).stdout.split()
    if tag not in listed:
        pytest.skip(f"this clone has no tag {tag} (created when the release is merged; docs/releasing.md)")
    tagged = subprocess.run(
        ["git", "show", f"{tag}:pyproject.toml"], cwd=REPO, capture_output=True, encoding="utf-8", check=True
    ).stdout
    assert f'version = "{__version__}"' in tagged


def test_repository_hooks_run_the_gates_ci_runs():
    """Each gate .ci/run applies before the tests has a local hook, so a commit meets it first."""
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    entries = [h["entry"] for h in _local_hooks().values()]
    for gate, hook in (
        ("ruff check", "ruff check"),
        ("ruff format --check", "ruff format"),
        ("mypy", "mypy"),
        ("jsonnetfmt --test", "jsonnetfmt --test"),
    ):
        assert gate in ci, gate
        assert any(entry.startswith(hook) for entry in entries), hook
