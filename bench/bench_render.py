"""Render benchmark: where the time of `gpu-gitops render` goes, per stage and per cluster.

Usage: python bench/bench_render.py [CLUSTERS=12] [REPEAT=5]

Copies the example clusters under a temporary root (renamed to reach CLUSTERS inputs),
then times load, Jsonnet evaluation, schema validation, YAML emission and the atomic write
separately, REPEAT times each, and prints medians. Run by hand; the figures are noisy, so
compare ratios measured in one run.
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from generator import inputs, render
from generator import tree as tree_io
from generator.paths import Project
from generator.pipeline import validator

REPO = Path(__file__).resolve().parent.parent


def _make_root(count: int) -> Project:
    root = Path(tempfile.mkdtemp(prefix="bench-render-"))
    shutil.copytree(REPO / "libsonnet", root / "libsonnet")
    shutil.copytree(REPO / "schemas", root / "schemas")
    examples = sorted(p for p in (REPO / "clusters").iterdir() if (p / "cluster.yaml").is_file())
    for i in range(count):
        source = examples[i % len(examples)]
        name = f"{source.name[:30]}-{i:03d}"
        (root / "clusters" / name).mkdir(parents=True)
        text = (source / "cluster.yaml").read_text().replace(f"name: {source.name}", f"name: {name}", 1)
        (root / "clusters" / name / "cluster.yaml").write_text(text)
    return Project(root)


def _timed(fn):
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 12
    repeat = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    project = _make_root(count)
    names = inputs.discover(project)
    stages: dict[str, list[float]] = {k: [] for k in ("load", "evaluate", "layout+emit", "validate", "lint rules",
                                                      "write", "total")}
    objects = 0
    for _ in range(repeat):
        shutil.rmtree(project.rendered, ignore_errors=True)
        validator.cache_clear()
        sums = dict.fromkeys(stages, 0.0)
        objects = 0
        for name in names:
            cluster, t_load = _timed(lambda: inputs.load_cluster(project, name))
            components, t_eval = _timed(lambda: render.evaluate(project, cluster))
            tree, t_emit = _timed(lambda: render.layout(project, cluster, components))
            check = validator(cluster.spec["kubernetesVersion"], ())
            _, t_valid = _timed(lambda: render.validate(tree, check, False, name))
            _, t_lint = _timed(lambda: render.lint_rules(tree, cluster, name))
            _, t_write = _timed(lambda: tree_io.write_tree(project.rendered, tree, name))
            objects += len(tree.placed)
            for key, value in (("load", t_load), ("evaluate", t_eval), ("layout+emit", t_emit),
                               ("validate", t_valid), ("lint rules", t_lint), ("write", t_write)):
                sums[key] += value
        sums["total"] = sum(v for k, v in sums.items() if k != "total")
        for key, value in sums.items():
            stages[key].append(value)
    print(f"{len(names)} clusters, {objects} objects per run, {repeat} runs (median seconds per run)")
    total = statistics.median(stages["total"])
    for key, values in stages.items():
        median = statistics.median(values)
        print(f"  {key:12s} {median:8.3f} s  {100 * median / total:5.1f}%")
    print(f"  per object   {1000 * total / max(objects, 1):8.2f} ms")
    shutil.rmtree(project.root)


if __name__ == "__main__":
    main()
