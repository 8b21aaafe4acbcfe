"""Files written outside rendered/ survive a full disk: the previous file is kept whole, no
temporary file is left, and the user gets one error (simulated: ``os.write`` raises ENOSPC
after part of the bytes)."""

from __future__ import annotations

import errno
import os

import pytest

from generator import replace

CONFIGMAP = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {x: 1}\n"


def _full_disk(monkeypatch, after: int = 100) -> None:
    """``os.write`` writes ``after`` bytes, then the disk is full."""
    written = [0]
    original = os.write

    def write(fd, data):
        if written[0] >= after:
            raise OSError(errno.ENOSPC, "No space left on device")
        done = original(fd, bytes(data[: after - written[0]]))
        written[0] += done
        return done

    monkeypatch.setattr(os, "write", write)


def test_a_full_disk_keeps_the_previous_file_and_no_temporary(tmp_path, monkeypatch):
    path = tmp_path / "report.sarif"
    path.write_text("previous\n", encoding="utf-8")
    path.chmod(0o640)
    _full_disk(monkeypatch)
    with pytest.raises(OSError) as raised:
        replace.replace_file(path, "x" * 10_000)
    assert raised.value.errno == errno.ENOSPC
    assert path.read_text(encoding="utf-8") == "previous\n"
    assert os.listdir(tmp_path) == ["report.sarif"]
    monkeypatch.undo()
    replace.replace_file(path, "new\n")
    assert path.read_text(encoding="utf-8") == "new\n" and path.stat().st_mode & 0o777 == 0o640


def test_a_new_file_takes_the_umask(tmp_path):
    old = os.umask(0o027)
    try:
        replace.replace_file(tmp_path / "new", b"x")
    finally:
        os.umask(old)
    assert (tmp_path / "new").stat().st_mode & 0o777 == 0o640


@pytest.mark.parametrize("fmt", ["sarif", "json", "junit", "text"])
def test_a_lint_report_on_a_full_disk_leaves_the_previous_one(project, run, monkeypatch, fmt):
    manifest = project / "cm.yaml"
    manifest.write_text(CONFIGMAP, encoding="utf-8")
    report = project / f"lint.{fmt}"
    assert run(project, "lint", "--format", fmt, "--output-file", str(report), str(manifest)).exit_code == 1
    previous = report.read_bytes()
    manifest.write_text(CONFIGMAP.replace("name: a", "name: b"), encoding="utf-8")
    _full_disk(monkeypatch, after=len(previous) // 2)
    result = run(project, "lint", "--no-cache", "--format", fmt, "--output-file", str(report), str(manifest))
    assert result.exit_code == 2, result.output
    assert "cannot write the report: No space left on device" in result.stderr
    assert report.read_bytes() == previous
    assert sorted(p.name for p in project.iterdir() if p.name.startswith(".")) == []


def test_migrate_on_a_full_disk_leaves_the_input(project, run, monkeypatch):
    path = project / "clusters" / "aks-h100-training" / "cluster.yaml"
    old = path.read_text(encoding="utf-8")
    path.write_text(
        old.replace("apiVersion: gpu-gitops.io/v1alpha2\n", "apiVersion: gpu-gitops.io/v1alpha1\n"), encoding="utf-8"
    )
    before = path.read_bytes()
    _full_disk(monkeypatch, after=10)
    result = run(project, "migrate", "aks-h100-training")
    assert result.exit_code == 2, result.output
    assert path.read_bytes() == before
    assert [p.name for p in path.parent.iterdir() if p.name.startswith(".")] == []
