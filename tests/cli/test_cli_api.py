"""The commands as Python calls: an args dataclass in, the command line's exit code out."""

from __future__ import annotations

import json
from pathlib import Path

from generator.cli import Context, Ui
from generator.cli.fleet import CheckArgs, DiffArgs, RenderArgs, check, diff, render
from generator.cli.lint import ExplainArgs, LintArgs, explain, lint
from generator.cli.project import ListArgs, list_clusters

CLUSTER = "aks-h100-training"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def _ctx(root: Path) -> Context:
    return Context(root, Ui(color="never"))


def test_render_then_check_then_diff(project, capsys):
    ctx = _ctx(project)
    assert check(CheckArgs(ctx, clusters=(CLUSTER,))) == 1  # nothing rendered yet: stale
    assert "rendered/ is out of date" in capsys.readouterr().err
    assert render(RenderArgs(ctx, clusters=(CLUSTER,))) == 0
    assert (project / "rendered" / CLUSTER / ".gpu-gitops.sum").is_file()
    assert f"{CLUSTER}: " in capsys.readouterr().out
    assert check(CheckArgs(ctx, clusters=(CLUSTER,))) == 0
    assert diff(DiffArgs(ctx, clusters=(CLUSTER,))) == 0
    assert capsys.readouterr().out.endswith("no changes: rendered/ matches the inputs of 1 cluster(s)\n")


def test_an_input_error_is_printed_and_exit_code_2(project, capsys):
    path = project / "clusters" / CLUSTER / "cluster.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("provider: aks", "provider: moon"), encoding="utf-8")
    assert render(RenderArgs(_ctx(project), clusters=(CLUSTER,))) == 2
    assert f"clusters/{CLUSTER}/cluster.yaml:" in capsys.readouterr().err
    assert not (project / "rendered" / CLUSTER).exists()


def test_outside_a_project_the_call_says_so_as_the_command_does(tmp_path, capsys):
    assert list_clusters(ListArgs(_ctx(tmp_path))) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: not a gpu-gitops project: {tmp_path.resolve()} holds neither")
    assert "\n  hint: start one here with `gpu-gitops init NAME`" in err


def test_list_and_quiet_output(project, capsys):
    assert list_clusters(ListArgs(_ctx(project), as_json=True)) == 0
    assert CLUSTER in [row["name"] for row in json.loads(capsys.readouterr().out)]
    quiet = Context(project, Ui(quiet=True, color="never"))
    assert render(RenderArgs(quiet, clusters=(CLUSTER,))) == 0
    assert capsys.readouterr().out == ""


def test_lint_returns_1_on_findings_and_writes_the_report(tmp_path, capsys):
    report = tmp_path / "lint.json"
    args = LintArgs(_ctx(tmp_path), paths=(str(FIXTURES / "GPU002" / "fail"),), fmt="json", output_file=report)
    assert lint(args) == 1
    assert "GPU002" in {f["rule"] for f in json.loads(report.read_text(encoding="utf-8"))["findings"]}
    assert explain(ExplainArgs(_ctx(tmp_path), "GPU002")) == 0
    assert explain(ExplainArgs(_ctx(tmp_path), "NOPE001")) == 2
    assert "error: unknown rule 'NOPE001'\n  hint: `gpu-gitops rules` lists them\n" in capsys.readouterr().err


def test_the_documented_example_runs(project, monkeypatch):
    """docs/api.md's example, run in a folder holding the fleet as my-fleet/."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text(encoding="utf-8")
    example = text.split("```python\n", 1)[1].split("```", 1)[0]
    assert 'Path("my-fleet")' in example
    monkeypatch.chdir(project.parent)
    project.rename(project.parent / "my-fleet")
    exec(compile(example, "docs/api.md", "exec"), {})
    assert (project.parent / "my-fleet" / "rendered" / CLUSTER).is_dir()


def test_a_long_text_is_written_a_piece_at_a_time(monkeypatch):
    """The stream encodes each write into a new bytes object: a megabyte report written at once
    made one of a megabyte, in memory the process had not touched."""
    import io

    from generator.cli import common

    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="utf-8", errors="strict")
    sizes: list[int] = []
    real = stream.write
    monkeypatch.setattr(stream, "write", lambda text: sizes.append(len(text)) or real(text))
    monkeypatch.setattr(common.sys, "stdout", stream)
    text = "".join(f"line {i}\n" for i in range(40_000))
    common.echo(text)
    assert raw.getvalue().decode() == text + "\n"
    assert max(sizes) == common.WRITTEN_PIECE and len(sizes) == -(-(len(text) + 1) // common.WRITTEN_PIECE)
