"""The helper process of ``generator.library.bounded``: one bounded call at a time, until it retires.

Started for every ~16 clusters of a fleet, so it imports as little as it can: no ``subprocess``,
``dataclasses``, ``typing`` or ``tempfile`` (~100 M instructions of a ~200 M start before); the
bounds come as plain numbers, and the Jsonnet side it runs (``library.engine``) is as lean.
"""

from __future__ import annotations

import faulthandler
import importlib
import math
import os
import pickle
import resource
import sys

MIB = 1024 * 1024
# Growth after which a helper exits once it has replied. The Jsonnet engine does not free what an
# evaluation leaves (``engine.evaluate_unbounded``, ``gc=False``): ~3.5 MiB a cluster, ~55 MiB an
# evaluation of ``evaluation.MANY`` clusters. A helper leaves once it has grown by 64 MiB or would
# with one more call like its last: after each of those evaluations, at ~90 MB, whatever the
# fleet's size (512 MiB let it reach ~550 MB); a new helper costs ~0.05 s of CPU (~200 M
# instructions), collecting the engine's cycles ~0.2 s an evaluation. A helper leaves
# by ``os._exit``: the interpreter's teardown would run the engine's thread-local destructors,
# which collect every cycle the evaluations left (~0.2 s a helper, a quarter of its CPU).
RETIRE_MIB = 64


def _address_space_now() -> int:
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _bound(kind: int, soft: int) -> None:
    _, hard = resource.getrlimit(kind)
    resource.setrlimit(kind, (soft if hard == resource.RLIM_INFINITY else min(soft, hard), hard))


def serve() -> None:
    """The helper's loop: one length-prefixed pickled request in, one reply out, until EOF."""
    requests, replies = sys.stdin.buffer, os.fdopen(os.dup(1), "wb")
    # what the called code prints is captured per call and sent with the reply; an abort
    # message of a dying helper goes nowhere
    capture = os.fdopen(os.memfd_create("captured"), "w+b")
    os.dup2(capture.fileno(), 1)
    os.dup2(capture.fileno(), 2)
    faulthandler.disable()
    baseline = _address_space_now()
    while True:
        header = requests.read(8)
        if len(header) < 8:
            os._exit(0)
        target, args, (cpu_seconds, memory_mib) = pickle.loads(requests.read(int.from_bytes(header, "big")))
        used = resource.getrusage(resource.RUSAGE_SELF)
        _bound(resource.RLIMIT_CPU, math.ceil(used.ru_utime + used.ru_stime) + cpu_seconds)
        before = _address_space_now()
        _bound(resource.RLIMIT_AS, before + memory_mib * MIB)
        capture.seek(0)
        capture.truncate()
        try:
            module, _, name = target.partition(":")
            reply = ("ok", getattr(importlib.import_module(module), name)(*args))
        except MemoryError:
            reply = ("memory", None)
        except Exception as exc:  # noqa: BLE001 - re-raised by the caller
            reply = ("error", exc)
        capture.seek(0)
        # retire now if another call like this one would take the growth past the bound
        after = _address_space_now()
        retiring = (after - baseline) + (after - before) > RETIRE_MIB * MIB
        payload = pickle.dumps((*reply, capture.read(), retiring))
        replies.write(len(payload).to_bytes(8, "big") + payload)
        replies.flush()
        if retiring:
            os._exit(0)
