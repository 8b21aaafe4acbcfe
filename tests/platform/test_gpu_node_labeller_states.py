"""gpu-node-config's label pass (scripts/label-gpu-node.sh, as rendered) run for real against a
fake API server, through the states a GPU node's labels go through over time: mig-manager
partitioning (nvidia.com/mig.config.state), the driver manager pausing the DRA kubelet plugin's
label, a reboot that leaves a stale `success`, and writers racing the labeller.

The fake `kubectl` keeps the Node (labels, resourceVersion) and its ResourceSlices in a JSON file
and answers the three requests the script makes: get the Node, list the node's ResourceSlices,
label the Node with a resourceVersion precondition (Conflict when it moved, as the API server).
The DaemonSet controller is modelled as upstream does it: the DRA kubelet plugin's pod runs while
its nodeSelector label is `true`, and a plugin lists the node's devices once, when it starts
(NVIDIA/k8s-dra-driver-gpu v25.12.0 cmd/gpu-kubelet-plugin/device_state.go NewDeviceState)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from gpu_support import find, load_objects

DRA = "onprem-gb200-dra"
GATE = "nvidia.com/dra-kubelet-plugin"
STATE = "nvidia.com/mig.config.state"
B200_LAYOUT = {"3g.90gb": 1, "2g.45gb": 1, "1g.23gb": 2}
GPUS = 8

FAKE_KUBECTL = r"""
import json, sys
path = sys.argv[1]
args = [a for a in sys.argv[2:] if not a.startswith("--cache-dir")]
with open(path) as f:
    node = json.load(f)
def save():
    with open(path, "w") as f:
        json.dump(node, f)
if args[:2] == ["get", "node"]:
    print(node["rv"])
    for key in sorted(node["labels"]):
        print(f"{key}={node['labels'][key]}")
    # a writer that changes the Node right after this read (a race with the labeller)
    if node.get("after_read"):
        node["labels"].update(node.pop("after_read"))
        node["rv"] += 1
        save()
elif args[0] == "get" and args[1].startswith("resourceslices"):
    for device in node["slices"]:
        print(f"{device[0]} {device[1]}")
elif args[:2] == ["label", "node"]:
    version = next(a.split("=", 1)[1] for a in args if a.startswith("--resource-version="))
    if int(version) != node["rv"]:
        print('Error from server (Conflict): Operation cannot be fulfilled on nodes "n": the object '
              "has been modified; please apply your changes to the latest version and try again", file=sys.stderr)
        sys.exit(1)
    for pair in args[3:]:
        if not pair.startswith("--"):
            key, value = pair.split("=", 1)
            node["labels"][key] = value
            node["writes"].append([key, value])
    node["rv"] += 1
    save()
else:
    print("unexpected kubectl call: " + " ".join(args), file=sys.stderr)
    sys.exit(3)
