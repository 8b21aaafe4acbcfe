"""Where a lint after an edit spends its time, phase by phase, each phase a process of its own.

usage: python bench/bench_edit_phases.py [--docs 5000] [--runs 31] [--instructions] [--config]

``bench_all.py``'s lint-edit row times the whole command; this splits it into four commands
run on the same corpus (../shared/bench/gen_corpus.py, needs PyYAML), interleaved (the order
reversed every other round), each from the same copy of a filled result cache:

- ``start``: the interpreter's start (``python -c pass``, with site, as the console script);
- ``imports``: a script importing, in the order a lint after an edit imports them, every module
  it loaded (listed by a probe run first), under the collector's thresholds the lint command sets;
- ``unchanged``: the lint of a corpus whose every file is as the cache recorded it;
- ``edited``: the lint of a copy of it, a comment appended to the file ``bench_all.py`` edits.

Printed per command: wall and CPU medians (CPU of the process, ``getrusage``; this kernel's
accounting moves in ticks, so read the medians of many runs) and the difference to the command
before it: the imports, the run answered from the cache, the edited file's check. With
``--config``, the root holds a ``.gpu-gitops.yaml`` (three lines of lint settings), as a
project's does, which every run reads. With ``--instructions``, each once under valgrind
(``bench_all.instructions``), a figure the load does not move. The package's bytecode is
written first (``bench_all.Tool``).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_all import SHARED, Tool, instructions, timed  # noqa: E402

_MODULES = """
import json, sys
from generator.cli import main
before = set(sys.modules)
sys.argv = ["gpu-gitops", *sys.argv[1:]]
try:
    main(in_process=True)
except SystemExit:
    pass
print(json.dumps([m for m in sys.modules if m not in before]), file=sys.stderr)
"""


CONFIG = "lint:\n  rules:\n    SEC006: warning\n"  # ``--config``: a project's lint settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=31)
    parser.add_argument("--instructions", action="store_true")
    parser.add_argument("--config", action="store_true", help="lint in a project with a config file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="edit-phases-") as folder:
        tmp = Path(folder)
        # two copies of the corpus: one never touched, one whose file is edited before each run
        # (its recorded metadata are then never needed back)
        kept, changed = tmp / "corpus", tmp / "edited"
        subprocess.run(
            [sys.executable, str(SHARED / "bench" / "gen_corpus.py"), str(kept), str(args.docs)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        shutil.copytree(kept, changed)
        if args.config:
            (tmp / ".gpu-gitops.yaml").write_text(CONFIG, encoding="utf-8")
        time.sleep(3.1)  # past the cache's SETTLED_NS: the files are recorded in the index
        files = sorted(changed.rglob("*.yaml"))
        edited = files[len(files) // 2]  # the file bench_all.py edits
        text = edited.read_bytes() + b"# edit\n"
        tool = Tool("ours", None, tmp / "cache")
        lints = {}
        for name, corpus in (("unchanged", kept), ("edited", changed)):
            lints[name] = tool.cli("--root", str(tmp), "lint", "--format", "json", str(corpus))
            timed(lints[name], {**tool.env, "GPU_GITOPS_CACHE_DIR": str(tmp / f"filled-{name}")}, ok=(0, 1))
        edited.write_bytes(text)
        imports = _imports_script(tool, lints["edited"], tmp / "filled-edited", tmp)
        commands = {
            "start": [sys.executable, "-c", "pass"],
            "imports": [sys.executable, "-P", str(imports)],
            "unchanged": lints["unchanged"],
            "edited": lints["edited"],
        }
        env = {**tool.env, "GPU_GITOPS_CACHE_DIR": str(tmp / "cache")}

        def prepare(name: str) -> None:
            """The filled cache again, and for ``edited`` the file written anew (new metadata)."""
            shutil.rmtree(tmp / "cache", ignore_errors=True)
            shutil.copytree(tmp / f"filled-{name}" if name in lints else tmp / "filled-unchanged", tmp / "cache")
            if name == "edited":
                edited.write_bytes(text)

        samples: dict[str, list] = {name: [] for name in commands}
        names = list(commands)
        for i in range(args.runs):
            for name in names if i % 2 == 0 else names[::-1]:
                prepare(name)
                samples[name].append(timed(commands[name], env, ok=(0, 1)))
            print(f"round {i + 1}/{args.runs} done", file=sys.stderr)
        counted = {}
        if args.instructions:
            for name in names:
                prepare(name)
                counted[name] = instructions(commands[name], env, ok=(0, 1))
    _report(args, samples, counted)


def _imports_script(tool: Tool, lint: list[str], filled: Path, tmp: Path) -> Path:
    """A script importing what a lint after an edit imports, in its order (a probe run's list)."""
    shutil.copytree(filled, tmp / "probe-cache")
    probe = [*lint[:3], _MODULES, *lint[4:]]  # the probe's script in place of the command line's
    env = {**tool.env, "GPU_GITOPS_CACHE_DIR": str(tmp / "probe-cache")}
    done = subprocess.run(probe, capture_output=True, text=True, env=env)
    modules = json.loads(done.stderr.strip().splitlines()[-1])
    script = tmp / "imports.py"
    lines = ["import gc", "gc.set_threshold(100_000, 50, 100)", *(f"import {m}" for m in modules)]
    script.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return script


def _report(args: argparse.Namespace, samples: dict[str, list], counted: dict[str, int]) -> None:
    print(f"\n{args.runs} interleaved rounds; {args.docs} documents; medians; differences to the row above")
    print(f"{'command':<11} {'wall ms':>8} {'CPU ms':>8} {'+wall':>7} {'+CPU':>7} {'M instr':>9} {'+M instr':>9}")
    before = None
    for name, runs in samples.items():
        wall = statistics.median(s.wall for s in runs) * 1000
        cpu = statistics.median(s.cpu for s in runs) * 1000
        instr = counted.get(name, 0) / 1e6
        if before is None:
            more = ("", "", "")
        else:
            more = (
                f"{wall - before[0]:7.1f}",
                f"{cpu - before[1]:7.1f}",
                f"{instr - before[2]:9.1f}" if counted else "",
            )
        shown = f"{instr:9.1f}" if counted else ""
        print(f"{name:<11} {wall:8.1f} {cpu:8.1f} {more[0]:>7} {more[1]:>7} {shown:>9} {more[2]:>9}")
        before = (wall, cpu, instr)


if __name__ == "__main__":
    main()
