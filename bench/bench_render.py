"""Render benchmark: CPU per rendered object, end to end and per stage, and start-up time.

Usage: python bench/bench_render.py [COPIES=100] [REPEAT=3]

Builds two projects in a temporary folder: the example clusters as they are, and COPIES
clusters (copies of the examples under new names). For each it runs `gpu-gitops render` from
scratch REPEAT times in a fresh process and prints the median CPU seconds (the process and
everything it started: render workers, bounded Jsonnet helpers, which this process adopts
and waits for, since nobody else does), wall seconds and CPU milliseconds per rendered file,
the issue's budget being 0.62 ms. Then the median CPU time of `gpu-gitops --version`, and
where the CPU of one serial render of the COPIES project goes, stage by stage (module by
module), the Jsonnet helper included.

Each run renders into a project copy of its own that nothing was deleted from: on ext4 without
a journal (this machine's), creating a file right after thousands were deleted in the same
block group costs ~0.3 ms of system time, spent skipping the "recently deleted" inodes
(``find_inode_bit``, ``recently_deleted`` in fs/ext4/ialloc.c), so deleting the previous run's
tree just before the next one would charge the benchmark's own clean-up to the render. The
copies are deleted at the end. Figures are noisy on a shared machine: compare medians from
one run.
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

REPO = Path(__file__).resolve().parent.parent
CLI = [sys.executable, "-c", "from generator.cli import main; main()"]


def make_project(root: Path, copies: int | None, library: bool = True) -> Path:
    """A project with the example clusters (``copies`` None) or ``copies`` renamed copies; with
    ``library`` False, without libsonnet/ and schemas/ (each gpu-gitops uses its own)."""
    root.mkdir(parents=True)
    for folder in ("libsonnet", "schemas") if library else ():
        shutil.copytree(REPO / folder, root / folder)
    examples = sorted(p for p in (REPO / "clusters").iterdir() if (p / "cluster.yaml").is_file())
    if copies is None:
        shutil.copytree(REPO / "clusters", root / "clusters")
        return root
    shutil.copytree(REPO / "clusters" / "_bases", root / "clusters" / "_bases")  # the bases the examples use
    for i in range(copies):
        source = examples[i % len(examples)]
        name = f"{source.name[:30]}-{i:03d}"
        shutil.copytree(source, root / "clusters" / name)
        path = root / "clusters" / name / "cluster.yaml"
        path.write_text(
            path.read_text(encoding="utf-8").replace(f"name: {source.name}\n", f"name: {name}\n", 1), encoding="utf-8"
        )
    return root


def _adopt_orphans() -> None:
    """Make this process the reaper of its orphaned descendants (Linux), so that their CPU
    time is counted: the Jsonnet helper of every render process outlives it by a moment and
    is never waited for by it, and ``RUSAGE_CHILDREN`` only counts processes someone waited for."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER, <linux/prctl.h>
    except (AttributeError, OSError):
        print("note: cannot adopt orphaned processes here; Jsonnet helpers' CPU is not counted", file=sys.stderr)


