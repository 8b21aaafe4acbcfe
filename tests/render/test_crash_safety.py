"""A render killed (SIGKILL) at any write step leaves the old tree or the new one, never a
mixed or missing one: for readers (check, diff) right away, and after the next render."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

from generator.tree import write as tree

CLUSTER = "aks-h100-training"

# Runs a write in a child that kills itself at the chosen step (``tree._step``); argv: root,
# cluster, step, n-th time the step is reached, "1" to force the two-rename fallback, and the
# tree to write: "render" renders it (the whole command), a folder replays that folder's files
# through the write render makes (``pipeline.write``: the project's write lock, then
# ``write_tree``), without evaluating the cluster again.
_KILL_AT = """
import os, signal, sys
from pathlib import Path
from generator.tree import write as tree
root, cluster, step, nth, fallback, source = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5] == "1", sys.argv[6]
seen = 0
def kill_at(name):
    global seen
    if name == step:
        seen += 1
        if seen == nth:
            os.kill(os.getpid(), signal.SIGKILL)
tree._step = kill_at
if fallback:
    tree._exchange = lambda a, b: False
if source == "render":
    from generator import cli
    sys.argv = ["gpu-gitops", "--root", root, "--quiet", "render", cluster]
    cli.main()
else:
    from generator.tree import lock
    rendered = Path(root) / "rendered"
    files = tree.read_tree(Path(source))
    with lock.project_lock(rendered, "rendered"):
        tree.write_tree(rendered, cluster, files, f"rendered/{cluster}")
"""

STEPS = [  # (step, n-th time, two-rename fallback, the whole render or a replay of its write)
    ("file", 1, False, "replay"),
    ("file", 40, False, "render"),
    ("staged", 1, False, "replay"),
    ("swapped", 1, False, "replay"),
    ("file", 1, True, "replay"),
    ("staged", 1, True, "replay"),
    ("moved-aside", 1, True, "replay"),
    ("swapped", 1, True, "replay"),
]


@pytest.fixture(scope="module")
def before_and_after(tmp_path_factory):
    """A project rendered from the old input whose input was then changed, and both trees."""
    from click.testing import CliRunner

    from generator.cli import cli

    root = tmp_path_factory.mktemp("crash") / "proj"
    for name in ("clusters", "libsonnet", "schemas"):
        shutil.copytree(REPO / name, root / name)
    runner = CliRunner()
    assert runner.invoke(cli, ["--root", str(root), "render", CLUSTER]).exit_code == 0
    old = tree.read_tree(root / "rendered" / CLUSTER)
    path = root / "clusters" / CLUSTER / "cluster.yaml"
    path.write_text(
        path.read_text(encoding="utf-8").replace("quota: {gpus: 24}", "quota: {gpus: 20}"), encoding="utf-8"
    )
    twin = root.parent / "twin"
    shutil.copytree(root, twin)
    assert runner.invoke(cli, ["--root", str(twin), "render", CLUSTER]).exit_code == 0
    new = tree.read_tree(twin / "rendered" / CLUSTER)
    assert old != new
    return root, old, new, twin / "rendered" / CLUSTER


@pytest.mark.parametrize(("step", "nth", "fallback", "how"), STEPS)
def test_a_kill_at_each_write_step_leaves_the_old_or_the_new_tree(
    before_and_after, tmp_path, run, step, nth, fallback, how
):
    """Each step is reached by replaying render's write of the new tree (the same lock and
    ``write_tree`` call, on the same files) in a process killed there; one whole render, killed
    mid-write, shows that render's writes are these."""
    source, old, new, new_tree = before_and_after
    root = tmp_path / "proj"
    shutil.copytree(source, root)
    tree_arg = "render" if how == "render" else str(new_tree)
    killed = subprocess.run(
        [sys.executable, "-c", _KILL_AT, str(root), CLUSTER, step, str(nth), "1" if fallback else "0", tree_arg],
        cwd=REPO,
        capture_output=True,
        encoding="utf-8",
        check=False,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr  # the step was reached

    rendered = root / "rendered"
    seen = tree.read_tree(tree.current(rendered, CLUSTER))
    assert seen in (old, new)
    check = run(root, "check", CLUSTER)
    assert "missing" not in check.stderr and "Traceback" not in check.output
    assert check.exit_code == (0 if seen == new else 1), check.output

    again = run(root, "render", CLUSTER)
    assert again.exit_code == 0, again.output
    assert tree.read_tree(rendered / CLUSTER) == new
    assert [p.name for p in rendered.iterdir() if p.name.startswith((".tmp.", ".old."))] == []
    assert run(root, "check", CLUSTER).exit_code == 0


def test_the_exchange_swaps_two_folders_in_one_step(tmp_path: Path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (a / "which").write_text("a", encoding="utf-8")
    (b / "which").write_text("b", encoding="utf-8")
    if not tree._exchange(a, b):
        pytest.skip("no renameat2(RENAME_EXCHANGE) here; the two-rename fallback is tested above")
    assert (a / "which").read_text(encoding="utf-8") == "b" and (b / "which").read_text(encoding="utf-8") == "a"
