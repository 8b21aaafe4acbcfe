"""A sysctl whose value is no integer, or out of the range the kernel accepts.

Rationale: the kernel refuses a value outside a key's range with ``EINVAL`` (``kernel.pid_max``
above ``PID_MAX_LIMIT``, 4194304 on 64-bit, include/linux/threads.h; ``fs.nr_open`` above
``sysctl_nr_open_max``; ``vm.swappiness`` above 200), so the tuning step fails on every node of
the pool. Keys with a known integer range are checked.

Fix: use a whole number in the range the message gives.

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: gpu
        nodeSelector: {agentpool: gpu}
        sysctls: {kernel.pid_max: "4194304"}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: gpu
        nodeSelector: {agentpool: gpu}
        sysctls: {kernel.pid_max: "8388608"}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.protocol import InputCheck
from generator.inputs.tuning import HUGEPAGE_KEYS, RANGES, as_int, is_namespaced
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta("IN410", "sysctl-out-of-range", "error", "A sysctl value the kernel refuses", __doc__)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, pool in enumerate(spec["nodePools"]):
        for key, value in pool["sysctls"].items():
            if key not in RANGES or is_namespaced(key) or key in HUGEPAGE_KEYS:
                continue
            low, high = RANGES[key]
            number = as_int(value)
            path = ("nodePools", i, "sysctls", key)
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


CHECK = InputCheck(meta=META, check=check)
