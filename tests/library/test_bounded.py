"""Functions run in the bounded helper: their value, their exception, or which bound stopped them."""

from __future__ import annotations

import fcntl
import os
import signal
import time
from pathlib import Path

import pytest

from generator.library import bounded

LIMITS = bounded.Limits(cpu_seconds=5, memory_mib=256)
HERE = "tests.library.test_bounded"


def echo(value):
    return value


def fail(message):
    raise RuntimeError(message)


def allocate(mib):
    return len(bytearray(mib * 1024 * 1024))


def spin():
    while True:
        pass


def sleep(seconds):
    time.sleep(seconds)


def die(sig):
    os.kill(os.getpid(), sig)


def chatty(text):
    os.write(2, text.encode())
    return 1


def dying(text):
    os.write(2, text.encode())
    os.abort()


def pid():
    return os.getpid()


def helper():
    """The helper's pid: the parent of the process that runs a call."""
    return os.getppid()


def sleep_noted(path, seconds):
    """Write this call's pid to ``path``, then sleep."""
    Path(path).write_text(str(os.getpid()), encoding="ascii")
    time.sleep(seconds)


_held: list[bytearray] = []


def hold(mib):
    """Keep ``mib`` MiB of address space in the helper until ``release``."""
    _held.append(bytearray(mib * 1024 * 1024))
    return os.getpid()


def release():
    _held.clear()


def note_at_exit(path):
    """Write ``path`` when the helper's interpreter is torn down, as the engine's thread-local
    destructors run then (collecting every cycle the evaluations left)."""
    import atexit

    atexit.register(Path(path).write_text, "torn down")
    return os.getpid()


def peak_mib():
    """The helper's own peak resident size (VmHWM). Not ``ru_maxrss``: Linux keeps that across
    exec, so a helper started by a large process reports its parent's size at the fork."""
    with open("/proc/self/status", encoding="utf-8") as status:
        line = next(line for line in status if line.startswith("VmHWM:"))
    return int(line.split()[1]) // 1024


def test_value_comes_back():
    assert bounded.run(f"{HERE}:echo", ({"a": [1, "x" * 100_000]},), LIMITS) == {"a": [1, "x" * 100_000]}


def test_exception_is_raised_in_the_caller():
    with pytest.raises(RuntimeError, match="from the helper"):
        bounded.run(f"{HERE}:fail", ("from the helper",), LIMITS)


def test_memory_bound_and_the_helper_survives_it():
    with pytest.raises(bounded.Bound) as caught:
        bounded.run(f"{HERE}:allocate", (512,), LIMITS)
    assert caught.value.which == "memory"
    assert bounded.run(f"{HERE}:allocate", (16,), LIMITS) == 16 * 1024 * 1024


def test_cpu_bound_is_per_call_and_a_new_helper_takes_over():
    before = bounded.run(f"{HERE}:helper", (), LIMITS)
    with pytest.raises(bounded.Bound) as caught:
        bounded.run(f"{HERE}:spin", (), bounded.Limits(cpu_seconds=1, memory_mib=256))
    assert caught.value.which == "cpu"
    assert bounded.run(f"{HERE}:helper", (), LIMITS) != before


def test_cpu_already_used_by_the_helper_does_not_count_against_a_call():
    for _ in range(3):
        assert bounded.run(f"{HERE}:allocate", (64,), bounded.Limits(cpu_seconds=1, memory_mib=256))


def test_a_crash_is_not_mistaken_for_a_bound():
    with pytest.raises(bounded.Bound) as caught:
        bounded.run(f"{HERE}:die", (signal.SIGTERM,), LIMITS)
    assert (caught.value.which, caught.value.detail) == ("crash", "SIGTERM")


def test_what_the_helper_prints_on_stderr_is_passed_on(capsys):
    assert bounded.run(f"{HERE}:chatty", ("TRACE: overrides.libsonnet:3 look here\n",), LIMITS) == 1
    assert capsys.readouterr().err == "TRACE: overrides.libsonnet:3 look here\n"


def test_what_a_dying_helper_prints_is_dropped(capfd):
    with pytest.raises(bounded.Bound):
        bounded.run(f"{HERE}:dying", ("memory allocation of 1024 bytes failed\n",), LIMITS)
    assert capfd.readouterr().err == ""


