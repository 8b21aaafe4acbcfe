"""Node tuning facts the tuning checks share: which sysctls are namespaced, the ranges the kernel
accepts, and the MachineConfigPool through which a pool's TuneD kernel arguments reach it.

- A namespaced sysctl (``net.ipv4.*``, ``kernel.shm*``, ``kernel.msg*``, ``kernel.sem``,
  ``fs.mqueue.*``, most of ``net.*``) exists once per namespace; ``net.core.rmem_max`` and the
  keys in ``NODE_LEVEL_NET`` are node-wide.
- TuneD kernel arguments reach nodes through their MachineConfigPool, found from the pool's
  ``node-role.kubernetes.io/<role>`` selector label; only ``master`` and ``worker`` are built in.
"""

from __future__ import annotations

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


def as_int(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value.strip())
    return None


def mcp_roles(pool: dict) -> list[str]:
    """The MachineConfigPool roles the pool's nodeSelector names, sorted."""
    return sorted(key.removeprefix(MCP_ROLE_PREFIX) for key in pool["nodeSelector"] if key.startswith(MCP_ROLE_PREFIX))


def tuned_reserves_hugepages(spec: dict, pool: dict) -> bool:
    """Whether the tuned backend puts huge pages of this pool on the kernel command line: every
    2Mi page, and the 1Gi pages the node image does not reserve itself (``bootReserved``)."""
    pages = pool.get("hugepages")
    if spec["tuning"]["backend"] != "tuned" or not pages:
        return False
    return bool(pages["2Mi"] or (pages["1Gi"] and not pages["bootReserved"]))
