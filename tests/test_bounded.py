"""A function run in a bounded child: its value, its exception, or which bound stopped it."""

from __future__ import annotations

import os
import signal

import pytest

from generator import bounded

LIMITS = bounded.Limits(cpu_seconds=5, memory_mib=256)


def test_value_comes_back():
    assert bounded.run(lambda: {"a": [1, "x" * 100_000]}, LIMITS) == {"a": [1, "x" * 100_000]}


def test_exception_is_raised_in_the_caller():
    def fail():
        raise RuntimeError("from the child")

    with pytest.raises(RuntimeError, match="from the child"):
        bounded.run(fail, LIMITS)


def test_memory_bound():
    with pytest.raises(bounded.Bound) as caught:
        bounded.run(lambda: len(bytearray(512 * 1024 * 1024)), LIMITS)
    assert caught.value.which == "memory"


def test_a_crash_is_not_mistaken_for_a_bound():
    with pytest.raises(bounded.Bound) as caught:
        bounded.run(lambda: os.kill(os.getpid(), signal.SIGTERM), LIMITS)
    assert (caught.value.which, caught.value.detail) == ("crash", "SIGTERM")


def test_the_child_leaves_the_callers_state_alone():
    state = {"n": 0}

    def bump():
        state["n"] += 1
        return state["n"]

    assert bounded.run(bump, LIMITS) == 1
    assert state == {"n": 0}


def test_what_the_child_prints_on_stderr_is_passed_on(capsys):
    def chatty():
        os.write(2, b"TRACE: overrides.libsonnet:3 look here\n")
        return 1

    assert bounded.run(chatty, LIMITS) == 1
    assert capsys.readouterr().err == "TRACE: overrides.libsonnet:3 look here\n"


def test_what_a_dying_child_prints_is_dropped(capfd):
    def dying():
        os.write(2, b"memory allocation of 1024 bytes failed\n")
        os.abort()

    with pytest.raises(bounded.Bound):
        bounded.run(dying, LIMITS)
    assert capfd.readouterr().err == ""
