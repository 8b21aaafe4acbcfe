"""The CI templates in docs/ci/: they parse, and every gpu-gitops command in them runs.

Each command is run as the CI system would (bash, the job's variables, a matrix value put in
for `${{ matrix.* }}`) on a freshly rendered copy of the examples, where it must succeed.
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
from conftest import CRD_SCHEMAS, REPO, write_config
from ruamel.yaml import YAML

from generator.cli import cli

BIN = Path(sys.executable).parent
GITHUB = REPO / "docs" / "ci" / "github-actions.yml"
GITLAB = REPO / "docs" / "ci" / "gitlab-ci.yml"
YAML_SAFE = YAML(typ="safe")
_MATRIX = re.compile(r"\$\{\{\s*matrix\.(\w+)\s*\}\}")


def _commands(script: str) -> list[str]:
    """Lines of a shell script that run gpu-gitops (continuation lines joined)."""
    joined = script.replace("\\\n", " ")
    return [line.strip() for line in joined.splitlines() if line.strip().startswith("gpu-gitops")]


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
        if not isinstance(job, dict) or "script" not in job:
            continue
        env = dict(pipeline.get("variables", {}))
        if "parallel" in job:
            env.update(CI_NODE_INDEX="1", CI_NODE_TOTAL=str(job["parallel"]))
        for line in job["script"]:
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
    done = subprocess.run([str(BIN / "gpu-gitops"), subcommand, "--help"], capture_output=True)
    return done.returncode == 0


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
    assert {"check", "lint"} <= subcommands


@pytest.fixture(scope="module")
def rendered_project(tmp_path_factory) -> Path:
    """One rendered copy of the examples, shared: the commands only read it (and write reports)."""
    root = tmp_path_factory.mktemp("ci") / "proj"
    for name in ("clusters", "libsonnet", "schemas"):
        shutil.copytree(REPO / name, root / name)
    if CRD_SCHEMAS.is_dir():  # as the templates say: schema locations come from the config file
        write_config(root)
    assert CliRunner().invoke(cli, ["--root", str(root), "-q", "render"]).exit_code == 0
    return root


@pytest.mark.parametrize("where, command, env", COMMANDS, ids=[f"{w}:{c}" for w, c, _e in COMMANDS])
def test_template_command_runs_clean(rendered_project, tmp_path, where, command, env):
    subcommand = _subcommand(command)
    if not _available(subcommand):
        pytest.skip(f"`gpu-gitops {subcommand}` is not in this build yet ({where})")
    if subcommand == "lint" and not CRD_SCHEMAS.is_dir():
        pytest.skip("lint needs the upstream CRD schemas (../shared) for the rendered custom resources")
    summary = tmp_path / "summary.md"
    full_env = dict(os.environ, **env, GITHUB_STEP_SUMMARY=str(summary))
    full_env["PATH"] = f"{BIN}{os.pathsep}{full_env.get('PATH', '')}"
    done = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", command],
        cwd=rendered_project,
        env=full_env,
        capture_output=True,
        encoding="utf-8",
        timeout=300,
    )
    assert done.returncode == 0, f"{where}: {command}\n{done.stdout}\n{done.stderr}"


def test_templates_install_the_version_the_package_reports():
    from generator import __version__

    for template in (GITHUB, GITLAB):
        pins = re.findall(r"gpu-gitops\.git@(\S+?)\"|gpu-gitops@(\S+?)\"", template.read_text(encoding="utf-8"))
        assert [a or b for a, b in pins] == [f"v{__version__}"], template.name
