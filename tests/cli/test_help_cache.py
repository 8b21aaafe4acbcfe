"""`--help` from the user cache (``generator.cli.helpcache``): click's own bytes, without click.

Each check runs the entry point in fresh interpreters, several command lines per process: the
first process asks click for every page and then the entry point (which stores it), the next
asks the entry point alone, and says whether click was imported."""

from __future__ import annotations

import json
import marshal
import os
import pty
import subprocess
import sys
import threading
import zlib
from pathlib import Path

import click
import pytest

from generator.cli import cli, helpcache

# each run: ("click", args, columns) is the root group itself, as before the cache; ("main", ...)
# the entry point; ``columns`` sets COLUMNS (None: unset; "tty:N": the terminal on standard
# output made N columns wide); a fourth item, the cache folder from this run on. After each run a NUL on standard output (no page holds one); at
# the end, on standard error, the exit codes and whether click is loaded. The first item of the
# list is run first (a change to the interpreter's state, such as a module loaded).
PROBE = r"""
import fcntl, json, os, struct, sys, termios
runs = json.loads(sys.argv[1])
exec(runs.pop(0))
from generator.cli import main
codes = []
for how, args, columns, *cache in runs:
    os.environ.pop("COLUMNS", None)
    if cache:
        os.environ["GPU_GITOPS_CACHE_DIR"] = cache[0]
    if str(columns).startswith("tty:"):
        size = struct.pack("HHHH", 24, int(columns[4:]), 0, 0)
        fcntl.ioctl(sys.__stdout__.fileno(), termios.TIOCSWINSZ, size)
    elif columns is not None:
        os.environ["COLUMNS"] = str(columns)
    sys.argv = ["gpu-gitops", *args]
    try:
        if how == "click":
            from generator.cli.root import cli
            cli(args, prog_name="gpu-gitops")
        else:
            main()
    except SystemExit as exit:
        codes.append(exit.code)
    sys.stdout.flush()
    sys.stdout.buffer.write(b"\0")
    sys.stdout.flush()
print(json.dumps({"codes": codes, "click": "click" in sys.modules}), file=sys.stderr)
"""

C_LOCALE = {"PYTHONUTF8": "0", "LC_ALL": "C", "LANG": "C", "PYTHONIOENCODING": ""}
LINT = [("main", ["lint", "--help"], 80)]


def _every_help() -> list[list[str]]:
    """`--help` of the root group and of every command and subcommand, and `-h` twice."""
    ctx = cli.make_context("gpu-gitops", ["--help"], resilient_parsing=True)
    words: list[list[str]] = [[]]
    for name in cli.list_commands(ctx):
        command = cli.get_command(ctx, name)
        words.append([name])
        if isinstance(command, click.Group):
            words += [[name, sub] for sub in command.list_commands(ctx)]
    return [[*w, "--help"] for w in words] + [["-h"], ["schemas", "sync", "-h"]]


def _env(cache: Path, **more: str) -> dict[str, str]:
    return {**os.environ, "GPU_GITOPS_CACHE_DIR": str(cache), **more}


def _answers(runs: list, env: dict, prelude: str = "", stdout=subprocess.PIPE) -> tuple[list[bytes], list, bool, bytes]:
    """The probe's runs in one fresh interpreter: what each printed, the exit codes, whether
    click got imported, and what reached standard error besides the probe's own record."""
    probe = [sys.executable, "-c", PROBE, json.dumps([prelude, *runs])]
    result = subprocess.run(probe, stdout=stdout, stderr=subprocess.PIPE, env=env, check=False)
    *err, last = result.stderr.splitlines(keepends=True)
    record = json.loads(last)
    return (result.stdout or b"").split(b"\0")[:-1], record["codes"], record["click"], b"".join(err)


@pytest.mark.parametrize("locale", [{}, C_LOCALE], ids=["widths", "C-locale"])
def test_a_cached_help_is_clicks_own_bytes_and_loads_no_click(tmp_path, locale):
    """Every command's help, at 40, 60, 80 and 200 columns (and under LC_ALL=C without UTF-8
    mode, COLUMNS unset): click's bytes, as printed by the run that stores them and by the next,
    which imports no click module."""
    env = _env(tmp_path / "cache", **locale)
    asked = [(args, width) for width in ((40, 60, 80, 200) if not locale else (None,)) for args in _every_help()]
    runs = [(how, args, width) for args, width in asked for how in ("click", "main")]
    first, codes, _, err = _answers(runs, env)
    clicks, stored = first[0::2], first[1::2]
    assert stored == clicks and set(codes) == {0} and err == b""
    assert all(b"Usage: gpu-gitops" in page for page in clicks)
    assert locale or len(set(clicks)) > len(set(clicks[: len(_every_help())]))  # the widths differ
    cached, codes, click_loaded, err = _answers([("main", args, width) for args, width in asked], env)
    assert cached == clicks and set(codes) == {0} and err == b""
    assert not click_loaded


