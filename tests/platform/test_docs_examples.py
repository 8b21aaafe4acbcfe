"""The documented ephemeral NVMe cache example is a valid object that fits an example cluster."""

from __future__ import annotations

from pathlib import Path

import yaml
from clusterinput import objects, spec

from generator.validate.validator import SchemaValidator

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "docs" / "examples" / "ephemeral-nvme-model-cache.yaml"
CLUSTER = "aks-h100-training"


def load() -> dict:
    (doc,) = list(yaml.safe_load_all(EXAMPLE.read_text(encoding="utf-8")))
    return doc


def test_example_validates_against_the_kubernetes_schema():
    cluster = spec(REPO, CLUSTER)
    assert SchemaValidator(cluster["kubernetesVersion"]).check(load()) == []


def test_example_uses_a_local_nvme_class_the_cluster_renders_and_lands_on_its_pool():
    pod = load()["spec"]["template"]["spec"]
    claim = pod["volumes"][0]["ephemeral"]["volumeClaimTemplate"]["spec"]
    classes = {o["metadata"]["name"]: o for o in objects(REPO, CLUSTER)["local-storage"] if o["kind"] == "StorageClass"}
    storage_class = classes[claim["storageClassName"]]
    assert storage_class["volumeBindingMode"] == "WaitForFirstConsumer"
    pool = next(
        p
        for p in spec(REPO, CLUSTER)["nodePools"]
        if p.get("localNvme", {}).get("storageClass") == claim["storageClassName"]
    )
    assert pod["nodeSelector"] == pool["nodeSelector"]
    assert {(t["key"], t["effect"]) for t in pool["taints"]} <= {(t["key"], t["effect"]) for t in pod["tolerations"]}
    assert pool["localNvme"]["mode"] == "Filesystem"
    assert claim.get("volumeMode", "Filesystem") == "Filesystem"
