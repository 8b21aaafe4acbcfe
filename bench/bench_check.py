"""No-op check benchmark: ``gpu-gitops check`` of a fleet where nothing changed, and what a first
run (an empty user cache) costs against a later one, for ``check`` and for ``render``.

Usage: python bench/bench_check.py [--copies 100] [--runs 7] [--charts] [--instructions] [--source DIR]

Builds COPIES renamed copies of the examples (``bench_render.make_project``), with the CRD
schema locations of ``bench_all.py`` (``--schema-location`` flags), and with ``--charts`` the
chart lock and the charts' previews (``charts pull --from ../shared/charts``; needs Helm). Then,
in interleaved rounds, CPU seconds (user + system of the command and its children), medians:

- ``render`` from scratch with an empty cache (a first run: every CRD schema's metaschema check,
  the RE2 tables) and with the cache that run left (the same render again, from scratch);
- on the rendered fleet, committed to git as a project is: ``check`` without flags and with the
  schema-location flags, nothing changed; and ``check`` with no stat record (``stat/`` of the
  cache removed before each run: a new clone, CI's case), which reads every file.

``--instructions`` also counts each check row once under valgrind (independent of the load).
The load average is printed before and after: quote it beside every figure.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_all import CRD_LOCATIONS, Tool, flags, import_crds, instructions, load, quiet_check, timed  # noqa: E402
from bench_render import _adopt_orphans, _reap_all, make_project  # noqa: E402

SHARED_CHARTS = Path(os.environ.get("GPU_GITOPS_SHARED", Path(__file__).resolve().parents[2] / "shared")) / "charts"


def cpu(tool: Tool, *args: str, cache: Path, ok: tuple[int, ...] = (0,)) -> float:
    env = {**tool.env, "GPU_GITOPS_CACHE_DIR": str(cache)}
    return timed(tool.cli(*args), env, ok).cpu


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com", *args], cwd=root, check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=100)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--render-runs", type=int, default=2, help="rounds of the render rows (0: none)")
    parser.add_argument("--charts", action="store_true", help="with the chart lock and the charts' previews")
    parser.add_argument("--instructions", action="store_true")
    parser.add_argument("--source", type=Path, help="time another checkout of gpu-gitops (e.g. main's, as a baseline)")
    args = parser.parse_args()
    _adopt_orphans()
    print(f"load average before: {load()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="gpu-gitops-bench-check-") as folder:
        work = Path(folder)
        cache = work / "cache"
        tool = Tool("this", args.source, cache)
        fleet = make_project(work / "fleet", args.copies)
        import_crds(tool, work / "imported")
        if args.charts:
            pull = ["--root", str(fleet), "-q", "charts", "pull", "--from", str(SHARED_CHARTS)]
            cpu(tool, *pull, cache=cache)
        renders: dict[str, list[float]] = {"cold": [], "warm": []}
        for i in range(args.render_runs):
            for kind in ("cold", "warm"):
                if kind == "cold":  # an empty cache but for the chart packages, which a render needs
                    for entry in cache.iterdir() if cache.is_dir() else []:
                        if entry.name != "charts":
                            shutil.rmtree(entry)
                root = work / f"render-{kind}-{i}"
                shutil.copytree(fleet, root)
                renders[kind].append(
                    cpu(tool, "--root", str(root), "-q", "render", "--jobs", "1", *flags(), cache=cache)
                )
                shutil.rmtree(root)
        project = work / "project"
        shutil.copytree(fleet, project)
        cpu(tool, "--root", str(project), "-q", "render", *flags(), cache=cache)
        git(project, "init", "-q")
        git(project, "add", "-A")
        git(project, "commit", "-qm", "fleet")
        files = sum(1 for _ in (project / "rendered").rglob("*"))
        time.sleep(3.5)  # past the racy window of the stat record (statcache.SETTLED_NS)
        cpu(tool, "--root", str(project), "-q", "check", cache=cache)  # writes the record
        quiet_check(tool, project)  # validates the trees with the flags, once
        rows = {
            "check, nothing changed": [],
            "check --schema-location ..., nothing changed": [*flags()],
            "check, no stat record (a new clone)": [],
        }
        checks: dict[str, list[float]] = {row: [] for row in rows}
        counts: dict[str, int] = {}
        for _ in range(args.runs):
            for row, extra in rows.items():
                if "no stat record" in row:
                    shutil.rmtree(cache / "stat", ignore_errors=True)
                checks[row].append(cpu(tool, "--root", str(project), "-q", "check", *extra, cache=cache))
        if args.instructions:
            env = {**tool.env, "GPU_GITOPS_CACHE_DIR": str(cache)}
            for row, extra in rows.items():
                if "no stat record" in row:
                    shutil.rmtree(cache / "stat", ignore_errors=True)
                counts[row] = instructions(tool.cli("--root", str(project), "-q", "check", *extra), env)
            cpu(tool, "--root", str(project), "-q", "check", cache=cache)
    _reap_all()
    print(f"load average after: {load()}")
    print(f"{args.copies} clusters{' with charts' if args.charts else ''}: {files} entries in rendered/")
    print(f"CRD schema locations: {len(CRD_LOCATIONS)}; medians of CPU seconds")
    if args.render_runs:
        cold, warm = statistics.median(renders["cold"]), statistics.median(renders["warm"])
        print(f"  render --jobs 1, empty cache (first run)     {cold:7.2f} s   ({args.render_runs} runs)")
        print(f"  render --jobs 1, warm cache                  {warm:7.2f} s   first ÷ warm {cold / warm:.2f}×")
    for row, series in checks.items():
        extra = f"   {counts[row] / 1e9:.3f} G instructions" if row in counts else ""
        print(f"  {row:<44} {statistics.median(series):7.3f} s{extra}")


if __name__ == "__main__":
    main()
