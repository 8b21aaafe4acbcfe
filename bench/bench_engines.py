"""Jsonnet engine benchmark: the engines on PyPI on this library's real entry points.

Usage: python bench/bench_engines.py [REPEAT=5]

Evaluates every example cluster with each installed engine (``rjsonnet``, the one rendering
uses; ``gojsonnet`` and the C++ ``jsonnet`` when installed: ``pip install gojsonnet jsonnet``),
in this process and without the CPU/memory bound, and prints the median CPU seconds per
evaluation and whether each engine returns the same data as ``rjsonnet``.
"""

from __future__ import annotations

import importlib
import json
import statistics
import sys
import time
from pathlib import Path

from generator.inputs import load as inputs
from generator.library import jsonnet
from generator.paths import Project
from generator.render import evaluation

REPO = Path(__file__).resolve().parent.parent
ENGINES = {"rjsonnet": "rjsonnet", "gojsonnet": "_gojsonnet", "jsonnet (C++)": "_jsonnet"}


def _callback(sandbox: jsonnet.Sandbox, entry: str, code: str, as_bytes: bool):
    """The sandbox's resolver; the older bindings take the import content as bytes."""

    def resolve(importer_dir: str, rel: str):
        path, text = (entry, code) if rel == jsonnet.ENTRY_NAME else sandbox.resolve(importer_dir, rel)
        return path, (text.encode() if as_bytes else text)

    return resolve


def _evaluate(module, name: str, project: Project, cluster: inputs.Cluster) -> object:
    sandbox = jsonnet.Sandbox(project.libsonnet, cluster.folder, project.root)
    code = evaluation.ENTRY_WITH_OVERRIDES if cluster.overrides else evaluation.ENTRY
    entry = str(cluster.folder.resolve() / jsonnet.ENTRY_NAME)
    text = module.evaluate_snippet(
        jsonnet.ENTRY_NAME,
        f"import {json.dumps(jsonnet.ENTRY_NAME)}",
        tla_codes={"spec": json.dumps(cluster.spec)},
        import_callback=_callback(sandbox, entry, code, name != "rjsonnet"),
    )
    return json.loads(text)


def main() -> None:
    repeat = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    project = Project(REPO)
    clusters = [inputs.load_cluster(project, name) for name in inputs.discover(project)]
    reference = None
    for label, module_name in ENGINES.items():
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            print(f"{label:14s} not installed")
            continue
        runs, data = [], None
        for _ in range(repeat):
            start = time.process_time()
            data = [_evaluate(module, module_name, project, cluster) for cluster in clusters]
            runs.append((time.process_time() - start) / len(clusters))
        reference = reference if reference is not None else data
        print(
            f"{label:14s} {1000 * statistics.median(runs):8.1f} ms CPU per evaluation (median of {repeat}), "
            f"same data as rjsonnet: {data == reference}"
        )


if __name__ == "__main__":
    main()
