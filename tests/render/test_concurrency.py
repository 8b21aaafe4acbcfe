"""Renders of one project take turns; recovery only touches what dead renders left; the tree is
never written through a symlink; modes do not follow the umask; messages say what is true."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys

import pytest

from generator.errors import InputError
from generator.tree import lock
from generator.tree import write as tree
from generator.tree.fingerprint import SUM_FILE

CLUSTER = "aks-h100-training"


def test_a_second_writer_says_it_waits_and_gives_up_with_a_message(tmp_path):
    rendered = tmp_path / "rendered"
    said: list[str] = []
    with (
        lock.project_lock(rendered, "rendered"),
        pytest.raises(InputError) as err,
        lock.project_lock(rendered, "rendered", timeout=0.2, say=said.append),
    ):
        pass
    assert said == ["rendered: waiting for another gpu-gitops render of this project to finish, at most 0.2 s"]
    assert "still holds the write lock after 0.2 s; nothing was written" in err.value.message
    with lock.project_lock(rendered, "rendered", timeout=0.2):  # released with its holder
        pass


def test_two_renders_at_once_both_finish_with_the_whole_tree(project, run):
    assert run(project, "render", CLUSTER).exit_code == 0
    expected = tree.read_tree(project / "rendered" / CLUSTER)
    shutil.rmtree(project / "rendered" / CLUSTER)
    command = [sys.executable, "-m", "generator.cli", "--root", str(project), "--quiet", "render", CLUSTER]
    code = "from generator.cli import main; import sys; sys.argv = ['gpu-gitops', *sys.argv[1:]]; main()"
    command[1:3] = ["-c", code]
    procs = [
        subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, encoding="utf-8") for _ in range(2)
    ]
    results = [p.communicate() + (p.returncode,) for p in procs]
    assert [r[2] for r in results] == [0, 0], results
    assert tree.read_tree(project / "rendered" / CLUSTER) == expected
    assert [p.name for p in (project / "rendered").iterdir() if p.name.startswith(".tmp")] == []


def _live_process():
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])


def test_recovery_leaves_a_live_renders_staging_alone_and_removes_a_dead_ones(tmp_path):
    rendered = tmp_path / "rendered"
    live = _live_process()
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, encoding="utf-8", check=True
    )
    try:
        busy = rendered / f".tmp.{CLUSTER}.{live.pid}-{tree._start_time(live.pid)}"
        gone = rendered / f".tmp.{CLUSTER}.{dead.stdout.strip()}-1"
        busy.mkdir(parents=True)
        gone.mkdir()
        assert tree.recover(rendered, CLUSTER, CLUSTER) == [gone.name]
        assert busy.is_dir() and not gone.exists()
    finally:
        live.kill()
        live.wait()


def test_recovery_refuses_a_planted_old_symlink(project, run, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "kustomization.yaml").write_text("# Rendered by gpu-gitops from clusters/x\n", encoding="utf-8")
    (project / "rendered").mkdir()
    (project / "rendered" / f".old.{CLUSTER}.1-1").symlink_to(outside)
    result = run(project, "render", CLUSTER)
    assert result.exit_code == 2
    assert f"rendered/{CLUSTER}: error: .old.{CLUSTER}.1-1 is not a folder gpu-gitops left behind" in result.stderr
    assert not (project / "rendered" / CLUSTER).exists()
    assert (outside / "kustomization.yaml").is_file()


@pytest.mark.parametrize("command", ["render", "check"])
def test_a_rendered_folder_that_is_a_symlink_is_refused(project, run, tmp_path, command):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (project / "rendered").symlink_to(elsewhere)
    result = run(project, command, CLUSTER)
    assert result.exit_code == 2
    assert "rendered: error: is a symlink; refusing to" in result.stderr
    assert list(elsewhere.iterdir()) == []


def test_modes_are_0644_and_0755_whatever_the_umask(project, run):
    old = os.umask(0o077)
    try:
        assert run(project, "render", CLUSTER).exit_code == 0
    finally:
        os.umask(old)
    target = project / "rendered" / CLUSTER
    for path in [target, *target.rglob("*")]:
        assert stat.S_IMODE(path.stat().st_mode) == (0o755 if path.is_dir() else 0o644), path
    victim = target / "kustomization.yaml"
    victim.chmod(0o600)  # a re-render repairs a mode even when no byte changed
    assert run(project, "render", CLUSTER).exit_code == 0
    assert stat.S_IMODE(victim.stat().st_mode) == 0o644


def test_a_failed_delete_of_the_old_tree_says_the_new_one_is_in_place(project, run, monkeypatch):
    assert run(project, "render", CLUSTER).exit_code == 0
    path = project / "clusters" / CLUSTER / "cluster.yaml"
    path.write_text(
        path.read_text(encoding="utf-8").replace("quota: {gpus: 24}", "quota: {gpus: 20}"), encoding="utf-8"
    )
    real_rmtree = shutil.rmtree

    def failing(folder, *args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(shutil, "rmtree", failing)  # the module write_tree imports when it runs
    result = run(project, "render", CLUSTER)
    monkeypatch.setattr(shutil, "rmtree", real_rmtree)
    assert result.exit_code == 2
    assert "wrote the new tree, but could not remove the previous one, left in rendered/" in result.stderr
    assert "the previous tree is unchanged" not in result.stderr
    assert "requests.nvidia.com/gpu: '20'" in (
        project
        / "rendered"
        / CLUSTER
        / "20-workloads"
        / "workload-isolation"
        / "resourcequota_gpu-inference_gpu-quota.yaml"
    ).read_text(encoding="utf-8")
    leftovers = [p.name for p in (project / "rendered").iterdir() if p.name.startswith((".tmp.", ".old."))]
    assert len(leftovers) == 1

    again = run(project, "render", CLUSTER)
    assert again.exit_code == 0
    assert f"{CLUSTER}: removed rendered/{leftovers[0]}, left by an interrupted render" in again.stdout
    assert not (project / "rendered" / leftovers[0]).exists()
    assert (project / "rendered" / CLUSTER / SUM_FILE).is_file()


def test_the_reported_interleaving_replayed_keeps_the_staging_folder(project, run, monkeypatch):
    """The fixed-order replay of the race: another process recovers while this render fills its
    staging folder. The staging folder belongs to a live process, so it is left alone."""
    assert run(project, "render", CLUSTER).exit_code == 0
    expected = tree.read_tree(project / "rendered" / CLUSTER)
    shutil.rmtree(project / "rendered" / CLUSTER)
    other = "from generator.tree import write as tree; import sys, pathlib; tree.recover(pathlib.Path(sys.argv[1]), sys.argv[2], 'x')"
    replayed = []

    def meanwhile(step):
        if step == "file" and not replayed:
            replayed.append(
                subprocess.run(
                    [sys.executable, "-c", other, str(project / "rendered"), CLUSTER],
                    capture_output=True,
                    encoding="utf-8",
                    check=False,
                )
            )

    monkeypatch.setattr(tree, "_step", meanwhile)
    assert run(project, "render", CLUSTER).exit_code == 0
    assert replayed and replayed[0].returncode == 0, replayed
    assert tree.read_tree(project / "rendered" / CLUSTER) == expected
