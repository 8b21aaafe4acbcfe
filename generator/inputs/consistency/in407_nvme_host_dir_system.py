"""``localNvme.hostDir`` is a system directory of the node.

Rationale: the preparation step mounts each local disk under ``hostDir`` and the static
provisioner publishes what it finds there as volumes. Over ``/``, ``/mnt``, ``/var/lib/kubelet``
or another system directory the mounts would hide what the node keeps there (the kubelet's pod
volumes, the OS's files) and the provisioner would offer its subfolders as volumes.

Fix: use a directory of its own, e.g. ``/mnt/disks/<storageClass>``.

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
        localNvme: {storageClass: local-nvme, hostDir: /mnt/disks/local-nvme}

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
        localNvme: {storageClass: local-nvme, hostDir: /var/lib/kubelet}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta("IN407", "nvme-host-dir-system", "error", "localNvme.hostDir is a system directory", __doc__)

SYSTEM_DIRS = frozenset(
    {
        "/",
        "/bin",
        "/boot",
        "/dev",
        "/etc",
        "/home",
        "/lib",
        "/lib64",
        "/mnt",
        "/opt",
        "/proc",
        "/root",
        "/run",
        "/sbin",
        "/sys",
        "/tmp",
        "/usr",
        "/var",
        "/var/lib",
        "/var/lib/kubelet",
    }
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, pool in enumerate(spec["nodePools"]):
        nvme = pool.get("localNvme")
        if nvme and (nvme["hostDir"].rstrip("/") in SYSTEM_DIRS or nvme["hostDir"] == "/"):
            yield doc.error(
                f"hostDir {nvme['hostDir']!r} is a system directory: disks would be mounted over it",
                ("nodePools", i, "localNvme", "hostDir"),
                f"use a directory of its own, e.g. /mnt/disks/{nvme['storageClass']}",
                at_value=True,
            )


CHECK = InputCheck(meta=META, check=check)
