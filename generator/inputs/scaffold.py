"""``gpu-gitops init NAME``: a commented, valid starting point for a new cluster."""

from __future__ import annotations

import os
from pathlib import Path

from generator.errors import InputError
from generator.paths import CLUSTER_FILE, Project
from generator.replace import replace_file

TEMPLATE = """\
# yaml-language-server: $schema={schema}
# Cluster input for gpu-gitops. Every key is documented in the schema above (editors with
# the YAML language server show the descriptions); `gpu-gitops schema` prints it.
apiVersion: {api_version}
kind: Cluster
name: {name}
kubernetesVersion: "1.32"
provider: generic            # aks | eks | gke | openshift | generic: taint, disk and DNS conventions
gitops:
  engine: flux               # flux | argocd
  repository: https://git.example.com/platform/gitops.git
  branch: main
network:
  cilium:
    kubeProxyReplacement: true
    k8sServiceHost: api.{name}.example.com   # a real API endpoint: kube-proxy is gone
    k8sServicePort: 6443
    routing:
      mode: native
      ipv4NativeRoutingCIDR: 10.244.0.0/16
    ipam: {{mode: cluster-pool, podCIDRs: [10.244.0.0/16]}}   # inside the native routing CIDR
    bandwidthManager: {{enabled: true, bbr: false}}
nodePools:
  - name: system
    nodeSelector: {{node-role.example.com/system: "true"}}
  - name: gpu
    nodeSelector: {{node-role.example.com/gpu: "true"}}
    # taints default to nvidia.com/gpu:NoSchedule for NVIDIA pools
    gpu: {{vendor: nvidia, model: H100-80GB, perNode: 8, nodes: 2}}
    hugepages: {{2Mi: 1024}}
    sysctls:
      net.core.rmem_max: 134217728
      net.core.wmem_max: 134217728
workloads:
  - namespace: gpu-training
    type: training
    quota: {{gpus: 16}}
  - namespace: gpu-inference
    type: inference
    quota: {{gpus: 8}}
    allowEgressToFQDNs: [huggingface.co, "*.huggingface.co"]   # where the models come from
"""


# A project without its own schemas/cluster.schema.json (a fleet repository using an installed
# gpu-gitops) gets a copy of the installed tool's input schema here, for editors: init writes
# it, render keeps it current and check reports it stale, so that an upgrade of the tool does
# not leave the modelines on an old contract.
EDITOR_SCHEMA = Path("schemas") / "gpu-gitops" / "cluster.schema.json"


def init_cluster(project: Project, name: str, force: bool = False) -> Path:
    """Write ``clusters/NAME/cluster.yaml`` with a modeline that resolves in this project."""
    from generator.inputs.load import check_cluster_name  # here: a no-op `check` imports this module

    check_cluster_name(name)
    project.clusters_readable()
    folder = project.clusters / name
    path = folder / CLUSTER_FILE
    if path.exists() and not force:
        raise InputError(
            "cluster input already exists", path=project.display(path), hint="edit it, or pass --force to overwrite it"
        )
    copy = editor_schema(project)
    schema = copy or project.schema_file
    from generator.inputs.contract import CURRENT

    text = TEMPLATE.format(name=name, schema=Path(os.path.relpath(schema, folder)).as_posix(), api_version=CURRENT)
    try:
        if copy:
            write_editor_schema(project)
        folder.mkdir(parents=True, exist_ok=True)
        replace_file(path, text)
    except OSError as exc:
        raise InputError(
            f"cannot create the cluster input: {exc.strerror or exc}",
            path=project.display(path),
            hint="the project folder must be writable",
        ) from None
    return path


def editor_schema(project: Project) -> Path | None:
    """Where the editor copy of the input schema goes; None when the project carries its own."""
    return None if project.schema_file.is_relative_to(project.root) else project.root / EDITOR_SCHEMA


def write_editor_schema(project: Project) -> Path:
    target = project.root / EDITOR_SCHEMA
    target.parent.mkdir(parents=True, exist_ok=True)
    replace_file(target, project.schema_file.read_bytes())
    return target


def stale_editor_schema(project: Project) -> bool:
    """The editor copy exists and is not the installed tool's schema (the tool was upgraded)."""
    copy = editor_schema(project)
    return bool(copy and copy.is_file() and copy.read_bytes() != project.schema_file.read_bytes())
