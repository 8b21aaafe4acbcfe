"""The rendered NodeFeatureRules evaluated against the features NFD reports for real nodes.

A rule that never matches fails silently: the label is never set and every DaemonSet that
selects on it stays at zero pods. So the rules are evaluated here the way nfd-master does
(every feature term must match; an instance feature matches when one instance satisfies all
its expressions), over feature sets taken from real machines.
"""

from __future__ import annotations

import re

import pytest
from gpu_support import find, load_objects

# What nfd-worker reports as instances of pci.device / storage.block (attribute subsets), and the
# attributes of local.feature (feature files; prepare-disks.sh writes local-nvme-disks).
ASPEED_BMC = {"vendor": "1a03", "device": "2000", "class": "0300"}  # the BMC's VGA on most servers
CONNECTX7 = {"vendor": "15b3", "device": "1021", "class": "0207"}
MI300X = {"vendor": "1002", "device": "74a1", "class": "1200"}  # Processing accelerator
MI250X = {"vendor": "1002", "device": "7408", "class": "0380"}
H100_SXM = {"vendor": "10de", "device": "2330", "class": "0302"}  # 3D controller
L40S = {"vendor": "10de", "device": "26b9", "class": "0300"}
NVME = {"name": "nvme0n1", "rotational": "0"}  # EBS root volume on Nitro: NVMe and non-rotational too
SDA = {"name": "sda", "rotational": "1"}

NODES = {
    "mi300x": {
        "pci.device": [ASPEED_BMC, CONNECTX7] + [MI300X] * 8,
        "storage.block": [NVME],
        "local.feature": {"local-nvme-disks": "8"},
    },
    "mi300x-without-instance-store": {
        "pci.device": [ASPEED_BMC] + [MI300X] * 8,
        "storage.block": [NVME] * 3,
        "local.feature": {"local-nvme-disks": "0"},
    },
    "mi250x": {"pci.device": [ASPEED_BMC, MI250X], "storage.block": [SDA]},
    "h100": {"pci.device": [ASPEED_BMC, CONNECTX7] + [H100_SXM] * 8, "storage.block": [SDA]},
    "l40s": {"pci.device": [ASPEED_BMC, L40S], "storage.block": []},
    "cpu": {"pci.device": [ASPEED_BMC, CONNECTX7], "storage.block": [SDA]},
}


def expression_matches(expr: dict, value: str | None) -> bool:
    op, values = expr["op"], expr.get("value", [])
    if op == "Exists":
        return value is not None
    if op == "DoesNotExist":
        return value is None
    if value is None:
        return False
    if op == "In":
        return value in values
    if op == "NotIn":
        return value not in values
    if op == "InRegexp":
        return any(re.search(v, value) for v in values)
    if op == "Gt":
        return value.lstrip("-").isdigit() and int(value) > int(values[0])
    raise AssertionError(f"operator {op} not evaluated by this test")


def rule_matches(rule: dict, features: dict[str, list[dict]]) -> bool:
    assert set(rule) <= {"name", "labels", "matchFeatures"}, "matchAny/templates are not evaluated here"

    def term_matches(term: dict) -> bool:
        found = features.get(term["feature"], [])
        if isinstance(found, dict):  # an attribute feature: one set of attributes
            found = [found]
        return any(
            all(expression_matches(e, instance.get(attr)) for attr, e in term["matchExpressions"].items())
            for instance in found
        )

    return all(term_matches(term) for term in rule["matchFeatures"])


def labels_for(rules: list[dict], features: dict) -> dict[str, str]:
    out: dict[str, str] = {}
    for rule in rules:
        if rule_matches(rule, features):
            out.update(rule["labels"])
    return out


@pytest.fixture(scope="module")
def rules(rendered) -> list[dict]:  # noqa: F811
    """The rules of the example with both vendors' pools and local NVMe."""
    (obj,) = find(load_objects(rendered / "eks-mi300x-inference"), "NodeFeatureRule")
    return obj["spec"]["rules"]


@pytest.mark.parametrize(
    "node,expected",
    [
        ("mi300x", {"gpu-amd", "local-nvme"}),
        ("mi300x-without-instance-store", {"gpu-amd"}),
        ("mi250x", {"gpu-amd"}),
        ("h100", {"gpu-nvidia"}),
        ("l40s", {"gpu-nvidia"}),
        ("cpu", set()),
    ],
)
def test_rules_label_real_nodes(rules, node, expected):
    labels = labels_for(rules, NODES[node])
    assert {k.removeprefix("feature.node.kubernetes.io/") for k in labels} == expected
    assert set(labels.values()) <= {"true"}


def test_labels_are_the_ones_the_tuning_daemonsets_select_on(rendered):  # noqa: F811
    """The MI300X pool's node-level DaemonSets select on the label its nodes get."""
    objects = load_objects(rendered / "onprem-mi300x-operator")
    (obj,) = find(objects, "NodeFeatureRule")
    node_labels = labels_for(obj["spec"]["rules"], NODES["mi300x"])
    selected = [
        d
        for d in find(objects, "DaemonSet")
        if "feature.node.kubernetes.io/gpu-amd" in d["spec"]["template"]["spec"].get("nodeSelector", {})
    ]
    assert selected, "no DaemonSet selects on the AMD GPU label"
    for ds in selected:
        wanted = {
            k: v
            for k, v in ds["spec"]["template"]["spec"]["nodeSelector"].items()
            if k.startswith("feature.node.kubernetes.io/")
        }
        assert wanted.items() <= node_labels.items(), ds["metadata"]["name"]
