"""The helper process of ``generator.library.bounded``: each bounded call in a child forked for it.

The helper itself never runs a call: it reads a request, forks, and waits. The child sets its
bounds, runs the call, replies and leaves by ``os._exit``, so whatever the call left (the Jsonnet
engine frees nothing an evaluation allocates, ``engine.evaluate_unbounded``, ``gc=False``: ~3.5
MiB a cluster, ``evaluation.MANY`` clusters an evaluation) goes with it, and the helper stays at
its start-up size. A fork of this small process costs ~1 ms where a new interpreter with the
engine cost ~35 ms, once per evaluation. Leaving by ``os._exit`` also skips the
interpreter's teardown, which would run the engine's thread-local destructors and collect every
cycle the evaluation left (~0.2 s an evaluation).

A child that dies takes the helper with it, by the same signal or exit status, so the caller
reads the cause from the helper's end as it would from the call's; a helper that dies takes
its child (``PR_SET_PDEATHSIG``), so the caller's kill at the wall-clock bound stops the call.
It imports as little as it can: no ``subprocess``, ``dataclasses``, ``typing`` or ``tempfile``.
"""

from __future__ import annotations

import ctypes
import faulthandler
import importlib
import io
import math
import os
import pickle
import resource
import signal
import sys

MIB = 1024 * 1024
_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def _address_space_now() -> int:
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _bound(kind: int, soft: int) -> None:
    _, hard = resource.getrlimit(kind)
    resource.setrlimit(kind, (soft if hard == resource.RLIM_INFINITY else min(soft, hard), hard))


def serve() -> None:
    """The helper's loop: one length-prefixed pickled request in, a child forked to reply, until EOF."""
    requests, replies = sys.stdin.buffer, os.fdopen(os.dup(1), "wb")
    # what the called code prints is captured per call and sent with the reply; an abort
    # message of a dying call goes nowhere
    capture = os.fdopen(os.memfd_create("captured"), "w+b")
    os.dup2(capture.fileno(), 1)
    os.dup2(capture.fileno(), 2)
    faulthandler.disable()
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    helper = os.getpid()
    while True:
        header = requests.read(8)
        if len(header) < 8:
            os._exit(0)
        target, args, bounds = pickle.loads(requests.read(int.from_bytes(header, "big")))
        module, _, name = target.partition(":")
        try:
            importlib.import_module(module)  # here, once for every child
        except Exception:  # noqa: BLE001 - the child's import raises it again, as the call's error
            pass
        child = os.fork()
        if child == 0:
            prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
            if os.getppid() != helper:  # the helper died before the line above
                os._exit(1)
            _call(module, name, args, bounds, capture, replies)
        del args
        _follow(os.waitpid(child, 0)[1])


def _call(
    module: str, name: str, args: tuple, bounds: tuple[int, int], capture: io.BufferedRandom, replies: io.BufferedWriter
) -> None:
    """Run ``module``'s ``name`` within its bounds in this child and reply; never returns."""
    cpu_seconds, memory_mib = bounds
    replied = False
    try:
        used = resource.getrusage(resource.RUSAGE_SELF)
        _bound(resource.RLIMIT_CPU, math.ceil(used.ru_utime + used.ru_stime) + cpu_seconds)
        _bound(resource.RLIMIT_AS, _address_space_now() + memory_mib * MIB)
        capture.seek(0)
        capture.truncate()
        try:
            reply = ("ok", getattr(importlib.import_module(module), name)(*args))
        except MemoryError:
            reply = ("memory", None)
        except Exception as exc:  # noqa: BLE001 - re-raised by the caller
            reply = ("error", exc)
        capture.seek(0)
        payload = pickle.dumps((*reply, capture.read()))
        replies.write(len(payload).to_bytes(8, "big") + payload)
        replies.flush()
        replied = True
    finally:
        os._exit(0 if replied else 1)


def _follow(status: int) -> None:
    """Go on after a child that replied and left; else die as it died, without a core file."""
    if status == 0:
        return
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if sig not in (signal.SIGKILL, signal.SIGSTOP):
            signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)
