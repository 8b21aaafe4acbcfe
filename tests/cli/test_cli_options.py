"""Output options anywhere on the line, and the project root found upward from the working folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.cli import cli

PROJECT_COMMANDS = [["render"], ["check"], ["diff"], ["list"], ["docs", "--check"], ["lint"]]


def invoke(*args: str):
    """The CLI as a user types it: no --root, the working folder decides."""
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_quiet_after_the_command_silences_it(rendered_project, run):
    project = rendered_project  # rendered: the examples are up to date
    loud = run(project, "render", "aks-h100-training")
    assert "aks-h100-training: up to date" in loud.stdout
    quiet = run(project, "render", "aks-h100-training", "-q")
    assert quiet.exit_code == 0 and quiet.stdout == ""
    assert run(project, "render", "aks-h100-training", "--quiet").stdout == ""


def test_verbose_after_the_command_lists_each_unchecked_kind(project, run):
    summary = run(project, "render", "eks-mi300x-inference")
    assert "no schema found, not schema-checked:" in summary.stderr
    verbose = run(project, "render", "aks-h100-training", "-v")  # not rendered before: no up-to-date shortcut
    assert verbose.exit_code == 0
    assert "no schema found, not schema-checked:" not in verbose.stderr
    assert verbose.stderr.count("warning:") > 1


def test_color_after_the_command_wins_over_the_group_default(project):
    args = ["--root", str(project), "render", "no-such-cluster"]
    plain = CliRunner().invoke(cli, args)
    coloured = CliRunner().invoke(cli, [*args, "--color", "always"])
    assert plain.exit_code == coloured.exit_code == 2
    assert "\x1b[" not in plain.stderr and "\x1b[" in coloured.stderr
    # after the command, the last word counts: --color never undoes the group's always
    undone = CliRunner().invoke(cli, ["--color", "always", *args, "--color", "never"])
    assert "\x1b[" not in undone.stderr


def test_subgroup_commands_take_the_output_options_too():
    assert "--quiet" in invoke("schemas", "import", "--help").stdout


def test_commands_run_from_a_folder_inside_the_project(project, monkeypatch):
    monkeypatch.chdir(project / "clusters" / "aks-h100-training")
    listed = invoke("list")
    assert listed.exit_code == 0, listed.output
    assert "aks-h100-training\tclusters/aks-h100-training/cluster.yaml" in listed.stdout
    assert invoke("render", "-q", "aks-h100-training").exit_code == 0
    assert (project / "rendered" / "aks-h100-training" / "kustomization.yaml").is_file()
    assert invoke("check", "-q", "aks-h100-training").exit_code == 0


def test_a_config_file_alone_marks_the_root(tmp_path, monkeypatch):
    (tmp_path / ".gpu-gitops.yaml").write_text("lint: {}\n", encoding="utf-8")
    (tmp_path / "deep" / "er").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "deep" / "er")
    created = invoke("init", "first")
    assert created.exit_code == 0, created.output
    assert (tmp_path / "clusters" / "first" / "cluster.yaml").is_file()
    assert not (tmp_path / "deep" / "er" / "clusters").exists()


@pytest.mark.parametrize("args", PROJECT_COMMANDS, ids=" ".join)
def test_outside_a_project_every_command_says_so_the_same_way(tmp_path, monkeypatch, args):
    monkeypatch.chdir(tmp_path)
    result = invoke(*args)
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: not inside a gpu-gitops project: neither {Path.cwd().resolve()} nor a folder above it "
        "holds clusters/ or .gpu-gitops.yaml\n"
        "  hint: start one here with `gpu-gitops init NAME`, or give its folder with --root DIR\n"
    )


@pytest.mark.parametrize("args", PROJECT_COMMANDS, ids=" ".join)
def test_a_root_that_is_not_a_project_is_refused_the_same_way(tmp_path, args):
    result = invoke("--root", str(tmp_path), *args)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: not a gpu-gitops project: {tmp_path.resolve()} holds neither")
    assert "hint: start one here with `gpu-gitops init NAME`, or give its folder with --root DIR" in result.stderr


def test_init_outside_a_project_starts_one_in_the_working_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert invoke("init", "first", "-q").exit_code == 0
    assert (tmp_path / "clusters" / "first" / "cluster.yaml").is_file()
    assert invoke("list").stdout.startswith("first\t")


def test_render_names_lints_rule_for_a_kind_without_a_schema(project, run):
    """render -v lists each object without a schema as lint does, under the rule that
    `gpu-gitops explain K8S004` explains; --require-schemas makes it that rule's error."""
    verbose = run(project, "-v", "render", "aks-h100-training")
    unchecked = [line for line in verbose.stderr.splitlines() if "not schema-checked" in line]
    assert unchecked and all(line.endswith(": not schema-checked [K8S004]") for line in unchecked), unchecked
    strict = run(project, "render", "aks-h100-training", "--require-schemas")
    assert strict.exit_code == 2
    assert ": not schema-checked (--require-schemas) [K8S004]\n" in strict.stderr


def test_a_warnings_hint_is_coloured_as_an_errors_is(capsys):
    from generator.cli import Ui
    from generator.diagnostic import Diagnostic, Location

    ui = Ui(color="always")
    for severity in ("error", "warning"):
        ui.diagnostic(Diagnostic(Location("c.yaml", 1, 1), severity, "m", hint="h"))
    hints = [line for line in capsys.readouterr().err.splitlines() if "hint: h" in line]
    assert len(hints) == 2 and all(line.startswith("\x1b[36m") for line in hints), hints
