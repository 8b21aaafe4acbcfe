"""Time ``gpu-gitops lint`` on the shared benchmark corpus: cold, warm after editing one file,
and peak memory, against kubeconform when one is on PATH.

usage: python bench/bench_lint.py [--sizes 5000,20000] [--runs 3] [--kubernetes-version 1.32] [--cluster NAME]

The corpus comes from ../shared/bench/gen_corpus.py (it needs PyYAML, which only this script
needs). Every run is a fresh process running the real command line, so start-up, schema
compilation and output are all counted. The figures are CPU seconds (user + system of the
process and its workers, from ``resource.getrusage(RUSAGE_CHILDREN)``), medians over the runs:
on a shared machine wall time measures the neighbours. Peak memory is the largest resident
set of one process. The package's bytecode is written first, as installing it does (pip
compiles on install): a checkout run with PYTHONDONTWRITEBYTECODE would otherwise compile
every module again in every run and time the compiler.

- cold: an empty result cache (``GPU_GITOPS_CACHE_DIR`` points at a fresh folder per run);
- warm: the cache filled by a first run, then one file edited (a comment appended);
- with ``--cluster NAME`` (a cluster of this repository, rendered): a cold run of
  ``lint --cluster NAME`` after each cold run, both with this repository as the project root,
  and what the contract adds in percent;
- kubeconform (when on PATH, ``-strict -summary``, schemas from ``KUBECONFORM_SCHEMAS`` if
  set, see ../shared/peer/kubeconform/README.md) runs interleaved with ours on the same corpus
  and the ratios are printed. Without it, the reference figures of ../shared/bench/README.md
  are printed beside ours.
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("GPU_GITOPS_SHARED", REPO.parent / "shared"))
# ../shared/bench/README.md, measured side by side on this kind of machine (CPU seconds, MB)
REFERENCE = {
    5000: {"kubeconform cold": 1.74, "kubeconform warm": 1.62, "kubeconform MB": 33},
    20000: {"kubeconform cold": 6.08, "kubeconform MB": 35},
}
TARGETS = "targets: cold <= 1.74 s CPU, warm <= 0.17 s CPU (5,000 documents); <= 150 MB at any size"


def measure(cmd: list[str], env: dict | None = None) -> float:
    """CPU seconds of one run of ``cmd`` and its workers."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode not in (0, 1):
        sys.stderr.write(proc.stderr.decode(errors="replace"))
        raise SystemExit(f"failed: {' '.join(cmd)}")
    return cpu


def ours(corpus: Path, root: str, version: str, cluster: str = "") -> list[str]:
    return [
        sys.executable,
        "-c",
        "from generator.cli import main; main()",
        "--root",
        root,
        "lint",
        "--format",
        "json",
        "--kubernetes-version",
        version,
        *(["--cluster", cluster] if cluster else []),
        str(corpus),
    ]


def kubeconform(binary: str, corpus: Path, version: str) -> list[str]:
    cmd = [binary, "-strict", "-summary", "-kubernetes-version", f"{version}.0"]
    schemas = os.environ.get("KUBECONFORM_SCHEMAS")
    if schemas:
        cmd += ["-schema-location", schemas]
    return cmd + [str(corpus)]


