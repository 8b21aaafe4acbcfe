"""A small cluster input to vary per test, and in-process rendering of inputs to objects."""

from __future__ import annotations

import copy
from pathlib import Path

from generator.inputs.load import load_cluster
from generator.paths import Project
from generator.render import evaluation

NAME = "t"

# Every feature of this area is on and consistent; tests change one line to break one rule.
BASE = """\
name: t
kubernetesVersion: "1.32"
provider: generic
gitops: {engine: flux, repository: https://git.example.com/x.git}
network:
  cilium:
    kubeProxyReplacement: true
    k8sServiceHost: api.example.com
    routing:
      mode: native
      ipv4NativeRoutingCIDR: 10.244.0.0/16
    ipam: {podCIDRs: [10.244.0.0/16]}
    bandwidthManager: {enabled: true, bbr: true}
    bigTCP: {ipv4: true}
    nodeKernel: "6.8"
nodePools:
  - name: system
    nodeSelector: {agentpool: system}
  - name: gpu
    nodeSelector: {agentpool: gpu}
    gpu: {vendor: nvidia, model: H100-80GB, perNode: 8}
    hugepages: {2Mi: 1024, 1Gi: 16, bootReserved: true}
    sysctls:
      net.core.rmem_max: 268435456
      kernel.pid_max: 4194304
    localNvme:
      diskIdPattern: nvme-SAMSUNG_MZWLR3T8HBLS-00007_*
      mode: Filesystem
      storageClass: local-nvme
      prepare: {enabled: true}
"""


def write(root: Path, text: str, name: str = NAME) -> Path:
    folder = root / "clusters" / name
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "cluster.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def replace(old: str, new: str, text: str = BASE) -> str:
    """BASE with one fragment replaced; fails loudly if the fragment is not there."""
    assert old in text, f"{old!r} not in the base input"
    return text.replace(old, new, 1)


def objects(root: Path, name: str) -> dict[str, list[dict]]:
    """The cluster's objects by component, rendered in process (nothing written).

    Memoised on the input text: the tests' project copies share the repository's library, so
    the same input renders the same objects, and the examples are rendered once per session.
    """
    key = (name, (root / "clusters" / name / "cluster.yaml").read_text(encoding="utf-8"))
    if key not in _RENDERED:
        project = Project(root)
        _RENDERED[key] = evaluation.evaluate(project, load_cluster(project, name))
    return copy.deepcopy(_RENDERED[key])


_RENDERED: dict[tuple[str, str], dict[str, list[dict]]] = {}


def spec(root: Path, name: str) -> dict:
    project = Project(root)
    return load_cluster(project, name).spec
