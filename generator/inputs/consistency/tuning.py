"""Node tuning: sysctls that belong on the node, in range, and huge pages the backend can deliver.

- A namespaced sysctl (``net.ipv4.*``, ``kernel.shm*``, ``kernel.msg*``, ``kernel.sem``,
  ``fs.mqueue.*``, most of ``net.*``) set on the node changes only the host's namespace, not the
  pods': it belongs in the pod's ``securityContext.sysctls``. ``net.core.rmem_max`` and friends
  are node-wide and fine here.
- ``vm.nr_hugepages`` counts pages of the default size only: huge pages go in ``hugepages``.
- Values outside what the kernel accepts (``kernel.pid_max`` above 4194304 is refused with EINVAL).
- 1Gi pages at runtime: allocation needs 1 GiB of contiguous free memory and fails on a node that
  has run for a while, so with the DaemonSet backend they must be reserved at boot by the node
  image (``bootReserved``, then only checked) or through TuneD's ``[bootloader]``.
- The tuned backend reserves all huge pages (2Mi too) on the kernel command line, so the kubelet
  counts them from its start.
- TuneD kernel arguments reach nodes through their MachineConfigPool, found from the pool's
  ``node-role.kubernetes.io/<role>`` selector label. That pool must exist: only ``master`` and
  ``worker`` are built in, others must be created and listed in ``tuning.machineConfigPools``
  (a Tuned whose ``machineConfigLabels`` match no pool applies to no node, silently).
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.yamlio.positions import Located

# Keys under net.* that are node-wide (not per network namespace).
NODE_LEVEL_NET = frozenset(
    {
        "net.core.rmem_max",
        "net.core.wmem_max",
        "net.core.rmem_default",
        "net.core.wmem_default",
        "net.core.optmem_max",
        "net.core.netdev_max_backlog",
        "net.core.netdev_budget",
        "net.core.netdev_budget_usecs",
        "net.core.dev_weight",
        "net.core.default_qdisc",
        "net.core.busy_poll",
        "net.core.busy_read",
        "net.core.rps_sock_flow_entries",
        "net.netfilter.nf_conntrack_max",
        "net.nf_conntrack_max",
        "net.ipv4.tcp_mem",
        "net.ipv4.udp_mem",
    }
)
NAMESPACED_PREFIXES = ("kernel.shm", "kernel.msg", "fs.mqueue.", "net.")
NAMESPACED_KEYS = frozenset({"kernel.sem"})

INT_MAX = 2**31 - 1
# (lowest, highest) the kernel accepts, for keys with a known integer range.
RANGES = {
    "kernel.pid_max": (301, 4194304),  # PID_MAX_LIMIT on 64-bit (include/linux/threads.h)
    "kernel.threads-max": (20, 1073741823),  # FUTEX_TID_MASK
    "fs.file-max": (8192, 2**63 - 1),
    "fs.nr_open": (1024, 1073741816),  # sysctl_nr_open_max on 64-bit
    "fs.inotify.max_user_watches": (1, INT_MAX),
    "fs.inotify.max_user_instances": (1, INT_MAX),
    "vm.max_map_count": (1, INT_MAX),
    "vm.swappiness": (0, 200),
    "net.core.rmem_max": (4608, INT_MAX),
    "net.core.wmem_max": (4608, INT_MAX),
    "net.core.rmem_default": (4608, INT_MAX),
    "net.core.wmem_default": (4608, INT_MAX),
    "net.core.netdev_max_backlog": (1, INT_MAX),
}
HUGEPAGE_KEYS = frozenset({"vm.nr_hugepages", "vm.nr_hugepages_mempolicy", "vm.nr_overcommit_hugepages"})
MCP_ROLE_PREFIX = "node-role.kubernetes.io/"
BUILTIN_MACHINE_CONFIG_POOLS = frozenset({"master", "worker"})


def is_namespaced(key: str) -> bool:
    if key in NODE_LEVEL_NET:
        return False
    return key in NAMESPACED_KEYS or key.startswith(NAMESPACED_PREFIXES)


def _as_int(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value.strip())
    return None


def _check_sysctls(i: int, pool: dict, doc: Located) -> Iterator[InputError]:
    for key, value in pool["sysctls"].items():
        path = ("nodePools", i, "sysctls", key)
        if is_namespaced(key):
            yield doc.error(
                f"{key} is a namespaced sysctl: set on the node it changes only the host's namespace, not the pods'",
                path,
                "set it in the pod's securityContext.sysctls (unsafe ones also need the kubelet's "
                "--allowed-unsafe-sysctls); nodePools[].sysctls is for node-level keys",
            )
        elif key in HUGEPAGE_KEYS:
            yield doc.error(
                f"{key} counts huge pages of the default size only",
                path,
                f"remove it and set nodePools[{i}].hugepages (2Mi / 1Gi page counts) instead",
            )
        elif key in RANGES:
            low, high = RANGES[key]
            number = _as_int(value)
            if number is None:
                yield doc.error(
                    f"{key} must be an integer, not {value!r}",
                    path,
                    f"use a whole number between {low} and {high}",
                    at_value=True,
                )
            elif not low <= number <= high:
                yield doc.error(
                    f"{key} = {number} is out of range: the kernel accepts {low}..{high}",
                    path,
                    f"use a value between {low} and {high}",
                    at_value=True,
                )


def _check_hugepages(i: int, pool: dict, backend: str, known_pools: list[str], doc: Located) -> Iterator[InputError]:
    pages = pool.get("hugepages")
    runtime_1gi = bool(pages and pages["1Gi"] and not pages["bootReserved"])
    # the tuned backend puts every page on the kernel command line, 2Mi too
    if not (runtime_1gi or (backend == "tuned" and pages and pages["2Mi"])):
        return
    assert pages  # both ways past the return above need them
    path = ("nodePools", i, "hugepages", "1Gi")
    if backend == "daemonset":
        yield doc.error(
            f"nodePools[{i}] asks for {pages['1Gi']} 1Gi huge pages at runtime: the DaemonSet backend cannot "
            "reserve them reliably (1 GiB of contiguous memory per page is rarely free after boot)",
            path,
            "reserve them at boot: use tuning.backend: tuned (TuneD [bootloader] hugepagesz=1G hugepages=N), "
            "or put them on the node image's kernel command line and set hugepages.bootReserved: true "
            "(then they are only checked)",
            at_value=True,
        )
    elif not (
        roles := sorted(
            key.removeprefix(MCP_ROLE_PREFIX) for key in pool["nodeSelector"] if key.startswith(MCP_ROLE_PREFIX)
        )
    ):
        yield doc.error(
            f"nodePools[{i}] reserves huge pages through TuneD [bootloader], which reaches nodes through "
            "their MachineConfigPool, but its nodeSelector names no node-role.kubernetes.io/<role> label",
            ("nodePools", i, "nodeSelector"),
            "select the pool by its MachineConfigPool role, e.g. nodeSelector: "
            '{node-role.kubernetes.io/worker-gpu: ""}',
        )
    elif roles[0] not in BUILTIN_MACHINE_CONFIG_POOLS | set(known_pools):
        yield doc.error(
            f"nodePools[{i}] reserves huge pages through the MachineConfigPool {roles[0]!r}, which is "
            "neither built in (master, worker) nor listed in tuning.machineConfigPools: if it does not "
            "exist the Tuned profile applies to no node",
            ("nodePools", i, "nodeSelector", MCP_ROLE_PREFIX + roles[0]),
            f"create the MachineConfigPool {roles[0]} (machineConfigSelector: role in [worker, {roles[0]}], "
            f"nodeSelector: node-role.kubernetes.io/{roles[0]}) and add it to tuning.machineConfigPools",
        )


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    backend = spec["tuning"]["backend"]
    for i, pool in enumerate(spec["nodePools"]):
        yield from _check_sysctls(i, pool, doc)
        yield from _check_hugepages(i, pool, backend, spec["tuning"]["machineConfigPools"], doc)
