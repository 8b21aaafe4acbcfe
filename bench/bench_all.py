"""Every row of the performance table in one command: ours, optionally a baseline checkout,
and kubeconform when it is on PATH, in interleaved rounds.

usage: python bench/bench_all.py [--runs 5] [--copies 100] [--docs 5000] [--baseline DIR] [--rows ...]
                                  [--instructions]

Rows (the table of docs/performance.md):

- ``lint-cold``: ``gpu-gitops lint --no-cache`` of the shared corpus (../shared/bench/gen_corpus.py,
  needs PyYAML) vs ``kubeconform -strict -summary`` of it;
- ``lint-edit``: lint again after editing one file of it (result cache filled by an untimed run);
- ``render``: ``render --jobs 1`` of COPIES clusters (copies of the examples) with the two
  ../shared/crd-schemas locations and a third one ``schemas import`` makes of the upstream CRDs
  they lack (``import_crds``), into a new project each round, vs kubeconform validating that
  output with the same locations;
- ``check``: ``check`` of that rendered fleet, nothing changed, without flags (the sum files and
  this machine's stat record vouch for every tree);
- ``check-flags``: the same with the flags of ``render`` (the fast path: this machine validated
  the tree with them on the first, untimed, run);
- ``version``, ``help``: ``gpu-gitops --version`` and ``--help``.

Each round runs every tool once per row, one after the other (ours, baseline, kubeconform; in
the reverse order every other round), so the load of a shared machine falls on all alike, and
no tool always meets what the one before it left (the page cache, a disk's recently freed
inodes: ext4 took 16 to 32 s of system time for the same 87,000 files of a 1,000-cluster
render). Printed per row and tool: medians of CPU seconds (user + system of the process and
every process it started: workers and Jsonnet helpers, adopted as orphans and waited for),
wall seconds, and for the lint-cold and render rows the peak memory of one more run, in MB:
the peak RSS of its largest process (every process it started counts, the Jsonnet helper's
forked evaluations too) / the peak of its live processes' summed PSS (``peak_rss``), for render
a run in an empty user cache, which checks and keeps every object; the load average before
and after. ``--baseline DIR`` times another checkout of
gpu-gitops (e.g. ``git worktree add /tmp/base main``) with the same Python, its ``generator``
first on PYTHONPATH. Each checkout's bytecode is written first, as installing the package
does. kubeconform's core schemas come from ``KUBECONFORM_SCHEMAS`` (a location
template) when it is set, else its default location (bench/build_kubeconform.sh builds it).

``--instructions`` also runs each row once per tool under valgrind (children traced, no output
file; ``instructions``) and prints the instructions executed, summed over every process, each
counted once (a forked worker's count starts at the fork): a figure that does not depend on the
load, beside the CPU seconds. The interpreter's own start-up
(``python -c pass`` with site) is printed as the floor of every Python row.
"""

from __future__ import annotations

import argparse
import compileall
import functools
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench_render import _adopt_orphans, _reap_all, make_project

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("GPU_GITOPS_SHARED", REPO.parent / "shared"))
CRD_LOCATIONS = [
    str(SHARED / "crd-schemas" / "_upstream-latest" / "{{.Group}}" / "{{.ResourceKind}}_{{.ResourceAPIVersion}}.json"),
    str(SHARED / "crd-schemas" / "{{.Group}}" / "{{.ResourceKind}}_{{.ResourceAPIVersion}}.json"),
    # the tests' own schemas: nv-ipam's IPPool, whose CRD the Network Operator creates at run time
    # and ../shared holds no copy of (without it the trees that render one warn, and a check with
    # the flags renders them every time)
    str(REPO / "tests" / "schemas" / "{{.Group}}" / "{{.ResourceKind}}_{{.ResourceAPIVersion}}.json"),
]
# folders of ../shared/upstream-crds: every kind the examples render that ../shared/crd-schemas
# lacks (a kind left without a schema warns, and a tree that warns is never fresh with flags)
IMPORTED = ("nvidia-dra-driver-gpu", "karpenter", "network-operator", "kueue")
ROWS = ("lint-cold", "lint-edit", "render", "check", "check-flags", "version", "help")
GOALS = {  # the goals: kubeconform ÷ ours, or CPU seconds of ours
    "lint-cold": "ratio >= 2.0",
    "lint-edit": "ratio >= 20",
    "render": "ratio >= 1.0",
    "check": "<= 0.25 s CPU",
    "check-flags": "<= 0.25 s CPU",
    "version": "<= 0.04 s",
    "help": "<= 0.04 s",
}


