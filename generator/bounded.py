"""Run one function in a child process with a CPU-time and a memory bound.

Native code (the Jsonnet engine) cannot be interrupted from Python: a loop never returns and an
allocation failure aborts the whole process. A forked child takes that risk instead, under
``RLIMIT_CPU`` and ``RLIMIT_AS``; the parent reads its result from a pipe and turns a child that
ran out of time or memory into a ``Bound`` exception naming the bound that was hit.
"""

from __future__ import annotations

import faulthandler
import os
import pickle
import resource
import signal
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Limits:
    cpu_seconds: int
    memory_mib: int


class Bound(Exception):
    """The child exceeded ``which`` ("cpu" or "memory") of ``limits``, or died some other way."""

    def __init__(self, which: str, limits: Limits, detail: str = ""):
        super().__init__(which)
        self.which, self.limits, self.detail = which, limits, detail


def _address_space_now() -> int:
    """This process's virtual size in bytes: the child inherits it, so the bound is added to it."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _child(func: Callable[[], T], limits: Limits, write_fd: int, stderr_fd: int) -> None:
    status = 0
    try:
        # the child's stderr goes to a file the parent passes on only when the child did not
        # die: an engine's abort message or a fault handler's dump would garble the error
        faulthandler.disable()
        os.dup2(stderr_fd, 2)
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 1))
        memory = _address_space_now() + limits.memory_mib * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        try:
            payload = pickle.dumps((True, func()))
        except MemoryError:
            status = 3
            payload = b""
        except Exception as exc:  # noqa: BLE001 - handed to the parent, which re-raises it
            payload = pickle.dumps((False, exc))
        with os.fdopen(write_fd, "wb") as pipe:
            pipe.write(payload)
    finally:
        os._exit(status)


def run(func: Callable[[], T], limits: Limits) -> T:
    """``func()`` evaluated in a child bounded by ``limits``; its exceptions are re-raised here.

    Where ``fork`` or ``/proc`` do not exist (not Linux) ``func`` runs unbounded in this process.
    """
    if not hasattr(os, "fork") or not os.path.exists("/proc/self/statm"):
        return func()
    read_fd, write_fd = os.pipe()
    with tempfile.TemporaryFile() as stderr:
        pid = os.fork()
        if pid == 0:
            os.close(read_fd)
            _child(func, limits, write_fd, stderr.fileno())
        os.close(write_fd)
        with os.fdopen(read_fd, "rb") as pipe:
            payload = pipe.read()
        _, status = os.waitpid(pid, 0)
        if not os.WIFSIGNALED(status):
            stderr.seek(0)
            sys.stderr.write(stderr.read().decode("utf-8", "replace"))  # e.g. Jsonnet's std.trace
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig in (signal.SIGXCPU, signal.SIGKILL):
            raise Bound("cpu", limits)
        if sig in (signal.SIGABRT, signal.SIGSEGV, signal.SIGBUS):
            # a failed allocation aborts the Rust and C++ engines; RLIMIT_AS also makes
            # a stack or mmap growth fail with SIGSEGV
            raise Bound("memory", limits, signal.Signals(sig).name)
        raise Bound("crash", limits, signal.Signals(sig).name)
    if os.WEXITSTATUS(status) == 3:
        raise Bound("memory", limits)
    if not payload:
        raise Bound("crash", limits, f"exit status {os.WEXITSTATUS(status)}")
    ok, value = pickle.loads(payload)
    if ok:
        return value
    raise value