def test_a_forked_process_gets_its_own_helper():
    mine = bounded.run(f"{HERE}:helper", (), LIMITS)
    child = os.fork()
    if child == 0:
        os._exit(0 if bounded.run(f"{HERE}:helper", (), LIMITS) != mine else 1)
    assert os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]) == 0
    assert bounded.run(f"{HERE}:helper", (), LIMITS) == mine


def test_each_call_runs_in_a_process_of_its_own_forked_from_one_helper():
    """One helper started for many calls (an interpreter's start each cost ~35 ms of CPU)."""
    helpers = {bounded.run(f"{HERE}:helper", (), LIMITS) for _ in range(3)}
    calls = {bounded.run(f"{HERE}:pid", (), LIMITS) for _ in range(3)}
    assert len(helpers) == 1 and os.getpid() not in helpers
    assert len(calls) == 3 and not calls & helpers


def test_the_helper_imports_this_package_whatever_the_working_folder_holds(tmp_path):
    """A project folder may hold a ``generator`` package of its own."""
    (tmp_path / "generator").mkdir()
    (tmp_path / "generator" / "__init__.py").write_text("raise ImportError('not the renderer')\n", encoding="utf-8")
    child = os.fork()
    if child == 0:
        os.chdir(tmp_path)
        try:
            os._exit(0 if bounded.run(f"{HERE}:echo", ("served",), LIMITS) == "served" else 1)
        except BaseException:  # noqa: BLE001 - the child reports by its exit status only
            os._exit(1)
    assert os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]) == 0


def test_what_a_call_leaves_is_gone_before_the_next_call():
    """The engine frees nothing an evaluation allocates: the next call starts from the
    helper's size, so its memory bound is all its own."""
    bounded.run(f"{HERE}:hold", (200,), LIMITS)
    assert bounded.run(f"{HERE}:allocate", (200,), LIMITS) == 200 * 1024 * 1024


def test_a_calls_process_exits_without_tearing_its_interpreter_down(tmp_path):
    """A call's memory is the OS's to take back: the teardown (the engine collects every
    cycle it left, ~0.2 s an evaluation) would only cost CPU, and the caller waits for it."""
    marker = tmp_path / "torn-down"
    bounded.run(f"{HERE}:note_at_exit", (str(marker),), LIMITS)
    bounded.run(f"{HERE}:pid", (), LIMITS)
    assert not marker.exists()


def test_calls_that_each_leave_memory_behind_keep_the_helper_under_150_mb():
    """As Jsonnet evaluations do (the engine frees nothing, ``gc=False``): a fleet's render stays flat."""
    peaks = []
    for _ in range(12):  # 360 MiB left behind in all
        bounded.run(f"{HERE}:hold", (30,), LIMITS)
        peaks.append(bounded.run(f"{HERE}:peak_mib", (), LIMITS))
    assert max(peaks) < 150, peaks
    bounded.run(f"{HERE}:release", (), LIMITS)


def test_a_call_that_uses_no_cpu_is_stopped_at_the_wall_clock_bound(tmp_path):
    """Sleeping uses no CPU time: only the wall-clock bound can stop it, and it stops the
    call's process with its helper."""
    before = bounded.run(f"{HERE}:helper", (), LIMITS)
    noted = tmp_path / "pid"
    with pytest.raises(bounded.Bound) as caught:
        bounded.run(f"{HERE}:sleep_noted", (str(noted), 3600), bounded.Limits(60, 256, wall_seconds=1))
    assert caught.value.which == "wall"
    assert bounded.run(f"{HERE}:helper", (), LIMITS) != before
    call = Path("/proc", noted.read_text(encoding="ascii"), "status")
    for _ in range(100):  # the kernel delivers the helper's death to its child
        if _gone(call):
            break
        time.sleep(0.05)
    else:
        pytest.fail("the call outlived its helper")


def _gone(status: Path) -> bool:
    """Whether the process of ``/proc/<pid>/status`` has exited (reaped, or a zombie)."""
    try:
        return "State:\tZ" in status.read_text(encoding="ascii")
    except FileNotFoundError:
        return True


def test_the_pipes_to_the_helper_take_a_large_reply_in_few_turns():
    """A reply of 16 clusters is ~6 MB: through 64 KiB pipes, a hundred turns of both processes."""
    bounded.run(f"{HERE}:pid", (), LIMITS)
    assert bounded._helper is not None
    helper = bounded._helper[1]
    for pipe in (helper.stdin, helper.stdout):
        assert pipe is not None
        assert fcntl.fcntl(pipe.fileno(), fcntl.F_GETPIPE_SZ) == bounded.PIPE_BYTES
