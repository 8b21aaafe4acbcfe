"""The plain ``lint`` command line, read without click (``cli.plainlint``), is read as click reads
it; every other command line is left to click."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from generator.cli import cli, main, plainlint


def _through_click(monkeypatch, argv: list[str]) -> Any:
    """The ``LintArgs`` click's lint command passes to the run."""
    seen = []
    monkeypatch.setattr("generator.cli.lint.lint", lambda args: seen.append(args) or 0)
    with pytest.raises(SystemExit) as done:
        cli.main(argv, prog_name="gpu-gitops")
    assert done.value.code == 0, argv
    return seen[0]


def _plain(monkeypatch, argv: list[str]) -> Any:
    """The ``LintArgs`` ``plainlint`` passes to the same run."""
    seen = []
    monkeypatch.setattr("generator.cli.lintrun.lint", lambda args: seen.append(args) or 0)
    parsed = plainlint.parse(argv)
    assert parsed is not None, argv
    assert plainlint.run(*parsed) == 0
    return seen[0]


def _fields(args: Any) -> dict:
    ctx = args.ctx
    shown = {name: getattr(args, name) for name in args._fields if name != "ctx"}
    ui = (ctx.ui.quiet, ctx.ui.verbose, ctx.ui.color)
    return {**shown, "ctx": (ctx.given_root, ctx.root, ctx.config_path, ui)}


def _readable_forms(tmp_path) -> list[list[str]]:
    (tmp_path / "config.yaml").write_text("{}\n", encoding="utf-8")
    root, config, absent = str(tmp_path), str(tmp_path / "config.yaml"), str(tmp_path / "absent")
    return [
        ["lint"],
        ["lint", "a.yaml", "folder"],
        ["--root", root, "lint", "--format", "json", "x"],
        ["--root", absent, "lint", "x"],
        ["-q", "-v", "--color", "never", "lint", "-o", "sarif", "-j", "3", "--no-cache", "p"],
        ["--color", "always", "lint", "p", "--format", "junit", "q", "--jobs", "007"],
        ["--config", config, "-v", "lint", "--no-cache", "lint"],
        ["--config", absent, "--root", root, "lint", "-o", "github"],
    ]


def test_a_plain_lint_is_read_as_click_reads_it(monkeypatch, tmp_path):
    for argv in _readable_forms(tmp_path):
        assert _fields(_plain(monkeypatch, argv)) == _fields(_through_click(monkeypatch, argv)), argv


def test_every_other_command_line_is_left_to_click(monkeypatch, tmp_path):
    a_file, a_folder = tmp_path / "f.yaml", str(tmp_path)
    a_file.write_text("{}\n", encoding="utf-8")
    left = [
        ["render"],
        ["rules", "lint"],
        ["lint", "--format=json", "x"],
        ["lint", "-"],
        ["lint", ""],
        ["lint", "--", "x"],
        ["lint", "--help"],
        ["lint", "-q", "x"],  # the output options after the command's name
        ["lint", "--cluster", "c", "x"],
        ["lint", "--format", "JSON"],
        ["lint", "--format", "json", "--format", "text"],
        ["lint", "-o", "json", "--format", "json"],
        ["lint", "-j", "0"],
        ["lint", "-j", "+3"],
        ["lint", "-j", " 3"],
        ["lint", "-j", "3_0"],
        ["lint", "-j", "\N{SUPERSCRIPT THREE}"],
        ["lint", "-j"],
        ["lint", "--format", "-x"],
        ["-qv", "lint"],
        ["--root", str(a_file), "lint"],
        ["--root", "-x", "lint"],
        ["--config", a_folder, "lint"],
        ["--color", "bright", "lint"],
        ["-q", "-q", "lint"],
        ["--root", a_folder],
    ]
    assert [argv for argv in left if plainlint.parse(argv) is not None] == []
    monkeypatch.setenv("_GPU_GITOPS_COMPLETE", "bash_complete")
    assert plainlint.parse(["lint"]) is None
    monkeypatch.delenv("_GPU_GITOPS_COMPLETE")
    monkeypatch.setenv("GPU_GITOPS_YAML_BACKEND", "events")
    assert plainlint.parse(["lint"]) is None


def test_an_interrupted_plain_lint_ends_as_click_ends_it(monkeypatch, capsys, tmp_path):
    """Ctrl-C: click's blank line and ``Aborted!`` on standard error, exit code 1, both ways."""

    def interrupted(_args: Any) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr("generator.cli.lint.lint", interrupted)
    monkeypatch.setattr("generator.cli.lintrun.lint", interrupted)
    argv = ["--root", str(tmp_path), "lint", "x"]
    with pytest.raises(SystemExit) as clicks:
        cli.main(argv, prog_name="gpu-gitops")
    by_click = capsys.readouterr()
    monkeypatch.setattr(sys, "argv", ["gpu-gitops", *argv])
    with pytest.raises(SystemExit) as plain:
        main(in_process=True)
    assert capsys.readouterr() == by_click and by_click.err.endswith("Aborted!\n")
    assert plain.value.code == clicks.value.code == 1
