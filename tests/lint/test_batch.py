"""Many files over worker processes: the first is checked here, so the workers inherit what it compiled."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from generator.lint import batch, make_validator
from generator.lint.engine import Engine
from generator.lint.settings import Settings

_DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata: {{name: d{n}, namespace: n}}
spec:
  selector: {{matchLabels: {{app: d}}}}
  template:
    metadata: {{labels: {{app: d}}}}
    spec:
      containers: [{{name: c, image: "busybox:{n}", ports: [{{name: bad_name, containerPort: 80}}]}}]
"""


def _files(tmp_path, count: int) -> list[str]:
    paths = []
    for n in range(count):
        path = tmp_path / f"{n:02d}.yaml"
        path.write_text(_DEPLOYMENT.format(n=n), encoding="utf-8")
        paths.append(str(path))
    return paths


def test_workers_inherit_the_schemas_the_first_file_compiled_and_report_as_one_process(tmp_path):
    files = _files(tmp_path, 12)
    settings = Settings()
    results = {}
    for jobs in (1, 2):
        validator = make_validator(settings)
        assert validator is not None and not validator._compiled
        engine = Engine(settings, validator)
        found = batch.check_files(engine, files, lambda p: p.rsplit("/", 1)[1], None, jobs)
        # checked here either way: a worker's compiling would leave this process's validator empty
        assert ("apps/v1", "Deployment") in validator._compiled
        results[jobs] = [(r.display, r.objects, r.checked, [f.message for f, _ in r.findings]) for r in found]
    assert results[1] == results[2]
    assert [display for display, *_ in results[2]] == [f"{n:02d}.yaml" for n in range(12)]
    assert all(objects == checked == 1 and findings for _, objects, checked, findings in results[2])


def _tagged(item):
    """``batch._check``, with the process that checked the file after its display."""
    import os

    result, key = _CHECK(item)
    return result.moved(f"{result.display}@{os.getpid()}"), key


_CHECK = batch._check


def test_this_process_checks_its_share_beside_one_worker_fewer(tmp_path, monkeypatch):
    """With ``jobs`` 2 one worker is forked, and this process checks a share of the files
    besides the first (its results need no pickling); every file is still in its place."""
    import os

    files = _files(tmp_path, 40)
    monkeypatch.setattr(batch, "_check", _tagged)
    engine = Engine(Settings(), make_validator(Settings()))
    found = batch.check_files(engine, files, lambda p: p.rsplit("/", 1)[1], None, 2)
    shown = [r.display.split("@") for r in found]
    assert [name for name, _ in shown] == [f"{n:02d}.yaml" for n in range(40)]
    here = sum(pid == str(os.getpid()) for _, pid in shown)
    assert len({pid for _, pid in shown}) == 2 and 1 < here < 40


def test_no_more_workers_are_forked_than_they_have_files(tmp_path, monkeypatch):
    sizes = []
    fork = batch._fork
    monkeypatch.setattr(batch, "_fork", lambda shares: sizes.append(len(shares)) or fork(shares))
    engine = Engine(Settings(), make_validator(Settings()))
    found = batch.check_files(engine, _files(tmp_path, 10), lambda p: p.rsplit("/", 1)[1], None, 16)
    assert len(found) == 10 and sizes == [8]  # the first file and one chunk are checked here


def test_a_run_with_workers_starts_no_thread_and_imports_no_pool(tmp_path):
    """The workers are forked and send their results through pipes: no ``multiprocessing``
    (with pickle and queue) is imported, no thread runs beside the checks, and every worker is
    reaped."""
    probe = f"""
import os, sys
from generator.lint import batch, make_validator
from generator.lint.engine import Engine
from generator.lint.settings import Settings
files = sorted(os.path.join({str(tmp_path)!r}, n) for n in os.listdir({str(tmp_path)!r}))
found = batch.check_files(Engine(Settings(), make_validator(Settings())), files, str, None, 3)
assert len(found) == 30 and all(r.findings for r in found)
try:
    os.waitpid(-1, os.WNOHANG)
    raise SystemExit("a worker was left unreaped")
except ChildProcessError:
    pass
threads = sys.modules["threading"].active_count() if "threading" in sys.modules else 1
print(sorted(m for m in ("multiprocessing", "pickle", "queue") if m in sys.modules), threads)
"""
    _files(tmp_path, 30)
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, encoding="utf-8", check=True)
    assert out.stdout.split() == ["[]", "1"]


def test_a_worker_that_fails_fails_the_run_and_none_is_left_behind(tmp_path, monkeypatch):
    def failing(item):
        if os.getpid() != parent:
            raise ValueError("no such luck")
        return _CHECK(item)

    parent = os.getpid()
    monkeypatch.setattr(batch, "_check", failing)
    forked = []
    fork = batch._fork
    monkeypatch.setattr(batch, "_fork", lambda shares: forked.extend(fork(shares)) or forked)
    engine = Engine(Settings(), make_validator(Settings()))
    with pytest.raises(RuntimeError, match="a lint worker failed: ValueError: no such luck"):
        batch.check_files(engine, _files(tmp_path, 20), str, None, 3)
    assert len(forked) == 2
    for worker in forked:  # reaped
        with pytest.raises(ChildProcessError):
            os.waitpid(worker.pid, os.WNOHANG)


def test_a_worker_killed_before_it_sends_is_an_error_not_a_hang(tmp_path, monkeypatch):
    def killed(item):
        if os.getpid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)
        return _CHECK(item)

    parent = os.getpid()
    monkeypatch.setattr(batch, "_check", killed)
    engine = Engine(Settings(), make_validator(Settings()))
    with pytest.raises(RuntimeError, match="ended by signal 9"):
        batch.check_files(engine, _files(tmp_path, 20), str, None, 2)