def _on_a_terminal(runs: list, env: dict) -> tuple[list[bytes], list, bool]:
    """``_answers`` with standard output a terminal (read on another thread: a pipe's size of
    pages would block the probe)."""
    leader, follower = pty.openpty()
    chunks: list[bytes] = []

    def drain() -> None:
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the follower side closed
                return
            if not chunk:
                return
            chunks.append(chunk)

    reader = threading.Thread(target=drain)
    reader.start()
    try:
        _, codes, click_loaded, err = _answers(runs, env, stdout=follower)
    finally:
        os.close(follower)
        reader.join(timeout=60)
        os.close(leader)
    assert err == b""
    return b"".join(chunks).split(b"\0")[:-1], codes, click_loaded


def test_on_a_terminal_the_page_is_clicks_at_the_terminals_width(tmp_path):
    """COLUMNS unset, standard output a terminal 50 and then 150 columns wide: click's page at
    each width, from the cache too."""
    env = _env(tmp_path / "cache")
    asked = [(args, f"tty:{cols}") for cols in (50, 150) for args in (["--help"], ["lint", "--help"])]
    first, codes, _ = _on_a_terminal([(how, a, w) for a, w in asked for how in ("click", "main")], env)
    assert first[0::2] == first[1::2] and set(codes) == {0} and first[0] != first[4]
    cached, codes, click_loaded = _on_a_terminal([("main", a, w) for a, w in asked], env)
    assert cached == first[0::2] and set(codes) == {0} and not click_loaded


def test_a_changed_source_or_version_renders_the_page_again(tmp_path):
    """An entry records the files of the modules that made it: one changed since (here a module
    the first run loaded), or another version of the tool, and click answers and stores again."""
    env = _env(tmp_path / "cache")
    edited = tmp_path / "edited.py"
    edited.write_text("x = 1\n", encoding="utf-8")
    loaded = (
        "import sys, types; module = types.ModuleType('generator.edited'); "
        f"module.__file__ = {str(edited)!r}; sys.modules['generator.edited'] = module"
    )
    [page], _, _, _ = _answers(LINT, env, loaded)
    assert _answers(LINT, env) == ([page], [0], False, b"")
    edited.write_text("x = 2  # edited\n", encoding="utf-8")
    assert _answers(LINT, env) == ([page], [0], True, b"")
    assert _answers(LINT, env) == ([page], [0], False, b"")
    newer = "import generator; generator.__version__ += '.post1'"
    assert _answers(LINT, env, newer) == ([page], [0], True, b"")


def test_a_corrupt_entry_is_answered_by_click_and_stored_again(tmp_path):
    """A flipped byte, a truncated entry, a body of another shape: click answers,
    exit 0, no traceback, and the entry is whole again."""
    env = _env(tmp_path / "cache")
    [page], _, _, _ = _answers(LINT, env)
    [entry] = (tmp_path / "cache" / "help").iterdir()
    data = entry.read_bytes()
    body = marshal.dumps(5)
    other_shape = helpcache.FORMAT + b"%08x\n" % zlib.crc32(body) + body
    for broken in (data[:-1] + bytes([data[-1] ^ 1]), data[: len(data) // 2], other_shape):
        entry.write_bytes(broken)
        assert _answers(LINT, env) == ([page], [0], True, b"")
        assert entry.read_bytes() == data
    assert _answers(LINT, env) == ([page], [0], False, b"")


def test_a_cache_that_cannot_be_written_still_prints_the_help(tmp_path):
    """The cache folder cannot be made (a file stands where its parent should be): the page is
    click's, exit 0, nothing on standard error, nothing written; in a folder that can be, the same
    page is stored."""
    blocker, writable = tmp_path / "a-file", tmp_path / "cache"
    blocker.write_text("", encoding="utf-8")
    runs = [
        ("main", ["lint", "--help"], 80),
        ("click", ["lint", "--help"], 80),
        ("main", ["lint", "--help"], 80, str(writable)),
    ]
    pages, codes, _, err = _answers(runs, _env(blocker / "cache"))
    assert pages[0] == pages[1] == pages[2] and b"Usage: gpu-gitops lint" in pages[0]
    assert codes == [0, 0, 0] and err == b"" and blocker.read_bytes() == b""
    assert len(list((writable / "help").iterdir())) == 1
