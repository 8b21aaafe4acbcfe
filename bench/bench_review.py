"""Review benchmark: `gpu-gitops diff --base HEAD --format markdown` of a change to 100 clusters.

Usage: python bench/bench_review.py [CLUSTERS=100] [RUNS=7]

Copies the committed trees of the example clusters CLUSTERS times into a temporary git
repository (renamed, so no two clusters share a file's bytes; no render: the review reads
rendered/ only), commits them, then changes every
cluster: its CNI release removed (kept: prune-protected) and its StorageClasses (a danger), a
label changed on every object of 20-workloads, one file renamed. Times, RUNS times each, and prints medians (wall seconds):

- the Markdown comment alone, from the computed review (``review.markdown.markdown``);
- the whole review in this process: git read, compare, classify, Markdown (``review.fleet.review``);
- ``gpu-gitops diff --base HEAD --format markdown`` as CI runs it (a new process), wall and CPU.

Target (issue 18): the Markdown report of a 100-cluster change in under a second. Run by hand;
on a shared machine quote medians and the load average.
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
from generator.review.fleet import review
from generator.review.markdown import markdown

REPO = Path(__file__).resolve().parent.parent
TARGET_SECONDS = 1.0
GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com", "-c", "commit.gpgsign=false"]


def _make_repo(count: int, root: Path) -> None:
    (root / "clusters").mkdir(parents=True)
    examples = sorted(p for p in (REPO / "rendered").iterdir() if (p / "kustomization.yaml").is_file())
    for i in range(count):
        source = examples[i % len(examples)]
        name = f"{source.name[:30]}-{i:03d}"
        shutil.copytree(source, root / "rendered" / name)
        (root / "clusters" / name).mkdir()
        # every file names its cluster (the header, the engine's objects), as in a real fleet:
        # no two clusters share a file's bytes
        for path in (root / "rendered" / name).rglob("*"):
            if path.is_file():
                path.write_bytes(path.read_bytes().replace(source.name.encode(), name.encode()))
    subprocess.run([*GIT, "init", "-q", "-b", "main"], cwd=root, check=True)
    subprocess.run([*GIT, "add", "-A"], cwd=root, check=True)
    subprocess.run([*GIT, "commit", "-qm", "fleet"], cwd=root, check=True)


def _change(root: Path) -> None:
    for tree in sorted((root / "rendered").iterdir()):
        shutil.rmtree(tree / "00-crds-operators" / "cilium", ignore_errors=True)  # kept: prune-protected
        for storage_class in (tree / "40-per-node").rglob("storageclass_*.yaml"):
            storage_class.unlink()  # a danger
        for path in sorted((tree / "20-workloads").rglob("*.yaml")):
            text = path.read_text(encoding="utf-8")
            path.write_text(
                text.replace(
                    "app.kubernetes.io/managed-by: gpu-gitops", "app.kubernetes.io/managed-by: gpu-gitops-bench"
                ),
                encoding="utf-8",
            )
        first = sorted((tree / "10-platform").rglob("*_*.yaml"))[0]
        first.rename(first.with_name("renamed-" + first.name))


def _median(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _process(root: Path) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    command = [
        str(Path(sys.executable).parent / "gpu-gitops"),
        "--root",
        str(root),
        "diff",
        "--base",
        "HEAD",
        "--format",
        "markdown",
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 1:
        sys.exit(f"diff exited {done.returncode}:\n{done.stderr}")
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    with tempfile.TemporaryDirectory(prefix="bench-review-") as scratch:
        root = Path(scratch) / "fleet"
        _make_repo(count, root)
        _change(root)
        project = Project(root)
        reviews = review(project, "HEAD")
        changes = sum(len(r.changes) for r in reviews)
        dangers = sum(len(r.dangers) for r in reviews)
        comment = markdown(reviews, "HEAD")
        print(f"{count} clusters, {changes} object changes, {dangers} dangers; comment {len(comment)} characters")
        formatting = _median(lambda: markdown(reviews, "HEAD"), runs)
        whole = _median(lambda: markdown(review(project, "HEAD"), "HEAD"), runs)
        walls, cpus = zip(*(_process(root) for _ in range(runs)), strict=True)
        print(f"markdown from the review:          {formatting:.3f} s")
        print(f"review + markdown, in process:     {whole:.3f} s")
        print(
            f"gpu-gitops diff --base (process):  {statistics.median(walls):.3f} s wall, {statistics.median(cpus):.3f} s CPU"
        )
        print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; target {TARGET_SECONDS} s")


if __name__ == "__main__":
    main()
