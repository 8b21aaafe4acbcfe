"""What importing a module costs a run that has loaded what it needs already, and what a page
of fresh memory costs: the figures behind deferring a module's import.

usage: python bench/bench_import_cost.py [--runs 11] [--after collections,...] MODULE [MODULE ...]

Each module is imported in a fresh interpreter (``-P``) after the modules ``--after`` names
(by default what a lint after an edit loads anyway: ``collections`` and ``functools``), so only
the module and what it alone brings are counted: wall milliseconds (``perf_counter``) and pages
faulted in (``ru_minflt``), medians of ``--runs``. Then the cost of a page touched for the first
time: 64 MB mapped and touched a page at a time, system seconds over pages faulted in (the
kernel's share of a run that instruction counts do not see).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys

# the child imports what it times alone: its figures are printed as text, not through json
_IMPORT = """
import importlib, resource, sys, time
for name in sys.argv[2].split(","):
    if name:
        importlib.import_module(name)
assert sys.argv[1] not in sys.modules, sys.argv[1] + " is loaded before it is timed"
faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
start = time.perf_counter()
importlib.import_module(sys.argv[1])
wall = time.perf_counter() - start
print(wall, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults)
"""

_PAGES = """
import mmap, resource
before = resource.getrusage(resource.RUSAGE_SELF)
memory = mmap.mmap(-1, 64 << 20)
for offset in range(0, 64 << 20, mmap.PAGESIZE):
    memory[offset] = 1
after = resource.getrusage(resource.RUSAGE_SELF)
print(after.ru_stime - before.ru_stime, after.ru_minflt - before.ru_minflt)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("modules", nargs="+")
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--after", default="collections,functools")
    args = parser.parse_args()
    for module in args.modules:
        runs = [_run([_IMPORT, module, args.after]) for _ in range(args.runs)]
        wall = statistics.median(r[0] for r in runs) * 1000
        pages = statistics.median(r[1] for r in runs)
        print(f"{module:<24} {wall:6.2f} ms {pages:6.0f} pages")
    costs = [_run([_PAGES]) for _ in range(args.runs)]
    per_page = statistics.median(seconds / pages for seconds, pages in costs) * 1e6
    print(f"a page touched for the first time: {per_page:.2f} µs of system time")


def _run(script: list[str]) -> list[float]:
    done = subprocess.run([sys.executable, "-P", "-c", *script], capture_output=True, text=True, check=True)
    return [float(word) for word in done.stdout.split()]


if __name__ == "__main__":
    main()
