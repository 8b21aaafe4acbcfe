"""The CI templates in docs/ci/: they parse, and every gpu-gitops command in them runs.

Each command is run as the CI system would (bash, the job's variables, a matrix value put in
for `${{ matrix.* }}`) on a freshly rendered copy of the examples, committed in a git repository
whose `origin/main` is its base, with the CRD schema set synced (from the local mirror of the
pinned CRDs: nothing is downloaded), where it must succeed.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import (
    CHARTS,
    CRD_SCHEMAS,
    REPO,
    SHARED,
    cache_with_charts,
    empty_cache,
    helm_missing,
    shared_missing,
    write_config,
)
from ruamel.yaml import YAML

from generator.cli import cli

BIN = Path(sys.executable).parent
CRD_MIRROR = SHARED / "upstream-crds"
GITHUB = REPO / "docs" / "ci" / "github-actions.yml"
GITLAB = REPO / "docs" / "ci" / "gitlab-ci.yml"
YAML_SAFE = YAML(typ="safe")
_MATRIX = re.compile(r"\$\{\{\s*matrix\.(\w+)\s*\}\}")


def _commands(script: str) -> list[str]:
    """The gpu-gitops commands of a shell script's lines (continuation lines joined; a command
    behind a guard, `[ -d X ] || gpu-gitops ...`, taken from where it starts)."""
    joined = script.replace("\\\n", " ")
    found = []
    for line in joined.splitlines():
        line = line.strip()
        if line.startswith("gpu-gitops "):
            found.append(line)
        elif "|| gpu-gitops " in line:
            found.append(line[line.index("|| gpu-gitops ") + 3 :])
    return found


def _github_commands() -> list[tuple[str, str, dict]]:
    workflow = YAML_SAFE.load(GITHUB.read_text(encoding="utf-8"))
    found = []
    for job_name, job in workflow["jobs"].items():
        matrix = job.get("strategy", {}).get("matrix", {})
        for step in job["steps"]:
            for command in _commands(step.get("run", "")):
                # the substitution runs within this iteration, so it sees this job's matrix
                command = _MATRIX.sub(lambda m: str(matrix[m.group(1)][0]), command)  # noqa: B023
                assert "${{" not in command, f"unexpanded expression in {command!r}"
                found.append((f"github:{job_name}", command, dict(workflow.get("env", {}))))
    return found


def _gitlab_commands() -> list[tuple[str, str, dict]]:
    pipeline = YAML_SAFE.load(GITLAB.read_text(encoding="utf-8"))
    found = []
    for job_name, job in pipeline.items():
        if not isinstance(job, dict) or not ({"script", "before_script"} & job.keys()):
            continue
        env = dict(pipeline.get("variables", {}))
        if "parallel" in job:
            env.update(CI_NODE_INDEX="1", CI_NODE_TOTAL=str(job["parallel"]))
        for line in job.get("before_script", []) + job.get("script", []):
            for command in _commands(line):
                found.append((f"gitlab:{job_name}", command, env))
    return found


COMMANDS = _github_commands() + _gitlab_commands()


_GLOBAL_WITH_VALUE = {"--root", "--config", "--color"}


def _subcommand(command: str) -> str:
    """``gpu-gitops --color never diff --jobs 2 | tee x`` → ``diff``."""
    words = shlex.split(command.split("|")[0].split(">")[0])[1:]
    i = 0
    while words[i].startswith("-"):
        i += 2 if words[i] in _GLOBAL_WITH_VALUE else 1
    return words[i]


def _available(subcommand: str) -> bool:
    """Whether this build has the command (asked of the root group in-process: the test then runs
    it through the installed entry point)."""
    import click

    return cli.get_command(click.Context(cli), subcommand) is not None


def test_templates_hold_the_expected_jobs():
    workflow = YAML_SAFE.load(GITHUB.read_text(encoding="utf-8"))
    uses = [s.get("uses", "") for job in workflow["jobs"].values() for s in job["steps"]]
    assert any(u.startswith("github/codeql-action/upload-sarif@") for u in uses)
    assert workflow["jobs"]["lint"]["permissions"]["security-events"] == "write"
    runs = "\n".join(s.get("run", "") for job in workflow["jobs"].values() for s in job["steps"])
    assert "$GITHUB_STEP_SUMMARY" in runs and "--format sarif" in runs
    pipeline = YAML_SAFE.load(GITLAB.read_text(encoding="utf-8"))
    junit = pipeline["gpu-gitops-lint"]["artifacts"]["reports"]["junit"]
    assert f"--output-file {junit}" in " ".join(pipeline["gpu-gitops-lint"]["script"])
    subcommands = {_subcommand(c) for _where, c, _env in COMMANDS}
    assert {"check", "lint", "diff", "schemas"} <= subcommands


def test_the_review_comments_and_gates_on_dangers():
    review = YAML_SAFE.load(GITHUB.read_text(encoding="utf-8"))["jobs"]["review"]
    assert review["permissions"]["pull-requests"] == "write"
    steps = review["steps"]
    assert steps[0]["with"]["fetch-depth"] == 0  # the base branch and the change's commits
    runs = "\n".join(s.get("run", "") for s in steps)
    assert "--format markdown > gpu-gitops-review.md" in runs and "gh pr comment" in runs
    assert 'gpu-gitops check --require-schemas --changed-only --base "origin/$GITHUB_BASE_REF"' in runs
    gitlab = YAML_SAFE.load(GITLAB.read_text(encoding="utf-8"))["gpu-gitops-review"]
    script = "\n".join(gitlab["script"])
    assert "--format markdown > gpu-gitops-review.md" in script and "check --require-schemas" in script


def test_every_job_syncs_the_schema_set_once_per_pin_and_requires_schemas():
    workflow = YAML_SAFE.load(GITHUB.read_text(encoding="utf-8"))
    for name, job in workflow["jobs"].items():
        steps = job["steps"]
        cache = next(s for s in steps if s.get("uses", "").startswith("actions/cache@"))
        sync = next(s for s in steps if "gpu-gitops schemas sync" in s.get("run", ""))
        assert "GPU_GITOPS_REF" in cache["with"]["key"], name
        assert sync["if"] == f"steps.{cache['id']}.outputs.cache-hit != 'true'", name
        assert cache["with"]["path"] in workflow["env"]["GPU_GITOPS_CACHE_DIR"] + "/crd-schemas", name
        for step in steps:
            for command in _commands(step.get("run", "")):
                if _subcommand(command) in ("check", "lint"):
                    assert "--require-schemas" in command, (name, command)
    pipeline = YAML_SAFE.load(GITLAB.read_text(encoding="utf-8"))
    assert any("gpu-gitops schemas sync" in line for line in pipeline["default"]["before_script"])
    caches = pipeline["default"]["cache"]
    assert caches[0]["paths"] == [".gpu-gitops-cache/crd-schemas"]
    # the chart packages are cached per chart lock (they change with it, not with the tool)
    assert caches[1] == {"key": {"files": ["clusters/charts.lock"]}, "paths": [".gpu-gitops-cache/charts"]}
    for _where, command, _env in _gitlab_commands():
        if _subcommand(command) in ("check", "lint"):
            assert "--require-schemas" in command, command


@pytest.fixture(scope="module")
def rendered_project(tmp_path_factory) -> Path:
    """One rendered copy of the examples, committed, with ``origin/main`` at that commit (the base
    a pull request is reviewed against), shared: the commands only read it (and write reports)."""
    root = tmp_path_factory.mktemp("ci") / "proj"
    for name in ("clusters", "libsonnet", "schemas"):
        shutil.copytree(REPO / name, root / name)
    if CRD_SCHEMAS.is_dir():  # as the templates say: schema locations come from the config file
        write_config(root)
    assert CliRunner().invoke(cli, ["--root", str(root), "-q", "render"]).exit_code == 0
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "fleet"]):
        subprocess.run([*git, *args], cwd=root, check=True)
    subprocess.run(["git", "update-ref", "refs/remotes/origin/main", "HEAD"], cwd=root, check=True)
    (root / ".git" / "info" / "exclude").write_text(
        "*.sarif\n*.xml\n*.md\n", encoding="utf-8"
    )  # the reports the jobs write
    return root


@pytest.fixture(scope="module")
def ci_cache(tmp_path_factory, mirror_sync) -> Path:
    """A cache folder holding the synced CRD schema set, as the templates' cached sync leaves it."""
    copy = tmp_path_factory.mktemp("ci-cache") / "cache"
    shutil.copytree(mirror_sync[0], copy, symlinks=True)
    return copy