"""


def labeller(pool: str) -> dict:
    (ds,) = find(
        load_objects(Path(__file__).resolve().parents[2] / "rendered" / DRA), "DaemonSet", f"gpu-node-config-{pool}"
    )
    (main,) = ds["spec"]["template"]["spec"]["containers"]
    return main


class Node:
    """One GPU node of a pool, its labels and GPUs, and the actors that write its labels."""

    def __init__(self, tmp_path: Path, pool: str = "b200") -> None:
        self.container = labeller(pool)
        self.dir = tmp_path
        self.state_file = tmp_path / "node.json"
        self.partition = "whole"  # whole GPUs (MIG off) | "empty" (MIG on, no instances) | "layout"
        self.plugin = False
        self.plugin_starts: list[str | None] = []  # the mig.config.state each plugin start saw
        self.write({"rv": 1, "labels": {}, "slices": [], "writes": []})
        bin_dir = tmp_path / "bin"
        bin_dir.mkdir()
        kubectl = bin_dir / "kubectl"
        kubectl.write_text(
            f'#!/bin/sh\nexec {sys.executable} {tmp_path / "fake.py"} {self.state_file} "$@"\n', encoding="utf-8"
        )
        kubectl.chmod(0o755)
        (tmp_path / "fake.py").write_text(FAKE_KUBECTL, encoding="utf-8")
        (tmp_path / "tmp").mkdir()
        self.env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "NODE_NAME": "n", "TMPDIR": str(tmp_path / "tmp")}
        for var in self.container["env"]:
            if "value" in var:
                self.env[var["name"]] = var["value"]

    def read(self) -> dict:
        return json.loads(self.state_file.read_text(encoding="utf-8"))

    def write(self, node: dict) -> None:
        self.state_file.write_text(json.dumps(node), encoding="utf-8")

    @property
    def labels(self) -> dict:
        return self.read()["labels"]

    def set_labels(self, **labels: str) -> None:
        node = self.read()
        node["labels"].update({k.replace("__", "/").replace("_", "."): v for k, v in labels.items()})
        node["rv"] += 1
        self.write(node)

    def set(self, key: str, value: str) -> None:
        node = self.read()
        node["labels"][key] = value
        node["rv"] += 1
        self.write(node)

    def after_next_read(self, key: str, value: str) -> None:
        node = self.read()
        node["after_read"] = {key: value}
        self.write(node)

    def label_pass(self, mode: str = "once") -> subprocess.CompletedProcess:
        """One pass of the labeller: the rendered command with the rendered arguments."""
        command = [*self.container["command"], mode if mode != "once" else "once", *self.container["args"][1:]]
        done = subprocess.run(command, env=self.env, capture_output=True, encoding="utf-8")
        assert done.returncode == 0, done.stderr
        self.reconcile_daemonset()
        return done

    def reconcile_daemonset(self) -> None:
        """The DaemonSet controller: the plugin's pod runs where its nodeSelector label is true; a
        starting plugin publishes what the GPUs hold at that moment, a stopped one nothing."""
        should_run = self.labels.get(GATE) == "true"
        node = self.read()
        if should_run and not self.plugin:
            self.plugin_starts.append(node["labels"].get(STATE))
            node["slices"] = self.devices()
        elif not should_run and self.plugin:
            node["slices"] = []
        self.plugin = should_run
        self.write(node)

    def devices(self) -> list[list[str]]:
        if self.partition == "whole":
            return [["gpu", ""]] * GPUS
        if self.partition == "empty":
            return []
        return [["mig", p] for p, n in sorted(B200_LAYOUT.items()) for _ in range(n * GPUS)]

    def mig_manager(self, state: str, partition: str | None = None) -> None:
        """mig-manager's state label (pending while it works, success once the layout is in)."""
        if partition:
            self.partition = partition
        self.set(STATE, state)
        self.reconcile_daemonset()

    def published(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for kind, profile in self.read()["slices"]:
            name = f"mig/{profile}" if kind == "mig" else kind
            counts[name] = counts.get(name, 0) + 1
        return counts


def expected_layout() -> dict[str, int]:
    return {f"mig/{p}": n * GPUS for p, n in B200_LAYOUT.items()}


@pytest.fixture
def node(tmp_path: Path) -> Node:
    return Node(tmp_path)


def test_a_new_node_gets_the_plugin_only_after_its_layout_is_applied(node):
    node.label_pass()
    assert node.labels["nvidia.com/mig.config"] == "b200" and node.labels[GATE] == "false"
    node.mig_manager("pending")
    for _ in range(3):
        node.label_pass()
        assert not node.plugin, "the DRA kubelet plugin started while MIG was being applied"
    node.mig_manager("success", partition="layout")
    node.label_pass()
    assert node.plugin and node.plugin_starts == ["success"]
    assert node.published() == expected_layout()


def test_a_success_left_from_another_layout_does_not_start_the_plugin(node):
    # the operator labelled the node all-disabled and mig-manager reported it applied
    node.set("nvidia.com/mig.config", "all-disabled")
    node.set(STATE, "success")
    node.label_pass()
    assert node.labels["nvidia.com/mig.config"] == "b200" and not node.plugin


def test_a_layout_change_restarts_the_plugin_on_the_new_layout(node):
    node.mig_manager("success", partition="whole")
    node.set("nvidia.com/mig.config", "b200")
    node.label_pass()
    # the plugin started on whole GPUs; mig-manager now repartitions
    node.mig_manager("pending")
    node.label_pass()
    assert not node.plugin
    node.mig_manager("success", partition="layout")
    node.label_pass()
    assert node.plugin and node.published() == expected_layout()


def test_a_stale_success_after_a_reboot_is_repaired_by_a_restart(node):
    node.label_pass()
    node.mig_manager("success", partition="layout")
    node.label_pass()
    assert node.published() == expected_layout()
    # reboot: the GPU instances are gone, the labels (success, true) stay; the plugin starts again
    node.plugin = False
    node.partition = "empty"
    node.reconcile_daemonset()
    assert node.published() == {}
    node.label_pass()  # one pass that sees the wrong devices: the plugin may still be starting
    assert node.plugin
    node.partition = "layout"  # mig-manager re-creates the instances, state stays success
    node.label_pass()  # the second pass in a row: restart through false
    assert not node.plugin and node.labels[GATE] == "false"
    node.label_pass()
    assert node.plugin and node.published() == expected_layout()
    for _ in range(3):
        node.label_pass()
        assert node.plugin, "a plugin that publishes the layout is left running"


def test_the_driver_managers_pause_is_never_overwritten(node):
    node.label_pass()
    node.mig_manager("success", partition="layout")
    node.label_pass()
    assert node.plugin
    writes = len(node.read()["writes"])
    # k8s-driver-manager evicts the plugin for a driver upgrade
    node.set(GATE, "paused-for-driver-upgrade")
    node.reconcile_daemonset()
    for _ in range(3):
        node.label_pass()
        assert node.labels[GATE] == "paused-for-driver-upgrade" and not node.plugin
    assert len(node.read()["writes"]) == writes
    # the driver manager restores the label once the driver is back
    node.set(GATE, "true")
    node.label_pass()
    assert node.plugin


def test_a_pause_set_between_the_read_and_the_patch_is_kept(node):
    """The patch carries the resourceVersion read: a pause written in between makes it a Conflict,
    and the pass read again leaves the pause."""
    node.set(GATE, "false")  # to be set true by the next pass
    node.set(STATE, "success")
    node.set("nvidia.com/mig.config", "b200")
    node.after_next_read(GATE, "paused-for-driver-upgrade")
    node.label_pass()
    assert node.labels[GATE] == "paused-for-driver-upgrade"


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("nvidia.com/gpu.deploy.device-plugin", "paused-for-mig-change"),
        ("nvidia.com/device-plugin.config", "paused-for-driver-upgrade"),
        ("nvidia.com/mig.config", "paused-for-driver-upgrade"),
    ],
)
def test_no_reasserted_label_overwrites_a_pause(node, key, value):
    node.set(key, value)
    node.label_pass()
    assert node.labels[key] == value


def test_a_pool_without_mig_keeps_its_plugin_label_true(tmp_path: Path):
    node = Node(tmp_path, pool="gb200")
    assert "MIG_GATED_LABEL" not in node.env
    node.label_pass()
    assert node.labels[GATE] == "true" and node.plugin


def test_the_labels_are_set_in_one_pass_and_then_left(node):
    node.label_pass()
    writes = node.read()["writes"]
    assert sorted(k for k, _ in writes) == sorted(
        ["nvidia.com/device-plugin.config", GATE, "nvidia.com/gpu.deploy.device-plugin", "nvidia.com/mig.config"]
    )
    node.label_pass()
    assert node.read()["writes"] == writes, "a pass with nothing to change writes nothing"
