"""Lint reports of this checkout and of another, byte for byte: a speed change must not change them.

usage: python bench/compare_lint.py BASELINE_DIR [--docs 5000] [PATH ...]

Lints each target with both checkouts (the baseline's ``generator`` first on PYTHONPATH, as
``bench_all.py --baseline`` runs it) in every report format with two workers, in JSON with ``--jobs 1``, and in SARIF with this
checkout's result cache filled by a first run (the second run's report comes from the
cache), and compares standard output, standard error and the exit code.
Targets by default: the rule fixtures (``tests/fixtures``), ``rendered/``, the shared upstream
examples, the shared benchmark corpus (``../shared/bench/gen_corpus.py``, needs PyYAML) and
``rendered/`` against a cluster's contract (``--cluster``). Prints each difference and exits 1
if there is one.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("GPU_GITOPS_SHARED", REPO.parent / "shared"))
FORMATS = ("text", "json", "sarif", "junit", "github", "markdown")


def run(source: Path, cache: Path, args: list[str]) -> tuple[int, bytes, bytes]:
    env = {**os.environ, "GPU_GITOPS_CACHE_DIR": str(cache), "PYTHONPATH": str(source), "NO_COLOR": "1"}
    cmd = [sys.executable, "-P", "-c", "from generator.cli import main; main()", "--root", str(REPO), *args]
    proc = subprocess.run(cmd, capture_output=True, env=env, cwd=REPO)
    return proc.returncode, proc.stdout, proc.stderr


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("baseline", type=Path)
    parser.add_argument("--docs", type=int, default=5000)
    parser.add_argument("paths", nargs="*")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="compare-lint-") as tmp_name:
        tmp = Path(tmp_name)
        targets: list[list[str]] = [[p] for p in args.paths]
        if not targets:
            corpus = tmp / "corpus"
            subprocess.run(
                [sys.executable, str(SHARED / "bench" / "gen_corpus.py"), str(corpus), str(args.docs)],
                check=True,
                stdout=subprocess.DEVNULL,
            )
            targets = [
                [str(REPO / "tests" / "fixtures")],
                [str(REPO / "rendered")],
                [str(SHARED / "upstream-examples")],
                [str(corpus)],
                ["--cluster", "aks-h100-training", str(REPO / "rendered" / "aks-h100-training")],
            ]
        differences = 0
        for n, target in enumerate(targets):
            # every format with the default workers; one with a single process; one from the cache
            runs = [(fmt, "2", False) for fmt in FORMATS] + [("json", "1", False), ("sarif", "2", True)]
            for fmt, jobs, warm in runs:
                lint = ["lint", "--format", fmt, "--jobs", jobs, *target]
                base = run(args.baseline.resolve(), tmp / "cache-base", [lint[0], "--no-cache", *lint[1:]])
                if warm:
                    cache = tmp / f"cache-{n}"
                    run(REPO, cache, lint)
                    ours = run(REPO, cache, lint)
                else:
                    ours = run(REPO, tmp / "cache-ours", [lint[0], "--no-cache", *lint[1:]])
                how = "from the cache" if warm else "cold"
                if ours != base:
                    differences += 1
                    print(f"DIFFERS ({how}): {' '.join(lint)}: exit {base[0]} vs {ours[0]}")
                else:
                    print(f"same ({how}): {' '.join(lint)}: exit {base[0]}, {len(base[1])} bytes")
        print(f"{differences} difference(s)")
        return 1 if differences else 0


if __name__ == "__main__":
    raise SystemExit(main())