def _needs_schemas(command: str) -> bool:
    return "--require-schemas" in command or command.startswith("gpu-gitops schemas sync")


def _sample_mirror(folder: Path) -> Path:
    """A mirror holding one pinned CRD file of ../shared/upstream-crds, the smallest (linked)."""
    import hashlib

    from generator.lint.schemasync import load_sources

    pinned = {s.sha256 for s in load_sources().sources}
    found = [p for p in CRD_MIRROR.rglob("*") if p.is_file() and p.suffix in (".yaml", ".yml", ".json")]
    smallest = min(
        (p for p in found if hashlib.sha256(p.read_bytes()).hexdigest() in pinned), key=lambda p: p.stat().st_size
    )
    folder.mkdir()
    (folder / smallest.name).symlink_to(smallest)
    return folder


# The command lines (with the template's environment) that ran clean in this module: a job that
# repeats another's command line word for word (the schema sync of every job, on both
# platforms) runs it once; each module runs on one worker (`--dist loadfile`).
_CLEAN: set[tuple[str, tuple]] = set()


@pytest.mark.slow
@pytest.mark.parametrize("where, command, env", COMMANDS, ids=[f"{w}:{c}" for w, c, _e in COMMANDS])
def test_template_command_runs_clean(rendered_project, tmp_path, request, where, command, env):
    ran = (command, tuple(sorted((k, v) for k, v in env.items() if k != "GPU_GITOPS_CACHE_DIR")))  # the test's own
    if ran in _CLEAN:
        return
    subcommand = _subcommand(command)
    if not _available(subcommand):
        pytest.skip(f"`gpu-gitops {subcommand}` is not in this build yet ({where})")
    if subcommand == "lint" and not CRD_SCHEMAS.is_dir():
        pytest.skip(
            shared_missing(CRD_SCHEMAS, "the upstream CRD schemas lint needs for the rendered custom resources")
        )
    cache = request.getfixturevalue("ci_cache") if _needs_schemas(command) else cache_with_charts(tmp_path / "cache")
    if command.startswith("gpu-gitops schemas sync"):
        # nothing reaches the network in tests: pinned files from a local mirror. The session's
        # sync (`mirror_sync`: the same command, in-process) installs the whole mirror and must
        # have succeeded; this process runs the template's command line through the real entry
        # point on a sample mirror of one pinned file (verified, converted, installed), so the
        # conversion of every pinned CRD is not paid twice per test run
        synced = request.getfixturevalue("mirror_sync")[1]
        assert synced.exit_code == 0, synced.output
        command += f" --from {shlex.quote(str(_sample_mirror(tmp_path / 'mirror')))}"
        # a cache of its own, with the session's memo of schema documents that passed their
        # metaschema check (only passes are kept: every refusal is still checked)
        cache = empty_cache(
            request.getfixturevalue("tmp_path_factory"), "sync", request.getfixturevalue("schema_checks")
        )
    if command.startswith("gpu-gitops charts pull"):
        if helm_missing():
            pytest.skip(helm_missing())
        command += f" --from {shlex.quote(str(CHARTS))}"  # the locked packages, from the local folder
        # it writes clusters/charts.lock: in a copy, so the other commands see the shared project as it was
        rendered_project = Path(shutil.copytree(rendered_project, tmp_path / "proj", symlinks=True))
    summary = tmp_path / "summary.md"
    full_env = dict(os.environ, **env, GITHUB_STEP_SUMMARY=str(summary))
    full_env.update(GPU_GITOPS_CACHE_DIR=str(cache), GITHUB_BASE_REF="main", CI_MERGE_REQUEST_TARGET_BRANCH_NAME="main")
    full_env["PATH"] = f"{BIN}{os.pathsep}{full_env.get('PATH', '')}"
    done = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", command],
        cwd=rendered_project,
        env=full_env,
        capture_output=True,
        encoding="utf-8",
    )
    assert done.returncode == 0, f"{where}: {command}\n{done.stdout}\n{done.stderr}"
    _CLEAN.add(ran)


_SHA = re.compile(r"^[0-9a-f]{40}$")


def test_templates_pin_a_commit_until_the_first_release():
    """A tag that does not exist yet cannot be installed: the templates pin a full commit SHA (and
    say so) until a release tag exists, then that tag."""
    from generator import __version__

    tagged = subprocess.run(
        ["git", "tag", "--list", f"v{__version__}"], cwd=REPO, capture_output=True, encoding="utf-8"
    )
    for template in (GITHUB, GITLAB):
        text = template.read_text(encoding="utf-8")
        document = YAML_SAFE.load(text)
        pin = (document.get("env") or document.get("variables"))["GPU_GITOPS_REF"]
        assert _SHA.match(pin) or (pin == f"v{__version__}" and tagged.stdout.strip()), (template.name, pin)
        assert "A commit until the\n  # first release" in text or "A commit until the first release" in text, (
            template.name
        )
        assert text.count("@$GPU_GITOPS_REF") >= 1 and "@v0.1.0" not in text, template.name
