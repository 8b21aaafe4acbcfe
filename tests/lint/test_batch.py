"""Many files over worker processes: the first is checked here, so the workers inherit what it compiled."""

from __future__ import annotations

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
    import multiprocessing.context

    sizes = []
    pool = multiprocessing.context.ForkContext.Pool
    monkeypatch.setattr(
        multiprocessing.context.ForkContext,
        "Pool",
        lambda self, processes: sizes.append(processes) or pool(self, processes),
    )
    engine = Engine(Settings(), make_validator(Settings()))
    found = batch.check_files(engine, _files(tmp_path, 10), lambda p: p.rsplit("/", 1)[1], None, 16)
    assert len(found) == 10 and sizes == [8]  # the first file and one chunk are checked here
