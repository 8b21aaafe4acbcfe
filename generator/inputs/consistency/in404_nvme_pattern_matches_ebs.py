"""A ``localNvme.diskIdPattern`` that matches an EBS volume's name.

Rationale: on Nitro instances EBS volumes are NVMe disks too, named
``nvme-Amazon_Elastic_Block_Store_vol<id>`` under ``/dev/disk/by-id`` (AWS docs, "Amazon EBS
and NVMe"); a pattern that matches them would have the preparation step format CSI volumes,
and the provisioner wipe them on release. The instance-store disks' model is ``Amazon EC2 NVMe
Instance Storage``.

Fix: name the instance-store model: ``nvme-Amazon_EC2_NVMe_Instance_Storage_*``.

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: eks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: gpu
        nodeSelector: {eks.amazonaws.com/nodegroup: gpu}
        localNvme: {storageClass: local-nvme, diskIdPattern: nvme-Amazon_EC2_NVMe_Instance_Storage_*}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: eks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: gpu
        nodeSelector: {eks.amazonaws.com/nodegroup: gpu}
        localNvme: {storageClass: local-nvme, diskIdPattern: nvme-Amazon_*}
"""

from __future__ import annotations

from collections.abc import Iterator
from fnmatch import fnmatchcase

from generator.errors import InputError
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta("IN404", "nvme-pattern-matches-ebs", "error", "A localNvme.diskIdPattern matches EBS volumes", __doc__)

# /dev/disk/by-id name of an EBS volume (model "Amazon Elastic Block Store", serial vol<id>).
EBS_DISK_ID = "nvme-Amazon_Elastic_Block_Store_vol0123456789abcdef0"


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, pool in enumerate(spec["nodePools"]):
        nvme = pool.get("localNvme")
        pattern = nvme.get("diskIdPattern") if nvme else None
        if pattern is None or not fnmatchcase(EBS_DISK_ID, pattern):
            continue
        base = ("nodePools", i, "localNvme")
        where = base + ("diskIdPattern",) if "diskIdPattern" in doc.data["nodePools"][i]["localNvme"] else base
        yield doc.error(
            f"diskIdPattern {pattern!r} matches EBS volumes ({EBS_DISK_ID}): they are NVMe disks on Nitro "
            "instances and would be formatted",
            where,
            "name the instance-store model: nvme-Amazon_EC2_NVMe_Instance_Storage_*",
            at_value=True,
        )


CHECK = InputCheck(meta=META, check=check)
