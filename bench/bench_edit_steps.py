"""A lint after an edit at each of several commits: instructions and pages faulted in.

usage: python bench/bench_edit_steps.py [--docs 5000] [--faults 5] COMMIT [COMMIT ...]

What a step of work on the ``lint-edit`` row (``bench_all.py``) changed, in the two figures the
load of a shared machine does not move: instructions (``bench_all.instructions``, valgrind) and
the pages the process faulted in (``perf stat -e page-faults``, median of ``--faults`` runs).
Here a page touched for the first time costs ~3.4 µs of the kernel's time, which instruction
counts do not see; CPU seconds of one step moved by ±3 ms between interleaved runs, more than
most steps change. Each commit is checked out in a temporary worktree, with this checkout's
compiled YAML reader copied in (a worktree has only the sources), and runs the lint of the same
corpus (../shared/bench/gen_corpus.py, needs PyYAML) from its own filled result cache, restored
before every run, ``infra-038/worker.yaml`` edited as ``bench_all.py`` edits it.
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_all import REPO, SHARED, instructions  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("commits", nargs="+")
    parser.add_argument("--docs", type=int, default=5000)
    parser.add_argument("--faults", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="edit-steps-") as folder:
        tmp = Path(folder)
        corpus = tmp / "corpus"
        subprocess.run(
            [sys.executable, str(SHARED / "bench" / "gen_corpus.py"), str(corpus), str(args.docs)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        time.sleep(3.1)  # past the cache's SETTLED_NS: the fill records every file in its index
        files = sorted(corpus.rglob("*.yaml"))
        edited = files[len(files) // 2]  # the file bench_all.py edits
        original = edited.read_bytes()
        tree = tmp / "tree"
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "-q", "--detach", str(tree)], check=True)
        try:
            for commit in args.commits:
                subprocess.run(["git", "-C", str(tree), "checkout", "-q", "--detach", commit], check=True)
                for built in (REPO / "generator" / "yamlio").glob("_cread*.so"):
                    shutil.copy2(built, tree / "generator" / "yamlio" / built.name)
                compileall.compile_dir(tree / "generator", quiet=1)
                count, faults = _measure(tree, tmp, corpus, edited, original, args.faults)
                print(f"{commit:<12} {count / 1e6:9.1f} M instructions {faults:7.0f} pages faulted in", flush=True)
        finally:
            edited.write_bytes(original)
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(tree)], check=False)


def _measure(tree: Path, tmp: Path, corpus: Path, edited: Path, original: bytes, runs: int) -> tuple[int, float]:
    """Instructions of one lint after the edit, and the median of its page faults over ``runs``."""
    lint = [sys.executable, "-P", "-c", "from generator.cli import main; main()"]
    lint += ["--root", str(tmp), "lint", "--format", "json", str(corpus)]
    filled, cache = tmp / "filled", tmp / "cache"
    env = {**os.environ, "PYTHONPATH": str(tree), "GPU_GITOPS_CACHE_DIR": str(filled)}
    shutil.rmtree(filled, ignore_errors=True)
    edited.write_bytes(original)
    subprocess.run(lint, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    env["GPU_GITOPS_CACHE_DIR"] = str(cache)

    def prepare() -> None:
        shutil.rmtree(cache, ignore_errors=True)
        shutil.copytree(filled, cache)
        edited.write_bytes(original + b"# edit\n")

    faults = []
    for _ in range(runs):
        prepare()
        done = subprocess.run(
            ["perf", "stat", "-x", ",", "-e", "page-faults", *lint],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        faults += [float(line.split(",")[0]) for line in done.stderr.splitlines() if ",page-faults," in line]
    prepare()
    return instructions(lint, env, ok=(0, 1)), statistics.median(faults)


if __name__ == "__main__":
    main()
