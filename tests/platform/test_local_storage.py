"""Local NVMe as rendered: the provisioner's class map, the StorageClass, RBAC and disk preparation."""

from __future__ import annotations

import re

import pytest
import yaml
from clusterinput import BASE, objects, replace, write


def storage(root) -> dict[tuple[str, str], dict]:
    return {(o["kind"], o["metadata"]["name"]): o for o in objects(root, "t")["local-storage"]}


def class_map(rendered) -> dict:
    return yaml.safe_load(rendered[("ConfigMap", "local-provisioner-gpu")]["data"]["storageClassMap"])


def test_filesystem_class(project):
    write(project, BASE)
    rendered = storage(project)
    assert class_map(rendered) == {
        "local-nvme": {
            "hostDir": "/mnt/disks/local-nvme",
            "mountDir": "/mnt/disks/local-nvme",
            "volumeMode": "Filesystem",
            "fsType": "xfs",
            "namePattern": "[^.]*",  # not the dot-names prepare-disks.sh builds links under
        }
    }
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
    assert env == {
        "DISK_ID_PATTERN": "nvme-SAMSUNG_MZWLR3T8HBLS-00007_*",
        "MODE": "Filesystem",
        "FS_TYPE": "xfs",
        "HOST_DIR": "/mnt/disks/local-nvme",
        "FORCE": "false",
        "FEATURE_FILE": "/etc/kubernetes/node-feature-discovery/features.d/gpu-gitops-local-nvme",
    }
    mounts = {m["mountPath"]: m for m in init["volumeMounts"]}
    assert mounts["/mnt/disks/local-nvme"]["mountPropagation"] == "Bidirectional"
    assert pod["hostPID"] is True  # reads the host's mount table through PID 1
    # the NFD worker reads the feature file from the host (chart templates/worker.yaml: features-d)
    (features,) = [
        v for v in pod["volumes"] if v["name"] == mounts["/etc/kubernetes/node-feature-discovery/features.d"]["name"]
    ]
    assert features["hostPath"]["path"] == "/etc/kubernetes/node-feature-discovery/features.d"


def test_prepare_runs_on_every_pool_node_and_the_provisioner_only_where_disks_were_prepared(project):
    """The prepare pod finds the disks, so it cannot wait for the label it reports; the provisioner does."""
    write(project, BASE)
    rendered = storage(project)
    prepare = rendered[("DaemonSet", "prepare-disks-gpu")]["spec"]["template"]["spec"]["nodeSelector"]
    provisioner = rendered[("DaemonSet", "local-provisioner-gpu")]["spec"]["template"]["spec"]["nodeSelector"]
    assert prepare == {"agentpool": "gpu"}
    assert provisioner == {"agentpool": "gpu", "feature.node.kubernetes.io/local-nvme": "true"}
    write(project, replace("prepare: {enabled: true}", "prepare: {enabled: false}"))
    provisioner = storage(project)[("DaemonSet", "local-provisioner-gpu")]["spec"]["template"]["spec"]["nodeSelector"]
    assert provisioner == {"agentpool": "gpu"}  # nothing reports the disks: the pool's labels only


@pytest.mark.parametrize(
    "provider,pattern",
    [("eks", "nvme-Amazon_EC2_NVMe_Instance_Storage_*"), ("aks", "nvme-Microsoft_NVMe_Direct_Disk_*")],
)
def test_provider_default_selects_instance_storage_by_model(project, provider, pattern):
    text = replace("      diskIdPattern: nvme-SAMSUNG_MZWLR3T8HBLS-00007_*\n", "")
    text = text[: text.index("network:")] + "network: {cilium: {enabled: false}}\n" + text[text.index("nodePools:") :]
    write(project, text.replace("provider: generic", f"provider: {provider}"))
    env = {
        e["name"]: e["value"]
        for e in storage(project)[("DaemonSet", "prepare-disks-gpu")]["spec"]["template"]["spec"]["initContainers"][0][
            "env"
        ]
    }
    assert env["DISK_ID_PATTERN"] == pattern


def test_no_local_nvme_renders_nothing(project):
    write(project, BASE[: BASE.index("    localNvme:")])
    assert objects(project, "t")["local-storage"] == []


def located_error(run, project, text: str) -> tuple[int, str, str]:
    """The first located error of rendering `text`: (line, message, hint)."""
    write(project, text)
    result = run(project, "render", "t")
    assert result.exit_code == 2, result.output
    found = re.findall(r"clusters/t/cluster\.yaml:(\d+):\d+: error: (.*)\n  hint: (.*)", result.output)
    assert found, result.output
    line, message, hint = found[0]
    return int(line), message, hint


def line_of(text: str, fragment: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if fragment in line)


def test_preparation_without_a_disk_pattern_and_no_provider_default_is_an_input_error(project, run):
    text = replace("      diskIdPattern: nvme-SAMSUNG_MZWLR3T8HBLS-00007_*\n", "")
    line, message, hint = located_error(run, project, text)
    assert line == line_of(text, "prepare: {enabled: true}")
    assert "needs localNvme.diskIdPattern" in message
    assert "/dev/disk/by-id" in hint


@pytest.mark.parametrize("pattern", ["nvme-*", "'*'", "nvme-Amazon_*"])
def test_a_disk_pattern_that_matches_ebs_volumes_is_an_input_error(project, run, pattern):
    text = replace("diskIdPattern: nvme-SAMSUNG_MZWLR3T8HBLS-00007_*", f"diskIdPattern: {pattern}")
    line, message, hint = located_error(run, project, text)
    assert line == line_of(text, "diskIdPattern:")
    assert "matches EBS volumes" in message
    assert "nvme-Amazon_EC2_NVMe_Instance_Storage_*" in hint