@dataclass
class Sample:
    cpu: float
    wall: float
    instructions: int = 0


@dataclass
class Series:
    samples: list[Sample] = field(default_factory=list)

    instructions: int = 0  # under valgrind, once; 0: not counted

    def median(self, attribute: str) -> float:
        return statistics.median(getattr(s, attribute) for s in self.samples)


def timed(cmd: list[str], env: dict | None = None, ok=(0,)) -> Sample:
    """One run of ``cmd``: CPU of it and all its descendants, and wall seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, err = proc.communicate()
    wall = time.perf_counter() - start
    _reap_all()  # orphaned helpers: their CPU counts too
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in ok:
        sys.stderr.write(err.decode(errors="replace"))
        raise SystemExit(f"exit {proc.returncode}: {' '.join(cmd)}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Sample(cpu, wall)  # peak memory: ``peak_rss``, in a process of its own


def instructions(cmd: list[str], env: dict | None = None, ok=(0,)) -> int:
    """Instructions executed by ``cmd`` and every process it starts, summed over the processes'
    "I refs" lines (hardware counters may be absent). Python's with callgrind: a process forked
    without exec (lint's workers) inherits its parent's counts so far, which callgrind zeroes in
    the child as the fork returns there (``PyOS_AfterFork_Child``), so each instruction counts
    once; others with cachegrind without its cache simulation (callgrind aborts on the signals
    of Go's scheduler, and Go forks no worker)."""
    if cmd[0] == sys.executable:
        valgrind = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
        valgrind.append("--zero-before=PyOS_AfterFork_Child")
    else:
        valgrind = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
    valgrind.append("--trace-children=yes")
    proc = subprocess.run(valgrind + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _reap_all()  # its orphans (a Jsonnet helper under valgrind), or the next timed run counts their CPU
    err = proc.stderr.decode(errors="replace")
    if proc.returncode not in ok:
        sys.stderr.write(err)
        raise SystemExit(f"exit {proc.returncode} under valgrind: {' '.join(cmd)}")
    counts = [int(n.replace(",", "")) for n in re.findall(r"^==\d+== I +refs: +([\d,]+)$", err, re.M)]
    if not counts:
        raise SystemExit(f"valgrind counted nothing: {' '.join(cmd)}")
    return sum(counts)


# Run in a process of its own (``ru_maxrss`` only grows): it adopts the command's orphans
# (PR_SET_CHILD_SUBREAPER, <linux/prctl.h>) and waits for every one, so RUSAGE_CHILDREN's peak
# covers every process the command started, the Jsonnet helper's forked evaluations included
# (the helper is never waited for by the render: it leaves when its parent does); and it samples
# the summed PSS of the live tree every 20 ms, what the command holds at once.
_PROBE = """
import ctypes, os, resource, subprocess, sys, time
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)
proc = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
def tree(pid):
    found = [pid]
    for pid in found:
        try:
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/children") as handle:
                    found.extend(int(child) for child in handle.read().split())
        except OSError:
            pass
    return found[1:]
def pss(pid):
    try:
        with open(f"/proc/{pid}/smaps_rollup") as handle:
            return next(int(line.split()[1]) for line in handle if line.startswith("Pss:"))
    except (OSError, StopIteration, ValueError):
        return 0
held = 0
while proc.poll() is None or tree(os.getpid()):
    held = max(held, sum(pss(pid) for pid in tree(os.getpid())))
    time.sleep(0.02)
    try:
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        pass
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, held)
"""


def peak_rss(cmd: list[str], env: dict | None) -> tuple[float, float]:
    """Peak RSS (MB) of the largest process of one run, and the peak of the summed PSS of its
    processes alive at once (sampled), measured in a child of its own (``_PROBE``)."""
    out = subprocess.run([sys.executable, "-c", _PROBE, *cmd], capture_output=True, text=True, env=env, check=True)
    largest, held = out.stdout.split()
    return int(largest) / 1024, int(held) / 1024


class Tool:
    """One gpu-gitops to time: this checkout, or a baseline one."""

    def __init__(self, name: str, source: Path | None, cache: Path):
        self.name, self.cache = name, cache
        self.env = {**os.environ, "GPU_GITOPS_CACHE_DIR": str(cache)}
        if source is not None:
            self.env["PYTHONPATH"] = os.pathsep.join([str(source), os.environ.get("PYTHONPATH", "")])
        # bytecode, where an installed copy has it (pip compiles on install; ``py_compile``
        # writes it whatever PYTHONDONTWRITEBYTECODE says): else a checkout run with that
        # variable compiles every module again in every run, and the rows time the compiler
        compileall.compile_dir((source or REPO) / "generator", quiet=1)

    def cli(self, *args: str) -> list[str]:
        # -P: no current folder on sys.path, which `-c` would put before PYTHONPATH, so that a
        # run from a checkout's root imports that checkout, not the baseline it names
        return [sys.executable, "-P", "-c", "from generator.cli import main; main()", *args]


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def import_crds(tool: Tool, folder: Path) -> None:
    """The third location: the CRDs ../shared/crd-schemas lacks (the DRA driver's ComputeDomain,
    Karpenter's NodePool and node classes), converted by ``schemas import`` as a user would, so
    that every custom resource of the fleet is checked and no cluster warns."""
    crds = sorted(str(f) for name in IMPORTED for f in (SHARED / "upstream-crds" / name).glob("*.yaml"))
    if crds:
        timed(tool.cli("--root", str(folder), "-q", "schemas", "import", "--output-dir", str(folder), *crds), tool.env)
        CRD_LOCATIONS.append(str(folder / "{{.Group}}" / "{{.ResourceKind}}_{{.ResourceAPIVersion}}.json"))


def flags() -> list[str]:
    return [arg for loc in CRD_LOCATIONS for arg in ("--schema-location", loc)]


def quiet_check(tool: Tool, project: Path) -> None:
    """``check`` with the flags, not timed, once: it validates every tree and remembers it, so
    the timed ones take the fast path. A warning (a kind no location holds) would keep a tree
    from ever being fresh with the flags, and the row would time renders: refused."""
    done = subprocess.run(
        tool.cli("--root", str(project), "check", *flags()), capture_output=True, text=True, env=tool.env
    )
    if done.returncode != 0 or done.stderr:
        raise SystemExit(f"{tool.name}: check with the flags is not clean:\n{done.stderr}")


def kubeconform(binary: str, paths: list[str], crds: bool) -> list[str]:
    cmd = [binary, "-strict", "-summary"]
    core = os.environ.get("KUBECONFORM_SCHEMAS")
    cmd += ["-schema-location", core] if core else ["-schema-location", "default"]
    for loc in CRD_LOCATIONS if crds else ():
        cmd += ["-schema-location", loc]
    return cmd + paths


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--copies", type=int, default=100)
    parser.add_argument("--docs", type=int, default=5000)
    parser.add_argument("--baseline", type=Path, help="another gpu-gitops checkout to time alongside")
    parser.add_argument("--rows", default=",".join(ROWS), help=f"comma-separated, of {', '.join(ROWS)}")
    parser.add_argument("--instructions", action="store_true", help="count instructions too (valgrind)")
    args = parser.parse_args()
    rows = [r for r in args.rows.split(",") if r]
    unknown = sorted(set(rows) - set(ROWS))
    if unknown:
        parser.error(f"unknown rows: {', '.join(unknown)}")
    _adopt_orphans()
    binary = shutil.which("kubeconform")
    if args.instructions and not shutil.which("valgrind"):
        parser.error("--instructions needs valgrind on PATH")
    print(f"load average (1, 5, 15 min) before: {load()}")
    if args.instructions:
        floor = instructions([sys.executable, "-c", "pass"])
        print(f"python -c pass (with site): {floor / 1e6:.1f} M instructions")
    with tempfile.TemporaryDirectory(prefix="bench-all-") as tmp_name:
        tmp = Path(tmp_name)
        tools = [Tool("ours", REPO, tmp / "cache-ours")]
        if args.baseline:
            tools.append(Tool("baseline", args.baseline.resolve(), tmp / "cache-baseline"))
        results: dict[tuple[str, str], Series] = {}

        def add(row: str, who: str, sample: Sample) -> None:
            results.setdefault((row, who), Series()).samples.append(sample)

        def count(row: str, who: str, cmd: list[str], env: dict | None = None, ok=(0,), prepare=None) -> None:
            """With --instructions, once per row and tool: ``cmd`` again under valgrind, after
            ``prepare`` puts back the state the timed run started from."""
            series = results[(row, who)]
            if args.instructions and not series.instructions:
                if prepare:
                    prepare()
                series.instructions = instructions(cmd, env, ok)

        corpus = tmp / "corpus"
        if {"lint-cold", "lint-edit"} & set(rows):
            gen = SHARED / "bench" / "gen_corpus.py"
            subprocess.run(
                [sys.executable, str(gen), str(corpus), str(args.docs)], check=True, stdout=subprocess.DEVNULL
            )
            if "lint-edit" in rows:
                # the result cache re-reads a file changed in the last 3 s (cache.SETTLED_NS), as a
                # write in the same clock tick keeps its times: a corpus written just now would be
                # read and hashed whole by the first rounds, which no user's lint after an edit is
                time.sleep(3.1)
        fleet = tmp / "fleet"
        if {"render", "check", "check-flags"} & set(rows):  # the fleet, only for the rows that use it
            make_project(fleet, args.copies, library=False)
            import_crds(tools[0], tmp / "imported")
        rendered: dict[str, Path] = {}
        if {"check", "check-flags"} & set(rows) or ("render" in rows and binary):
            for tool in tools:  # one rendered fleet per tool, validated once with the flags (untimed)
                project = tmp / f"rendered-{tool.name}"
                shutil.copytree(fleet, project)
                timed(tool.cli("--root", str(project), "-q", "render", *flags()), tool.env)
                quiet_check(tool, project)
                rendered[tool.name] = project
        files = sorted(corpus.rglob("*.yaml"))
        for i in range(args.runs):
            for row in rows:

                def ours(tool: Tool, row: str = row, i: int = i) -> None:
                    if row == "lint-cold":
                        lint = tool.cli("--root", str(tmp), "lint", "--no-cache", "--format", "json", str(corpus))
                        add(row, tool.name, timed(lint, tool.env, ok=(0, 1)))
                        count(row, tool.name, lint, tool.env, ok=(0, 1))
                    elif row == "lint-edit":
                        env = {**tool.env, "GPU_GITOPS_CACHE_DIR": str(tmp / f"lint-{tool.name}-{i}")}
                        lint = tool.cli("--root", str(tmp), "lint", "--format", "json", str(corpus))
                        timed(lint, env, ok=(0, 1))

                        def edit(tool=tool, i=i, again="") -> None:
                            with files[len(files) // 2].open("a") as handle:
                                handle.write(f"# edit {tool.name} {i}{again}\n")

                        edit()
                        add(row, tool.name, timed(lint, env, ok=(0, 1)))
                        count(row, tool.name, lint, env, ok=(0, 1), prepare=lambda: edit(again=" again"))
                        shutil.rmtree(env["GPU_GITOPS_CACHE_DIR"], ignore_errors=True)
                    elif row == "render":
                        project = tmp / f"render-{tool.name}-{i}"  # never reused: see bench_render.py
                        shutil.copytree(fleet, project)
                        render = tool.cli("--root", str(project), "-q", "render", "--jobs", "1", *flags())
                        add(row, tool.name, timed(render, tool.env))

                        def fresh(project=project) -> None:
                            shutil.rmtree(project)
                            shutil.copytree(fleet, project)

                        count(row, tool.name, render, tool.env, prepare=fresh)
                    elif row in ("check", "check-flags"):
                        given = flags() if row == "check-flags" else []
                        check = tool.cli("--root", str(rendered[tool.name]), "-q", "check", *given)
                        add(row, tool.name, timed(check, tool.env))
                        count(row, tool.name, check, tool.env)
                    elif row in ("version", "help"):
                        add(row, tool.name, timed(tool.cli(f"--{row}"), tool.env))
                        count(row, tool.name, tool.cli(f"--{row}"), tool.env)

                def kubeconform_row(row: str = row) -> None:
                    theirs = None
                    if binary and row in ("lint-cold", "lint-edit"):
                        theirs = kubeconform(binary, [str(corpus)], False)
                    elif binary and row == "render":
                        theirs = kubeconform(binary, [str(rendered["ours"] / "rendered")], True)
                    elif binary and row in ("version", "help"):
                        theirs = [binary, "-v" if row == "version" else "-h"]
                    if theirs:
                        add(row, "kubeconform", timed(theirs, ok=(0, 1)))
                        count(row, "kubeconform", theirs, ok=(0, 1))

                # each tool first in every other round: what runs first meets other caches and
                # the disk's recent deletions (a 1,000-cluster fleet's files), not the code's cost
                steps = [functools.partial(ours, tool) for tool in tools] + [kubeconform_row]
                for step in steps if i % 2 == 0 else steps[::-1]:
                    step()
            print(f"round {i + 1}/{args.runs} done, load average {load()}", flush=True)
        memory: dict[tuple[str, str], tuple[float, float]] = {}  # peak memory in a child of its own, once per row
        for row, who in results:
            if row not in ("lint-cold", "render"):
                continue
            if who == "kubeconform":
                assert binary is not None
                paths = [str(corpus)] if row == "lint-cold" else [str(rendered["ours"] / "rendered")]
                rss = peak_rss(kubeconform(binary, paths, row == "render"), None)
            elif row == "lint-cold":
                tool = next(t for t in tools if t.name == who)
                rss = peak_rss(
                    tool.cli("--root", str(tmp), "lint", "--no-cache", "--format", "json", str(corpus)), tool.env
                )
            else:
                tool = next(t for t in tools if t.name == who)
                project = tmp / f"render-{who}-rss"
                shutil.copytree(fleet, project)
                # in an empty user cache, the most a render holds: it checks every object and keeps it
                env = {**tool.env, "GPU_GITOPS_CACHE_DIR": str(tmp / f"render-{who}-rss-cache")}
                rss = peak_rss(tool.cli("--root", str(project), "-q", "render", "--jobs", "1", *flags()), env)
            memory[(row, who)] = rss
        print(f"\n{args.runs} interleaved rounds; {args.copies} clusters; {args.docs} documents; medians")
        print(
            f"{'row':12s} {'tool':12s} {'CPU s':>8s} {'wall s':>8s} {'MB':>9s} {'M instr':>9s}"
            "  kubeconform ÷ this (CPU; instr)  goal"
        )
        for row in rows:
            theirs = results.get((row, "kubeconform"))
            for who in [t.name for t in tools] + (["kubeconform"] if theirs else []):
                series = results[(row, who)]
                cpu = series.median("cpu")
                ratio = f"{theirs.median('cpu') / cpu:6.2f}" if theirs and who != "kubeconform" else "      "
                if theirs and who != "kubeconform" and theirs.instructions and series.instructions:
                    ratio += f"; {theirs.instructions / series.instructions:6.2f}"
                instr = f"{series.instructions / 1e6:9.1f}" if series.instructions else "        -"
                rss = "{:4.0f}/{:4.0f}".format(*memory[(row, who)]) if (row, who) in memory else "        -"
                goal = GOALS[row] if who == "ours" else ""
                print(f"{row:12s} {who:12s} {cpu:8.3f} {series.median('wall'):8.3f} {rss} {instr}  {ratio:32s}  {goal}")
        if not binary:
            print("kubeconform is not on PATH: its rows are left out (figures of ../shared/bench/README.md)")
    print(f"load average (1, 5, 15 min) after: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
