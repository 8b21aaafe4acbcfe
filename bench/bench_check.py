"""No-op check benchmark: `gpu-gitops check` of a fleet where nothing changed.

Usage: python bench/bench_check.py [CLUSTERS=100] [RUNS=7] [ROOT]

Copies the example clusters CLUSTERS times under a temporary root (renamed), or under ROOT,
kept and reused when it is given (its render is skipped when ROOT already holds one), renders
them once, then times, RUNS times each, and prints medians (wall seconds):

- ``gpu-gitops check`` as a user runs it (a new process: interpreter, imports, hashing);
- the sum-file comparison alone, in this process (``fingerprint.fresh``);
- ``python -c "import generator.cli"``: what startup costs before any work.

Target (issue 11): a no-op check of 100 clusters in at most 0.5 s wall. Run by hand; the
figures are noisy on a shared machine, so quote medians and compare figures of one run.
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from generator.paths import Project
from generator.tree import fingerprint

REPO = Path(__file__).resolve().parent.parent
TARGET_SECONDS = 0.5


def _make_root(count: int, root: Path) -> Path:
    for name in ("libsonnet", "schemas"):
        shutil.copytree(REPO / name, root / name)
    examples = sorted(p for p in (REPO / "clusters").iterdir() if (p / "cluster.yaml").is_file())
    shutil.copytree(REPO / "clusters" / "_bases", root / "clusters" / "_bases")  # the bases the examples use
    for i in range(count):
        source = examples[i % len(examples)]
        name = f"{source.name[:30]}-{i:03d}"
        (root / "clusters" / name).mkdir(parents=True)
        text = (source / "cluster.yaml").read_text(encoding="utf-8").replace(f"name: {source.name}", f"name: {name}", 1)
        (root / "clusters" / name / "cluster.yaml").write_text(text, encoding="utf-8")
    return root


def _run(command: list[str]) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of a child process. On a shared machine wall time
    includes waiting for a core; CPU time does not."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} exited {done.returncode}:\n{done.stdout}{done.stderr}")
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _wall(command: list[str]) -> float:
    return _run(command)[0]


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    keep = Path(sys.argv[3]) if len(sys.argv) > 3 else None
    rendered_before = bool(keep and (keep / "rendered").is_dir())
    root = keep if rendered_before else _make_root(count, keep or Path(tempfile.mkdtemp(prefix="bench-check-")))
    cli = [sys.executable, "-c", "from generator.cli import main; main()", "--root", str(root), "--quiet"]
    try:
        jobs = str(len(os.sched_getaffinity(0)))
        render = 0.0
        if not rendered_before:
            print(f"rendering {count} clusters once (--jobs {jobs}) ...", flush=True)
            render = _wall([*cli, "render", "--jobs", jobs])
        check = [_run([*cli, "check"]) for _ in range(runs)]
        project = Project(root)
        names = project.cluster_names()
        fast = []
        for _ in range(runs):
            start = time.perf_counter()
            fresh = fingerprint.fresh(project, names, root / ".gpu-gitops.yaml")
            fast.append(time.perf_counter() - start)
        assert len(fresh) == count, f"only {len(fresh)} of {count} clusters were up to date"
        startup = [_run([sys.executable, "-c", "import generator.cli"]) for _ in range(runs)]
    finally:
        if not keep:
            shutil.rmtree(root, ignore_errors=True)
    check_wall = statistics.median(w for w, _cpu in check)
    print(f"{count} clusters, {runs} runs, median seconds      wall      CPU")
    if render:
        print(f"  render, cold (once)                    {render:8.3f}")
    print(
        f"  gpu-gitops check, nothing changed      {check_wall:8.3f} {statistics.median(c for _w, c in check):8.3f}"
        f"   target <= {TARGET_SECONDS} s wall ({'met' if check_wall <= TARGET_SECONDS else 'NOT met'})"
    )
    print(f"    of which: sum-file comparison        {statistics.median(fast):8.3f}")
    print(
        f"    of which: import generator.cli       {statistics.median(w for w, _cpu in startup):8.3f} "
        f"{statistics.median(c for _w, c in startup):8.3f}"
    )


if __name__ == "__main__":
    main()
