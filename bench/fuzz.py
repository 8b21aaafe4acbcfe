"""Run the fuzzers at depth: COUNT examples per fuzz test, in chunks of their own seeds.

usage: python bench/fuzz.py [--count 10000] [--chunk 1000] [--seed 1000] [--jobs 1] [render|lint ...]

Each chunk is one ``pytest`` process (no workers: ``-n 0``) over one fuzz test with ``GPU_GITOPS_FUZZ_EXAMPLES=CHUNK``
and ``GPU_GITOPS_FUZZ_SEED=SEED+i``: a failure stops its own chunk only (hypothesis stops
at the first failing example and shrinks it), the other chunks go on, and every chunk's
seed, examples, outcome and wall time are printed as it ends, then a summary. Rerun a
failed chunk alone with the printed command. ``--jobs`` runs that many chunks at once (the
fuzzers are single-threaded); run it under ``nice`` on a shared machine. The count can also
come from ``GPU_GITOPS_FUZZ_COUNT``.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TESTS = {
    "render": "tests/fuzz/test_render_fuzz.py",  # render and explain-input on mutated cluster inputs
    "lint": "tests/fuzz/test_lint_fuzz.py",  # lint on mutated and pathological manifests
}
# hypothesis's statistics line: "- 1000 passing, 0 failing, and 12 invalid test cases"
CASES = re.compile(r"- (\d+) passing, (\d+) failing, and (\d+) invalid")


def run_chunk(test: str, seed: int, examples: int) -> tuple[str, int, bool, list[int], float]:
    """One pytest process: (test, seed, passed, [passing, failing, invalid], seconds)."""
    env = dict(os.environ, GPU_GITOPS_FUZZ_EXAMPLES=str(examples), GPU_GITOPS_FUZZ_SEED=str(seed))
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-n",
        "0",
        "-p",
        "no:cacheprovider",
        "--hypothesis-show-statistics",
    ]
    started = time.monotonic()
    result = subprocess.run([*command, TESTS[test]], cwd=REPO, env=env, capture_output=True, text=True, check=False)
    seconds = time.monotonic() - started
    counts = [sum(int(m[i]) for m in CASES.findall(result.stdout)) for i in range(3)]
    if result.returncode != 0:
        log = Path(tempfile.gettempdir()) / f"gpu-gitops-fuzz-{test}-{seed}.log"
        log.write_text(result.stdout + result.stderr, encoding="utf-8")
        print(f"  output of the failed chunk: {log}")
    return test, seed, result.returncode == 0, counts, seconds


def main() -> int:
    sys.stdout.reconfigure(line_buffering=True)  # chunk lines appear as chunks end, also in a log
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tests", nargs="*", help="render, lint (default: both)")
    parser.add_argument("--count", type=int, default=int(os.environ.get("GPU_GITOPS_FUZZ_COUNT", 10000)))
    parser.add_argument("--chunk", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1000, help="first chunk's seed; chunk i uses SEED+i")
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    args.tests = args.tests or list(TESTS)
    if unknown := set(args.tests) - set(TESTS):
        parser.error(f"unknown fuzz test {sorted(unknown)}: choose from {', '.join(TESTS)}")
    chunks = [
        (test, args.seed + i, min(args.chunk, args.count - i * args.chunk))
        for test in args.tests
        for i in range((args.count + args.chunk - 1) // args.chunk)
    ]
    totals: dict[str, list[float]] = {test: [0, 0, 0, 0.0] for test in args.tests}
    failed = []
    with ThreadPoolExecutor(args.jobs) as pool:
        for test, seed, passed, counts, seconds in pool.map(lambda c: run_chunk(*c), chunks):
            for i, n in enumerate([*counts, seconds]):
                totals[test][i] += n
            state = "ok" if passed else "FAILED"
            passing, failing, invalid = counts
            print(
                f"{test} seed {seed}: {state}, {passing} passing, {failing} failing, {invalid} invalid, {seconds:.0f} s"
            )
            if not passed:
                failed.append(f"GPU_GITOPS_FUZZ_SEED={seed} python -m pytest -q {TESTS[test]}")
    for test, (passing, failing, invalid, seconds) in totals.items():
        print(f"{test}: {passing:.0f} passing, {failing:.0f} failing, {invalid:.0f} invalid, {seconds:.0f} s of chunks")
    for command in failed:
        print(f"failed, rerun with: GPU_GITOPS_FUZZ_EXAMPLES={args.chunk} {command}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
