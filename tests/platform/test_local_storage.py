"""Local NVMe as rendered: the provisioner's class map, the StorageClass, RBAC and disk preparation."""

from __future__ import annotations

import yaml
from clusterinput import BASE, objects, replace, write


def storage(root) -> dict[tuple[str, str], dict]:
    return {(o["kind"], o["metadata"]["name"]): o for o in objects(root, "t")["local-storage"]}


def class_map(rendered) -> dict:
    return yaml.safe_load(rendered[("ConfigMap", "local-provisioner-gpu")]["data"]["storageClassMap"])


def test_filesystem_class(project):
    write(project, BASE)
    rendered = storage(project)
    assert class_map(rendered) == {"local-nvme": {
        "hostDir": "/mnt/disks/local-nvme", "mountDir": "/mnt/disks/local-nvme",
        "volumeMode": "Filesystem", "fsType": "xfs", "namePattern": "*"}}
    sc = rendered[("StorageClass", "local-nvme")]
    assert (sc["provisioner"], sc["volumeBindingMode"]) == ("kubernetes.io/no-provisioner", "WaitForFirstConsumer")


def test_block_class_gets_its_cleaner(project):
    write(project, replace("      mode: Filesystem\n", "      mode: Block\n      blockCleaner: shred\n"))
    entry = class_map(storage(project))["local-nvme"]
    assert entry["volumeMode"] == "Block"
    assert entry["blockCleanerCommand"] == ["/scripts/shred.sh", "2"]
    assert "fsType" not in entry


def test_provisioner_sees_mounts_made_after_it_started(project):
    write(project, BASE)
    pod = storage(project)[("DaemonSet", "local-provisioner-gpu")]["spec"]["template"]["spec"]
    mounts = {m["mountPath"]: m for m in pod["containers"][0]["volumeMounts"]}
    assert mounts["/mnt/disks/local-nvme"]["mountPropagation"] == "HostToContainer"
    assert "/dev" in mounts
    assert pod["serviceAccountName"] == "local-volume-provisioner"


def test_rbac_is_upstreams_minimum(project):
    write(project, BASE)
    rendered = storage(project)
    pv = rendered[("ClusterRoleBinding", "local-volume-provisioner-pv")]
    assert pv["roleRef"]["name"] == "system:persistent-volume-provisioner"
    node_role = rendered[("ClusterRole", "local-volume-provisioner-node")]
    assert node_role["rules"] == [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["get"]}]
    assert not [key for key in rendered if key[0] in ("Role", "RoleBinding")]


def test_disk_preparation_is_opt_in_and_mounts_back_to_the_host(project):
    write(project, replace("prepare: {enabled: true}", "prepare: {enabled: false}"))
    assert ("DaemonSet", "prepare-disks-gpu") not in storage(project)
    write(project, BASE)
    ds = storage(project)[("DaemonSet", "prepare-disks-gpu")]
    pod = ds["spec"]["template"]["spec"]
    init = pod["initContainers"][0]
    env = {e["name"]: e["value"] for e in init["env"]}
    assert env == {"DEVICE_PATTERN": "/dev/nvme[0-7]n1", "MODE": "Filesystem", "FS_TYPE": "xfs",
                   "HOST_DIR": "/mnt/disks/local-nvme", "FORCE": "false"}
    mounts = {m["mountPath"]: m for m in init["volumeMounts"]}
    assert mounts["/mnt/disks/local-nvme"]["mountPropagation"] == "Bidirectional"
    assert pod["hostPID"] is True  # reads the host's mount table through PID 1


def test_no_local_nvme_renders_nothing(project):
    write(project, BASE[:BASE.index("    localNvme:")])
    assert objects(project, "t")["local-storage"] == []