def peak_memory(cmd: list[str], env: dict) -> float:
    """Peak RSS in MB of one run, in a child of its own (ru_maxrss of children only grows)."""
    probe = (
        "import resource, subprocess, sys; subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, "
        "stderr=subprocess.DEVNULL); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    out = subprocess.run([sys.executable, "-c", probe, *cmd], capture_output=True, text=True, env=env, check=True)
    return int(out.stdout.strip()) / 1024


def compile_package() -> None:
    """Bytecode for the package, where an installed copy has it (``py_compile`` writes it
    whatever PYTHONDONTWRITEBYTECODE says)."""
    compileall.compile_dir(REPO / "generator", quiet=1)


def bench(n: int, runs: int, version: str, binary: str | None, cluster: str = "") -> None:
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "corpus"
        subprocess.run(
            [sys.executable, str(SHARED / "bench" / "gen_corpus.py"), str(corpus), str(n)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        files = sorted(corpus.rglob("*.yaml"))
        # against a cluster the project is this repository (its clusters/ and rendered/); the
        # plain runs then use it too, so that only the contract differs
        root = str(REPO) if cluster else tmp
        cmd = ours(corpus, root, version)
        cold, warm, theirs, theirs_warm, contract = [], [], [], [], []
        edited = files[len(files) // 2]
        for i in range(runs):
            cache = Path(tmp) / f"cache{i}"
            env = {**os.environ, "GPU_GITOPS_CACHE_DIR": str(cache)}
            cold.append(measure(cmd, env))
            if cluster:
                contract_env = {**os.environ, "GPU_GITOPS_CACHE_DIR": str(Path(tmp) / f"contract{i}")}
                contract.append(measure(ours(corpus, root, version, cluster), contract_env))
                shutil.rmtree(Path(tmp) / f"contract{i}", ignore_errors=True)
            if binary:
                theirs.append(measure(kubeconform(binary, corpus, version)))
            with edited.open("a") as handle:
                handle.write(f"# edit {i}\n")
            warm.append(measure(cmd, env))
            if binary:
                theirs_warm.append(measure(kubeconform(binary, corpus, version)))
            shutil.rmtree(cache)
        mem_env = {**os.environ, "GPU_GITOPS_CACHE_DIR": str(Path(tmp) / "cache-mem")}
        memory = peak_memory(cmd + ["--no-cache"], mem_env)
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
        print(
            f"corpus: {n} documents in {len(files)} files (Kubernetes {version}), {runs} runs, CPU medians"
            f" (load average {load}: a busy machine adds to CPU seconds too)"
        )
        print(f"  gpu-gitops lint cold {statistics.median(cold):.2f} s  (runs {', '.join(f'{t:.2f}' for t in cold)})")
        if cluster:
            added = statistics.median(contract) / statistics.median(cold) - 1
            print(
                f"  gpu-gitops lint --cluster {cluster} cold {statistics.median(contract):.2f} s  "
                f"(runs {', '.join(f'{t:.2f}' for t in contract)}): {added:+.1%}"
            )
        print(
            f"  gpu-gitops lint warm, 1 file edited {statistics.median(warm):.2f} s  "
            f"(runs {', '.join(f'{t:.2f}' for t in warm)})"
        )
        print(f"  gpu-gitops lint peak memory {memory:.0f} MB")
        if binary:
            their_memory = peak_memory(kubeconform(binary, corpus, version), os.environ.copy())
            print(
                f"  kubeconform cold {statistics.median(theirs):.2f} s, again {statistics.median(theirs_warm):.2f} s, "
                f"peak {their_memory:.0f} MB"
            )
            print(
                f"  ratios kubeconform/ours: cold {statistics.median(theirs) / statistics.median(cold):.2f}, "
                f"warm {statistics.median(theirs_warm) / statistics.median(warm):.2f}"
            )
        else:
            ref = REFERENCE.get(n)
            if ref:
                shown = ", ".join(f"{k} {v}" + (" MB" if k.endswith("MB") else " s") for k, v in ref.items())
                print(f"  no kubeconform on PATH; reference (../shared/bench/README.md): {shown}")


def cel_rules() -> None:
    """How many x-kubernetes-validations rules the installed schema set holds, and how many of
    them the evaluator cannot run (each is skipped with a warning where an object reaches it)."""
    import json

    from generator.validate import celrules, schemaset

    installed = schemaset.installed()
    if installed is None:
        print("CEL rules: no schema set installed (gpu-gitops schemas sync)")
        return
    rules = left = 0
    for path in sorted(installed.folder.rglob("*.json")):
        schema = json.loads(path.read_text(encoding="utf-8"))
        rules += json.dumps(schema).count('"rule":')
        left += len(celrules.unevaluated(schema))
    print(f"CEL rules of schema set {installed.version}: {rules}, not evaluated: {left}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="5000,20000", help="corpus sizes in documents, comma-separated")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--kubernetes-version", default="1.32")
    parser.add_argument("--cluster", default="", help="also time lint --cluster NAME (a cluster of this repository)")
    args = parser.parse_args()
    binary = shutil.which("kubeconform")
    compile_package()
    cel_rules()
    for n in (int(x) for x in args.sizes.split(",")):
        bench(n, args.runs, args.kubernetes_version, binary, args.cluster)
    print(TARGETS)
    return 0


if __name__ == "__main__":
    sys.exit(main())
