"""A fleet of clusters made of three bases, and the same fleet written out in full, for the
tests and the benchmark (bench/bench_bases.py) of bases.

Bases: ``fleet`` (the GitOps repository and the monitoring label every cluster shares),
``aks-h100`` and ``ocp-a100`` (the aks-h100-training and ocp-a100-tuned examples, each naming
``fleet``). Each cluster names one of the two and sets what is its own: its name, an API
host, a pool's node count (merged into the base's pool by name), a branch, a removed key.
The full copy is built from the example files by plain dictionary edits, not by the merge
code, so the two fleets agree only if the merge rules do what they say.
"""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

from generator.inputs.contract import BASE, CLUSTER, CURRENT
from generator.yamlio.positions import load_file

REPO = Path(__file__).resolve().parent.parent
FLEET_GITOPS = {"engine": "flux", "repository": "https://git.example.com/platform/fleet.git", "branch": "main"}
LABELS = {"release": "kube-prometheus-stack"}


def _example(name: str) -> dict:
    data = load_file(REPO / "clusters" / name / "cluster.yaml").data
    return {k: v for k, v in data.items() if k not in ("apiVersion", "kind", "bases", "name")}


def _write(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1) + "\n")  # JSON is YAML


def _bases() -> dict[str, dict]:
    aks, ocp = _example("aks-h100-training"), _example("ocp-a100-tuned")
    del aks["gitops"]  # the fleet's
    ocp["gitops"].pop("engine")  # the fleet's; its own repository and branch override the fleet's
    header = {"apiVersion": CURRENT, "kind": BASE}
    return {
        "fleet": {**header, "gitops": FLEET_GITOPS, "monitoring": {"serviceMonitorLabels": LABELS}},
        "aks-h100": {**header, "bases": ["fleet"], **aks},
        "ocp-a100": {**header, "bases": ["fleet"], **ocp},
    }


def _own(i: int) -> tuple[str, dict]:
    """Cluster ``i``'s name and what its file sets beside its base."""
    if i % 2 == 0:
        name = f"aks-{i:03d}"
        own: dict = {
            "bases": ["aks-h100"],
            "network": {"cilium": {"k8sServiceHost": f"{name}.hcp.westeurope.azmk8s.io"}},
            "nodePools": [{"name": "h100", "gpu": {"nodes": 4 + i % 3}}],
        }
        if i % 4 == 0:
            own["network"]["cilium"]["hubble"] = None  # the default instead of the base's
        return name, own
    name = f"ocp-{i:03d}"
    return name, {"bases": ["ocp-a100"], "gitops": {"branch": f"production-{i % 5}"}}


def _full(i: int) -> tuple[str, dict]:
    """Cluster ``i`` written out in full: the example, edited as ``_own`` and the bases say."""
    name, _own_keys = _own(i)
    if i % 2 == 0:
        data = copy.deepcopy(_example("aks-h100-training"))
        data["gitops"] = dict(FLEET_GITOPS)
        data["network"]["cilium"]["k8sServiceHost"] = f"{name}.hcp.westeurope.azmk8s.io"
        next(p for p in data["nodePools"] if p["name"] == "h100")["gpu"]["nodes"] = 4 + i % 3
        if i % 4 == 0:
            del data["network"]["cilium"]["hubble"]
    else:
        data = copy.deepcopy(_example("ocp-a100-tuned"))
        data["gitops"] = {**FLEET_GITOPS, **{k: v for k, v in data["gitops"].items() if k != "engine"}}
        data["gitops"]["branch"] = f"production-{i % 5}"
    data.setdefault("monitoring", {})["serviceMonitorLabels"] = LABELS
    return name, {"apiVersion": CURRENT, "kind": CLUSTER, "name": name, **data}


def make(root: Path, count: int, layered: bool) -> list[str]:
    """A project under ``root`` of ``count`` clusters, with bases (``layered``) or in full;
    the names of its clusters."""
    for folder in ("libsonnet", "schemas"):
        shutil.copytree(REPO / folder, root / folder, dirs_exist_ok=True)
    if layered:
        for base, data in _bases().items():
            _write(root / "clusters" / "_bases" / f"{base}.yaml", data)
    names = []
    for i in range(count):
        if layered:
            name, own = _own(i)
            data = {"apiVersion": CURRENT, "kind": CLUSTER, "name": name, **own}
        else:
            name, data = _full(i)
        _write(root / "clusters" / name / "cluster.yaml", data)
        names.append(name)
    return sorted(names)
