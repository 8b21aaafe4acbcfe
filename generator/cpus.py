"""How many CPUs this process may really use: the default of ``--jobs``.

``os.cpu_count()`` counts the machine; a container or CI runner is usually allowed fewer, by CPU
affinity (``taskset``, cpusets) or by a CFS quota (Kubernetes CPU limits, ``docker --cpus``).
More workers than that only add scheduling and memory cost.

May import: nothing of generator.
"""

from __future__ import annotations

import math
import os

# text paths, joined with os.path: the lint's default --jobs reads these, and lint imports no pathlib
CGROUP_ROOT = "/sys/fs/cgroup"
PROC_CGROUP = "/proc/self/cgroup"


def _affinity() -> int:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _own_cgroup(proc_cgroup: str | os.PathLike[str]) -> tuple[str, dict[str, str]]:
    """This process's cgroup v2 path and its v1 paths per controller, from /proc/self/cgroup."""
    v2, v1 = "", {}
    with open(proc_cgroup, encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    for line in lines:
        _id, controllers, path = line.split(":", 2)
        if controllers == "":
            v2 = path
        for controller in controllers.split(","):
            v1[controller] = path
    return v2, v1


def _quota(root: str | os.PathLike[str], proc_cgroup: str | os.PathLike[str]) -> float | None:
    """CPUs granted by a CFS quota (cgroup v2 ``cpu.max``, else v1 ``cpu.cfs_quota_us``), if any.

    A quota can be set on any ancestor; the tightest one counts.
    """
    try:
        v2, v1 = _own_cgroup(proc_cgroup)
    except (OSError, ValueError):
        return None
    limits = []
    for folder in _ancestors(root, v2):
        text = _read(os.path.join(folder, "cpu.max"))
        if text and not text.startswith("max"):
            quota, period = text.split()[:2]
            limits.append(int(quota) / int(period))
    if "cpu" in v1:
        for folder in _ancestors(os.path.join(root, "cpu"), v1["cpu"]) + _ancestors(
            os.path.join(root, "cpu,cpuacct"), v1["cpu"]
        ):
            quota = _read(os.path.join(folder, "cpu.cfs_quota_us"))
            period = _read(os.path.join(folder, "cpu.cfs_period_us"))
            if quota and period and int(quota) > 0:
                limits.append(int(quota) / int(period))
    return min(limits) if limits else None


def _ancestors(root: str | os.PathLike[str], path: str) -> list[str]:
    parts = [p for p in path.split("/") if p and p != ".."]
    return [os.path.join(root, *parts[:i]) for i in range(len(parts), -1, -1)]


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read().strip()
    except OSError:
        return ""


def available(root: str | os.PathLike[str] = CGROUP_ROOT, proc_cgroup: str | os.PathLike[str] = PROC_CGROUP) -> int:
    """CPUs this process may use: its affinity mask, capped by a cgroup CPU quota (rounded up)."""
    count = _affinity()
    quota = _quota(root, proc_cgroup)
    if quota is not None:
        count = min(count, max(1, math.ceil(quota)))
    return max(1, count)
