"""A lint ends its process without the interpreter's teardown, its report and cache written whole."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import REPO

# the entry point as the console script calls it, then a line teardown would print
ENTRY = """
import sys
from generator.cli import main
sys.argv = ["gpu-gitops", *sys.argv[1:]]
try:
    main()
finally:
    print("after main", file=sys.stderr)
"""


def _gpu_gitops(code: str, cache: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "GPU_GITOPS_CACHE_DIR": str(cache)}
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, env=env, check=False)


def _packs(cache: Path) -> list[bytes]:
    """Every entry line of the cache's packs, sorted (the packs' names hold the time)."""
    return sorted(line for pack in cache.rglob("*.pack") for line in pack.read_bytes().splitlines())


def test_a_lint_leaves_at_once_with_its_report_and_its_cache_complete(tmp_path):
    """Standard output, ``--output-file`` and the cache's new pack are what a lint that ends
    through the interpreter's teardown (``main(in_process=True)``) writes, byte for byte; the
    process ends inside ``main`` with the lint's exit code."""
    tree = tmp_path / "tree"
    shutil.copytree(REPO / "rendered" / "aks-h100-training", tree)
    args = ["--root", str(tmp_path), "lint", "--jobs", "1", "--format", "json", str(tree)]
    report = tmp_path / "report.json"
    torn_down = ENTRY.replace("main()", "main(in_process=True)")
    for code, cache in ((ENTRY, tmp_path / "quick"), (torn_down, tmp_path / "slow")):
        _gpu_gitops(code, cache, *args)  # fills the cache
    edited = sorted(tree.rglob("*.yaml"))[0]
    edited.write_text(edited.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")

    quick = _gpu_gitops(ENTRY, tmp_path / "quick", *args)
    slow = _gpu_gitops(torn_down, tmp_path / "slow", *args)
    assert b"after main" not in quick.stderr and b"after main" in slow.stderr
    assert quick.returncode == slow.returncode
    assert quick.stdout == slow.stdout and quick.stdout.rstrip().endswith(b"}")
    assert _packs(tmp_path / "quick") == _packs(tmp_path / "slow") != []
    assert len(list((tmp_path / "quick").rglob("*.pack"))) == 2  # the first run's and the edit's

    for code, cache in ((ENTRY, tmp_path / "quick"), (torn_down, tmp_path / "slow")):
        done = _gpu_gitops(code, cache, *args, "--output-file", str(report))
        assert done.returncode == slow.returncode and report.read_bytes() == slow.stdout
        report.unlink()
