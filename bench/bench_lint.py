"""Time ``gpu-gitops lint`` on the shared benchmark corpus: median wall time and resources/s.

usage: python bench/bench_lint.py [N=5000] [RUNS=5] [--kubernetes-version 1.32]

The corpus comes from ../shared/bench/gen_corpus.py (it needs PyYAML, which only this
script needs). Each run is a fresh process running the real command line, so start-up,
schema compilation and output are all counted, as they are for kubeconform's figures.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("GPU_GITOPS_SHARED", REPO.parent / "shared"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", nargs="?", type=int, default=5000)
    parser.add_argument("runs", nargs="?", type=int, default=5)
    parser.add_argument("--kubernetes-version", default="1.32")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "corpus"
        subprocess.run([sys.executable, str(SHARED / "bench" / "gen_corpus.py"), str(corpus), str(args.n)],
                       check=True, stdout=subprocess.DEVNULL)
        files = sum(1 for _ in corpus.rglob("*.yaml"))
        cmd = [sys.executable, "-c", "from generator.cli import main; main()", "--root", tmp, "lint", "--format", "json",
               "--kubernetes-version", args.kubernetes_version, str(corpus)]
        times, errors = [], None
        for _ in range(args.runs):
            start = time.perf_counter()
            proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
            times.append(time.perf_counter() - start)
            if proc.returncode not in (0, 1):
                print(proc.stderr, file=sys.stderr)
                return 2
            errors = proc.stdout.count('"severity": "error"')
        median = statistics.median(times)
        print(f"corpus: {args.n} documents in {files} files (Kubernetes {args.kubernetes_version})")
        print(f"runs: {args.runs}, median wall {median:.2f} s, min {min(times):.2f} s, max {max(times):.2f} s")
        print(f"throughput: {args.n / median:,.0f} resources/s; error findings: {errors}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