def _reap_all() -> None:
    """Wait for every descendant left (orphans re-parented to this process by ``_adopt_orphans``)."""
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def timed_run(args: list[str]) -> tuple[float, float, float]:
    """CPU seconds (the command and every process it started, helpers included), wall
    seconds, and the system part of the CPU seconds, of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _reap_all()
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    system = after.ru_stime - before.ru_stime
    return (after.ru_utime - before.ru_utime) + system, wall, system


def bench_render(label: str, project: Path, repeat: int, jobs: list[str]) -> None:
    cpu, wall, system, objects = [], [], [], 0
    for i in range(repeat):
        fresh = project.with_name(f"{project.name}-run-{'-'.join(jobs) or 'default'}-{i}")
        shutil.copytree(project, fresh, ignore=shutil.ignore_patterns("rendered"))
        c, w, s = timed_run([*CLI, "--root", str(fresh), "-q", "render", *jobs])
        cpu.append(c)
        wall.append(w)
        system.append(s)
        objects = sum(1 for _ in (fresh / "rendered").rglob("*.yaml"))
    clusters = sum((p / "cluster.yaml").is_file() for p in (project / "clusters").iterdir())
    print(
        f"render {label} ({clusters} clusters, {objects} objects{', ' + ' '.join(jobs) if jobs else ''}): "
        f"median {statistics.median(cpu):.2f} s CPU ({statistics.median(system):.2f} s system), "
        f"{statistics.median(wall):.2f} s wall, {1000 * statistics.median(cpu) / objects:.2f} ms CPU per object"
    )


def bench_version(repeat: int) -> None:
    runs = [timed_run([*CLI, "--version"]) for _ in range(max(repeat, 5))]
    print(
        f"--version: median {statistics.median(c for c, _, _ in runs):.3f} s CPU, "
        f"{statistics.median(w for _, w, _ in runs):.3f} s wall"
    )


def _helper_cpu() -> float:
    """CPU seconds of this process's bounded Jsonnet helper so far (Linux), with the calls'
    processes it forked and waited for."""
    from generator.library import bounded

    if bounded._helper is None:
        return 0.0
    with open(f"/proc/{bounded._helper[1].pid}/stat", encoding="utf-8") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")  # utime, stime, cutime, cstime


def stages(project: Path) -> None:
    """Where one serial render of ``project`` spends its CPU, stage by stage, in this process
    (schemas compiled and modules imported before, as a run of many clusters amortises them)."""
    from generator.inputs import load as inputs
    from generator.paths import Project
    from generator.render import checks, evaluation, layout
    from generator.render.pipeline import validator
    from generator.tree import fingerprint
    from generator.tree import write as tree_io

    fresh = project.with_name(f"{project.name}-stages")
    shutil.copytree(project, fresh, ignore=shutil.ignore_patterns("rendered"))
    project_ = Project(fresh)
    names = inputs.discover(project_)
    first = inputs.load_cluster(project_, names[0])
    checks.validate(
        layout.lay_out(project_, first, evaluation.evaluate(project_, first)),
        validator(first.spec["kubernetesVersion"], ()),
        False,
        "",
    )
    helper_before = _helper_cpu()
    shared = fingerprint.shared_lines(project_, None)
    sums = dict.fromkeys(
        ("inputs", "evaluation", "layout", "checks.validate", "checks.lint_rules", "fingerprint", "tree (write)"), 0.0
    )
    objects = 0

    def clock(key, fn, *args):
        start = time.process_time()
        value = fn(*args)
        sums[key] += time.process_time() - start
        return value

    for start in range(0, len(names), evaluation.MANY):  # as pipeline.render_some
        chunk = names[start : start + evaluation.MANY]
        lines = [clock("fingerprint", fingerprint.input_lines, project_, name, shared) for name in chunk]
        clusters = [clock("inputs", inputs.load_cluster, project_, name) for name in chunk]
        evaluated = clock("evaluation", evaluation.evaluate_many, project_, clusters)
        for name, hashes, cluster, components in zip(chunk, lines, clusters, evaluated, strict=True):
            tree = clock("layout", layout.lay_out, project_, cluster, components)
            check = validator(cluster.spec["kubernetesVersion"], ())
            clock("checks.validate", checks.validate, tree, check, False, name)
            clock("checks.lint_rules", checks.lint_rules, tree, cluster, name)
            tree.files[fingerprint.SUM_FILE] = clock("fingerprint", fingerprint.sum_file, hashes, tree.files)
            clock("tree (write)", tree_io.write_tree, project_.rendered, tree.cluster, tree.files, name)
            objects += sum(1 for rel in tree.files if rel.endswith(".yaml"))
    sums["Jsonnet helper"] = _helper_cpu() - helper_before
    total = sum(sums.values())
    print(f"stages of one serial render of {len(names)} clusters ({objects} objects), CPU:")
    for key, value in sums.items():
        print(f"  {key:18s} {value:7.3f} s  {100 * value / total:5.1f}%  {1000 * value / objects:6.3f} ms/object")
    print(f"  {'total':18s} {total:7.3f} s  100.0%  {1000 * total / objects:6.3f} ms/object")


def main() -> None:
    copies = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    repeat = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    _adopt_orphans()
    print("load average (1, 5, 15 min): {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    with tempfile.TemporaryDirectory(prefix="bench-render-") as tmp:
        examples = make_project(Path(tmp) / "examples", None)
        fleet = make_project(Path(tmp) / "fleet", copies)
        bench_version(repeat)
        bench_render("examples", examples, repeat, [])
        bench_render(f"{copies} copies", fleet, repeat, ["--jobs", "1"])
        bench_render(f"{copies} copies", fleet, repeat, [])
        stages(fleet)
    print("load average (1, 5, 15 min): {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))


if __name__ == "__main__":
    main()
