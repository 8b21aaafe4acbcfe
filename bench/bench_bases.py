"""No-op check of a fleet made of bases: `gpu-gitops check` when nothing changed.

Usage: python bench/bench_bases.py [CLUSTERS=200] [RUNS=7]

Builds the fleet of tests/fleet_inputs.py (CLUSTERS clusters on three bases, each naming the
base of its kind, which names the fleet's) under a temporary root, renders it once, then:

- times ``gpu-gitops check`` as a user runs it (a new process), RUNS times: every cluster's
  sum file is compared, its bases' hashes included;
- renders the same fleet written out in full, and compares every cluster's tree with the
  layered one's, byte for byte (the sum files aside: they hash different inputs).

Prints medians (wall and CPU seconds) and the load average before and after. Target (issue
21): the no-op check of 200 clusters in at most 0.5 s wall. Run by hand; figures are noisy on
a shared machine.
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "bench"))

from bench_check import TARGET_SECONDS, _run, _wall  # noqa: E402
from fleet_inputs import make  # noqa: E402

from generator.tree.fingerprint import SUM_FILE  # noqa: E402


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != SUM_FILE
    }


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    jobs = str(len(os.sched_getaffinity(0)))
    work = Path(tempfile.mkdtemp(prefix="bench-bases-"))
    layered, full = work / "layered", work / "full"
    load_before = os.getloadavg()
    try:
        names = make(layered, count, layered=True)
        make(full, count, layered=False)
        cli = [sys.executable, "-c", "from generator.cli import main; main()", "--quiet"]
        print(f"rendering {count} clusters on bases, then written out in full (--jobs {jobs}) ...", flush=True)
        render = _wall([*cli, "--root", str(layered), "render", "--jobs", jobs])
        _wall([*cli, "--root", str(full), "render", "--jobs", jobs])
        check = [_run([*cli, "--root", str(layered), "check"]) for _ in range(runs)]
        differ = [n for n in names if _tree(layered / "rendered" / n) != _tree(full / "rendered" / n)]
    finally:
        load_after = os.getloadavg()
        shutil.rmtree(work, ignore_errors=True)
    wall = statistics.median(w for w, _cpu in check)
    print(f"{count} clusters on 3 bases, {runs} runs, median seconds     wall      CPU")
    print(f"  render, cold (once)                              {render:8.3f}")
    print(
        f"  gpu-gitops check, nothing changed                {wall:8.3f} {statistics.median(c for _w, c in check):8.3f}"
        f"   target <= {TARGET_SECONDS} s wall ({'met' if wall <= TARGET_SECONDS else 'NOT met'})"
    )
    print(f"  trees that differ from the fleet written in full: {len(differ)} of {count} {differ[:5]}")
    print(
        f"  load average before {load_before[0]:.2f} {load_before[1]:.2f}, after {load_after[0]:.2f} {load_after[1]:.2f}"
    )
    if differ:
        sys.exit(1)


if __name__ == "__main__":
    main()
