"""Chart inflation benchmark: CPU of rendering COPIES clusters with their charts inflated (the
inflations cached, as on any machine after its first render) against the same clusters without
charts (no chart lock), and of a no-op `check` of each.

Usage: python bench/bench_charts.py [COPIES=100] [REPEAT=3]

Needs Helm (GPU_GITOPS_HELM or PATH) and ../shared/charts. Both projects hold the same COPIES
renamed copies of the examples (bench_render.make_project); the one with charts also has
clusters/charts.lock, and its cache is filled by `charts pull --from ../shared/charts` and one
warm-up render. Each figure is the median over REPEAT runs, each from scratch in a fresh
process and a project copy of its own, of the CPU seconds of the process and its children; the
runs of the two projects alternate.
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_render import CLI, REPO, make_project  # noqa: E402

SHARED_CHARTS = Path(os.environ.get("GPU_GITOPS_SHARED", REPO.parent / "shared")) / "charts"


def cpu(args: list[str], env: dict, ok: tuple[int, ...] = (0,)) -> float:
    """CPU seconds (user + system) of one command and everything it started."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([*CLI, *args], env=env, capture_output=True, text=True)
    if done.returncode not in ok:
        raise SystemExit(f"{' '.join(args)}: exit {done.returncode}\n{done.stderr[-2000:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(templates: list[Path], work: Path, env: dict, repeat: int) -> list[tuple[float, float]]:
    """Per project, the median CPU of a render from scratch and of a no-op check after it; the
    projects' runs interleaved, so a change in the neighbours' load falls on both alike."""
    renders: dict[Path, list[float]] = {t: [] for t in templates}
    checks: dict[Path, list[float]] = {t: [] for t in templates}
    for i in range(repeat):
        for template in templates:
            root = work / f"{template.name}-{i}"
            shutil.copytree(template, root)
            renders[template].append(cpu(["--root", str(root), "render", "--jobs", "1"], env))
            checks[template].append(cpu(["--root", str(root), "check"], env, ok=(0, 1)))  # 1: the copy is not in git
    return [(statistics.median(renders[t]), statistics.median(checks[t])) for t in templates]


def main() -> None:
    copies = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    repeat = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    with tempfile.TemporaryDirectory(prefix="gpu-gitops-bench-charts-") as folder:
        work = Path(folder)
        env = {**os.environ, "GPU_GITOPS_CACHE_DIR": str(work / "cache")}
        plain = make_project(work / "plain", copies)
        charted = make_project(work / "charted", copies)
        subprocess.run(
            [*CLI, "--root", str(charted), "charts", "pull", "--from", str(SHARED_CHARTS)], env=env, check=True
        )
        warm = work / "warm"
        shutil.copytree(charted, warm)
        cpu(["--root", str(warm), "render"], env)  # fills the inflation cache
        without, with_charts = measure([plain, charted], work, env, repeat)
        print(f"{copies} clusters, median of {repeat}, CPU seconds")
        print(f"render without charts  {without[0]:8.2f}    no-op check {without[1]:6.2f}")
        print(f"render with charts     {with_charts[0]:8.2f}    no-op check {with_charts[1]:6.2f}")
        print(
            f"ratio                  {with_charts[0] / without[0]:8.2f}×              {with_charts[1] / without[1]:6.2f}×"
        )


if __name__ == "__main__":
    main()
