"""A first render against the next ones: what a user's empty cache costs.

usage: python bench/bench_first.py [--copies 100] [--cycles 3] [--baseline DIR]

Each cycle, for each tool (ours, and a baseline checkout when given; their order reversed every
other cycle), renders copies of the examples with ``bench_all.py``'s three CRD schema locations
(``render --jobs 1``), each render into a new project, with one user cache per tool:

1. ``first``: the cache emptied before it;
2. ``kept``: everything the first one kept (the kept checks, the metaschema verdicts, the decoded
   definitions, the Unicode tables);
3. ``checks-removed``: the kept checks (``render/`` of the cache) removed, the rest kept: what a
   later run kept before checks were kept between runs;
4. ``kept`` again.

Printed per tool: the CPU seconds of every process (medians), and first ÷ kept and
first ÷ checks-removed.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_all import Tool, flags, import_crds, timed  # noqa: E402
from bench_render import _adopt_orphans, make_project  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--copies", type=int, default=100)
    parser.add_argument("--cycles", type=int, default=3)
    parser.add_argument("--baseline", type=Path, help="another checkout of gpu-gitops to time beside this one")
    args = parser.parse_args()
    _adopt_orphans()
    with tempfile.TemporaryDirectory(prefix="gpu-gitops-first-") as name:
        tmp = Path(name)
        tools = [Tool("ours", None, tmp / "cache-ours")]
        if args.baseline:
            tools.append(Tool("baseline", args.baseline.resolve(), tmp / "cache-baseline"))
        fleet = tmp / "fleet"
        make_project(fleet, args.copies, library=False)
        import_crds(tools[0], tmp / "imported")
        samples: dict[tuple[str, str], list[float]] = {}
        count = 0

        def render(tool: Tool, label: str) -> None:
            nonlocal count
            count += 1
            project = tmp / f"p{count}"
            shutil.copytree(fleet, project)
            cmd = tool.cli("--root", str(project), "-q", "render", "--jobs", "1", *flags())
            samples.setdefault((tool.name, label), []).append(timed(cmd, tool.env).cpu)
            shutil.rmtree(project)

        for cycle in range(args.cycles):
            for tool in tools if cycle % 2 == 0 else tools[::-1]:
                shutil.rmtree(tool.cache, ignore_errors=True)
                render(tool, "first")
                render(tool, "kept")
                shutil.rmtree(tool.cache / "render", ignore_errors=True)
                render(tool, "checks-removed")
                render(tool, "kept")
            print(f"cycle {cycle + 1}/{args.cycles} done", flush=True)
        print(f"\n{args.copies} clusters, {args.cycles} cycles, CPU seconds of every process, medians")
        for tool in tools:
            first, kept, removed = (
                statistics.median(samples[(tool.name, label)]) for label in ("first", "kept", "checks-removed")
            )
            print(
                f"{tool.name:10s} first {first:6.2f}  checks-removed {removed:6.2f}  kept {kept:6.2f}"
                f"  first/kept {first / kept:5.2f}  first/checks-removed {first / removed:5.2f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
