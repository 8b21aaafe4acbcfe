"""node-feature-discovery: the worker reaches tainted GPU nodes, and the rules set the labels the
pool DaemonSets select on."""

from __future__ import annotations

import json

import pytest
from clusterinput import BASE, objects, replace, spec, write
from conftest import EXAMPLES, REPO, SHARED, needs_shared, validate_json

NFD_SCHEMA = SHARED / "helm-values" / "gpu-operator" / "charts" / "node-feature-discovery" / "values.schema.json"


def rules(rendered) -> list[dict]:
    return [r for o in rendered["node-feature-rules"] for r in o["spec"]["rules"]]


def nfd_values(rendered) -> dict:
    release = next(o for o in rendered["node-feature-discovery"] if o["kind"] in ("HelmRelease", "Application"))
    return (
        release["spec"]["values"]
        if release["kind"] == "HelmRelease"
        else release["spec"]["source"]["helm"]["valuesObject"]
    )


# Examples that deploy the NFD chart (OpenShift runs NFD from OLM: nodeFeatureDiscovery.deploy external).
CHART_EXAMPLES = [n for n in EXAMPLES if spec(REPO, n)["nodeFeatureDiscovery"]["deploy"] == "helm"]


@pytest.mark.parametrize("name", CHART_EXAMPLES)
def test_worker_tolerates_every_pool_taint_with_exists(name):
    rendered = objects(REPO, name)
    tolerations = nfd_values(rendered)["worker"]["tolerations"]
    assert all(t["operator"] == "Exists" and "value" not in t for t in tolerations)
    cluster = spec(REPO, name)
    wanted = {(t["key"], t["effect"]) for p in cluster["nodePools"] for t in p["taints"]}
    assert wanted  # every example has a tainted GPU pool
    # and the node tuning's startup taint where a pool's kubelet restarts for 2Mi huge pages: the
    # tuning DaemonSet selects the label NFD sets (lib/tuning.libsonnet)
    if cluster["tuning"]["restartKubelet"] and any(p.get("hugepages", {}).get("2Mi") for p in cluster["nodePools"]):
        wanted.add(("gpu-gitops.io/node-tuning", "NoSchedule"))
    assert {(t["key"], t["effect"]) for t in tolerations} == wanted


@needs_shared(NFD_SCHEMA, "the NFD chart's values schema")
@pytest.mark.parametrize("name", CHART_EXAMPLES)
def test_values_validate_against_the_chart_schema(name):
    validate_json(nfd_values(objects(REPO, name)), json.loads(NFD_SCHEMA.read_text(encoding="utf-8")))


def test_every_nfd_label_the_pool_daemonsets_select_on_is_set_by_a_rule():
    checked = 0
    for name in EXAMPLES:
        rendered = objects(REPO, name)
        set_by_rules = {key: value for r in rules(rendered) for key, value in r["labels"].items()}
        for component in ("node-tuning", "local-storage"):
            for o in rendered[component]:
                if o["kind"] != "DaemonSet":
                    continue
                for key, value in o["spec"]["template"]["spec"]["nodeSelector"].items():
                    if key.startswith("feature.node.kubernetes.io/"):
                        assert set_by_rules.get(key) == value, (name, o["metadata"]["name"], key)
                        checked += 1
    assert checked >= 4  # GPU labels on tuning DaemonSets, NVMe labels on storage DaemonSets


def test_gpu_rules_match_vendor_and_display_class(project):
    write(project, BASE + "  - name: amd\n    nodeSelector: {pool: amd}\n    gpu: {vendor: amd, perNode: 8}\n")
    by_name = {r["name"]: r for r in rules(objects(project, "t"))}
    assert set(by_name) == {"gpu-nvidia", "gpu-amd", "local-nvme"}
    # AMD Instinct MI300X is a processing accelerator (1200), MI200 a display controller (0380)
    for vendor, pci, classes in (("nvidia", "10de", ["0300", "0302"]), ("amd", "1002", ["0300", "0380", "1200"])):
        (match,) = by_name[f"gpu-{vendor}"]["matchFeatures"]
        assert match["feature"] == "pci.device"
        assert match["matchExpressions"]["vendor"] == {"op": "In", "value": [pci]}
        assert match["matchExpressions"]["class"] == {"op": "In", "value": classes}
    # not storage.block: it has no model (NFD source/storage/storage.go), and EBS volumes are nvme too
    (nvme,) = by_name["local-nvme"]["matchFeatures"]
    assert nvme == {"feature": "local.feature", "matchExpressions": {"local-nvme-disks": {"op": "Gt", "value": ["0"]}}}


def test_no_nvme_rule_without_local_nvme(project):
    text = BASE[: BASE.index("    localNvme:")]
    write(project, text)
    assert [r["name"] for r in rules(objects(project, "t"))] == ["gpu-nvidia"]


def test_no_nvme_rule_without_disk_preparation(project):
    """Only the prepare pod writes the feature the rule matches."""
    write(project, replace("prepare: {enabled: true}", "prepare: {enabled: false}"))
    assert [r["name"] for r in rules(objects(project, "t"))] == ["gpu-nvidia"]


def test_disabled_nfd_renders_neither_release_nor_rules(project):
    write(project, replace("nodePools:\n", "nodeFeatureDiscovery: {enabled: false}\nnodePools:\n"))
    rendered = objects(project, "t")
    assert rendered["node-feature-discovery"] == [] and rendered["node-feature-rules"] == []
