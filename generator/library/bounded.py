"""Run functions in a helper process with a CPU-time and a memory bound per call.

Native code (the Jsonnet engine) cannot be interrupted from Python: a loop never returns and an
allocation failure aborts the whole process. A helper process takes that risk instead: each
call runs in a process the helper forks for it, which sets ``RLIMIT_CPU`` to the call's bound
and ``RLIMIT_AS`` to its size now plus the call's memory bound. A call that ran out of time or
memory dies and takes its helper with it, a helper that has not replied within the call's
wall-clock bound is killed with its call, and ``run`` raises ``Bound`` naming the bound; the
next call starts a new helper.

The helper is a fresh, small interpreter, started once per process that needs it: forking the
renderer itself for every evaluation cost ~15 ms of page-table copying and teardown each, and
starting an interpreter with the engine ~35 ms. Forking the small helper costs ~1 ms, and what
a call leaves (memory a caller chose not to collect) is gone with the call's process.
Calls are ``"module:function"`` names and pickled arguments, so only importable functions run.
"""

from __future__ import annotations

import fcntl
import os
import pickle
import select
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any


@dataclass(frozen=True)
class Limits:
    """``wall_seconds``: the call's bound in elapsed time. CPU time alone is not enough: on a
    busy machine (CI runners, many ``--jobs``) 60 s of CPU can take many minutes, and a helper
    blocked on something that uses no CPU would never reach it."""

    cpu_seconds: int
    memory_mib: int
    wall_seconds: int = 600


PIPE_BYTES = 1024 * 1024  # Linux's fs.pipe-max-size by default, what any process may ask


class Bound(Exception):
    """The helper exceeded ``which`` ("cpu", "memory" or "wall") of ``limits``, or died some other way."""

    def __init__(self, which: str, limits: Limits, detail: str = ""):
        super().__init__(which, limits, detail)
        self.which, self.limits, self.detail = which, limits, detail


# --- the caller's side --------------------------------------------------------------------------

_helper: tuple[int, subprocess.Popen] | None = None  # (the process it serves, the helper)


def _start_helper() -> subprocess.Popen:
    """A new helper: ``-P``, so that the working folder (``-c`` would put it first on ``sys.path``)
    cannot lend it a ``generator`` package of its own."""
    helper = subprocess.Popen(
        [sys.executable, "-P", "-c", "from generator.library.helper import serve; serve()"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=_environment(),
    )
    for pipe in (helper.stdin, helper.stdout):
        _widen(pipe)
    return helper


def _widen(pipe: IO[bytes] | None) -> None:
    """Give the pipe ``PIPE_BYTES`` of buffer where Linux lets it (64 KiB by default): a reply
    of 32 clusters (~11 MB) then crosses in a few turns of the two processes, not a hundred."""
    try:
        fcntl.fcntl(pipe.fileno(), fcntl.F_SETPIPE_SZ, PIPE_BYTES)  # type: ignore[union-attr]
    except (AttributeError, OSError):  # not Linux, or past fs.pipe-max-size: the default stays
        pass


def _environment() -> dict[str, str]:
    """This package first on the helper's path."""
    package_parent = str(Path(__file__).resolve().parents[2])
    return dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [package_parent, os.environ.get("PYTHONPATH")])))


def _current_helper() -> subprocess.Popen:
    """This process's helper; a forked worker does not share its parent's."""
    global _helper
    if _helper is None or _helper[0] != os.getpid() or _helper[1].poll() is not None:
        _helper = (os.getpid(), _start_helper())
    return _helper[1]


def _died(helper: subprocess.Popen, limits: Limits) -> Bound:
    global _helper
    _helper = None
    code = helper.wait()
    if code < 0:
        sig = signal.Signals(-code)
        if sig in (signal.SIGXCPU, signal.SIGKILL):
            return Bound("cpu", limits)
        if sig in (signal.SIGABRT, signal.SIGSEGV, signal.SIGBUS):
            # a failed allocation aborts the Rust and C++ engines; RLIMIT_AS also makes
            # a stack or mmap growth fail with SIGSEGV
            return Bound("memory", limits, sig.name)
        return Bound("crash", limits, sig.name)
    return Bound("crash", limits, f"exit status {code}")


def run(target: str, args: tuple, limits: Limits) -> Any:
    """``module:function`` called with ``args`` in the helper, bounded by ``limits``; its
    exceptions are re-raised here, and what it wrote on stderr is written on ours."""
    helper = _current_helper()
    assert helper.stdin is not None and helper.stdout is not None  # started with pipes
    request = pickle.dumps((target, args, (limits.cpu_seconds, limits.memory_mib)))
    try:
        helper.stdin.write(len(request).to_bytes(8, "big") + request)
        helper.stdin.flush()
        deadline = time.monotonic() + limits.wall_seconds
        header = _read(helper, 8, deadline)
        reply = _read(helper, int.from_bytes(header, "big"), deadline) if len(header) == 8 else b""
    except BrokenPipeError:
        reply = b""
    except TimeoutError:
        _kill(helper)
        raise Bound("wall", limits) from None
    if not reply:
        raise _died(helper, limits)
    outcome, value, stderr = pickle.loads(reply)
    sys.stderr.write(stderr.decode("utf-8", "replace"))  # e.g. Jsonnet's std.trace
    if outcome == "ok":
        return value
    if outcome == "memory":
        raise Bound("memory", limits)
    raise value


def _kill(helper: subprocess.Popen) -> None:
    """Stop a helper past its wall-clock bound; the next call starts a new one."""
    global _helper
    _helper = None
    helper.kill()
    helper.wait()


def _read(helper: subprocess.Popen, size: int, deadline: float) -> bytearray:
    """``size`` bytes of the helper's reply (fewer at its end); TimeoutError past ``deadline``.

    Read into one buffer of that size: ``os.read(fd, size)`` allocates ``size`` bytes for
    each pipe's worth it returns (a reply of 32 clusters is ~11 MB: a fresh mapping, faulted
    in, then shrunk, two hundred times)."""
    assert helper.stdout is not None
    fd, data = helper.stdout.fileno(), bytearray(size)
    got = 0
    with memoryview(data) as view:
        while got < size:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError
            count = os.readv(fd, [view[got:]])
            if not count:
                break
            got += count
    del data[got:]
    return data
