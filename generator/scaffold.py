"""``gpu-gitops init NAME``: a commented, valid starting point for a new cluster."""

from __future__ import annotations

from pathlib import Path

from generator.errors import InputError
from generator.inputs import CLUSTER_FILE, check_cluster_name
from generator.paths import Project

TEMPLATE = """\
# yaml-language-server: $schema={schema}
# Cluster input for gpu-gitops. Every key is documented in the schema above (editors with
# the YAML language server show the descriptions); `gpu-gitops schema` prints it.
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


def init_cluster(project: Project, name: str, force: bool = False) -> Path:
    check_cluster_name(name)
    folder = project.clusters / name
    path = folder / CLUSTER_FILE
    if path.exists() and not force:
        raise InputError("cluster input already exists", path=project.display(path),
                         hint="edit it, or pass --force to overwrite it")
    text = TEMPLATE.format(name=name, schema="../../schemas/cluster.schema.json")
    if not (project.root / "schemas" / "cluster.schema.json").is_file():
        # never commit a path into this machine's site-packages
        text = text.replace(text.split("\n", 1)[0], "# Editor completion: gpu-gitops schema > schemas/cluster.schema.json, then add\n"
                            "# yaml-language-server: $schema=../../schemas/cluster.schema.json", 1)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    except OSError as exc:
        raise InputError(f"cannot create the cluster input: {exc.strerror or exc}", path=project.display(path),
                         hint="clusters/ must be a writable folder") from None
    return path
