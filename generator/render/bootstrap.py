"""The first install of the CNI, which the GitOps engine cannot do itself.

Without a CNI no pod starts, the engine's controllers included: on a cluster whose only CNI is
the rendered Cilium (bring-your-own-CNI AKS, bare metal, EKS without aws-node) nobody would
ever install it. So the Cilium release's values are also written, outside every kustomize
layer, to ``bootstrap/cilium-values`` with the one ``helm install`` that uses them; the
engine's release (same name, namespace, chart version and values) then adopts that install.
The file is derived from the rendered release object, so the two cannot drift apart. It has
no ``.yaml`` suffix on purpose: every ``*.yaml`` under ``rendered/`` is a Kubernetes object to
linters and schema checkers (``gpu-gitops lint rendered/``, kubeconform), and Helm reads
``--values`` by content, not by name.

A hydrated Cilium (``gitops.charts.cilium: hydrated``, ``render.hydrate``) has no release: its
objects are in its component's folder, and the first install applies exactly them,
``kubectl apply --server-side -k`` of that folder (``bootstrap/cilium-install`` says how); the
engine's layer then applies the same objects, and its server-side apply takes the fields over
(kustomize-controller and Argo CD's server-side sync force conflicts with other managers).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from generator.yamlio.emit import to_yaml_plain

COMPONENT = "cilium"
FOLDER = "bootstrap"
VALUES_FILE = f"{FOLDER}/cilium-values"
INSTALL_FILE = f"{FOLDER}/cilium-install"


@dataclass(frozen=True)
class Release:
    """What ``helm install`` needs to reproduce the engine's Cilium release."""

    name: str
    namespace: str
    repo_url: str
    chart: str
    version: str
    values: dict


def cilium_release(objects: list[dict]) -> Release | None:
    """The Cilium release as the engine installs it (Flux HelmRelease or Argo CD Application)."""
    repos = {o["metadata"]["name"]: o["spec"]["url"] for o in objects if o["kind"] == "HelmRepository"}
    for o in objects:
        spec = o["spec"] if o["kind"] in ("HelmRelease", "Application") else None
        if spec is None:
            continue
        if o["kind"] == "HelmRelease":
            chart = spec["chart"]["spec"]
            return Release(
                spec.get("releaseName", o["metadata"]["name"]),
                spec["targetNamespace"],
                repos[chart["sourceRef"]["name"]],
                chart["chart"],
                chart["version"],
                spec["values"],
            )
        source = spec["source"]
        return Release(
            source["helm"].get("releaseName", o["metadata"]["name"]),
            spec["destination"]["namespace"],
            source["repoURL"],
            source["chart"],
            source["targetRevision"],
            source["helm"]["valuesObject"],
        )
    return None


def install_command(release: Release, cluster: str) -> str:
    """The documented first install (docs/network.md), run from the repository root."""
    return (
        f"helm install {release.name} {release.chart} --repo {release.repo_url} --version {release.version} "
        f"--namespace {release.namespace} --values rendered/{cluster}/{VALUES_FILE}"
    )


# What must go before the install on EKS: the VPC CNI and kube-proxy are add-ons that EKS
# installs and would keep running beside Cilium (docs.cilium.io installation/k8s-install-helm,
# "EKS": "disable aws-node"; kube-proxy free: "delete the kube-proxy add-on").
_EKS_AWS_NODE = (
    "EKS: first keep the VPC CNI (aws-node) off every node (or create the cluster without the default",
    "add-ons, bootstrapSelfManagedAddons: false):",
    "  kubectl -n kube-system patch daemonset aws-node --type=strategic \\",
    '    -p \'{"spec":{"template":{"spec":{"nodeSelector":{"io.cilium/aws-node-enabled":"true"}}}}}\'',
)
_EKS_KUBE_PROXY = (
    "Cilium replaces kube-proxy: remove the kube-proxy add-on, or EKS reinstalls it:",
    "  aws eks delete-addon --cluster-name <eks-cluster-name> --addon-name kube-proxy",
)
_EKS_NODES = (
    "Nodes that ran aws-node or kube-proxy keep their routes and iptables rules: replace them after the install.",
)


def files(cluster: str, facts: dict, objects: list[dict], applied: str | None = None) -> dict[str, bytes]:
    """``{relative path: bytes}`` of the bootstrap folder; empty when Cilium is not rendered.
    ``facts`` is the provider's row of ``providers.json``; ``applied``: the folder of a hydrated
    Cilium's objects in the tree."""
    if applied is not None:
        return {INSTALL_FILE: _apply_text(cluster, facts, objects, applied)}
    release = cilium_release(objects)
    if release is None:
        return {}
    header = [
        f"Rendered by gpu-gitops from clusters/{cluster}/cluster.yaml. Do not edit: run `gpu-gitops render`.",
        "Helm values (YAML) for the first install of Cilium, before the GitOps engine: without a CNI no pod",
        "(the engine's included) starts.",
        "Not part of any kustomize layer; the engine's release of the same name, chart version and values then",
        "adopts this install. Order and details: docs/network.md.",
    ]
    if facts["vpcCniDaemonSet"]:
        header += [
            *_EKS_AWS_NODE,
            *(_EKS_KUBE_PROXY if release.values.get("kubeProxyReplacement") is True else ()),
            *_EKS_NODES,
        ]
    header += ["Then, from the repository root:", "  " + install_command(release, cluster)]
    values = json.loads(json.dumps(release.values, sort_keys=True))  # the same bytes for the same values
    text = "".join(f"# {line}\n" for line in header) + to_yaml_plain(values)
    return {VALUES_FILE: text.encode()}


def _apply_text(cluster: str, facts: dict, objects: list[dict], applied: str) -> bytes:
    """The first install of a hydrated Cilium: the objects its folder holds, applied once."""
    header = [
        f"Rendered by gpu-gitops from clusters/{cluster}/cluster.yaml. Do not edit: run `gpu-gitops render`.",
        "The first install of Cilium, before the GitOps engine: without a CNI no pod (the engine's included)",
        f"starts. Cilium is shipped hydrated: its objects are rendered/{cluster}/{applied}, which the engine",
        "then applies and keeps. Order and details: docs/network.md, docs/charts.md.",
    ]
    if facts["vpcCniDaemonSet"]:
        header += [*_EKS_AWS_NODE, *(_EKS_KUBE_PROXY if _kube_proxy_free(objects) else ()), *_EKS_NODES]
    header += [
        "Then, from the repository root:",
        f"  kubectl apply --server-side -k rendered/{cluster}/{applied}",
    ]
    return "".join(f"# {line}\n" for line in header).encode()


def _kube_proxy_free(objects: list[dict]) -> bool:
    """Whether the chart's ``cilium-config`` turns kube-proxy replacement on."""
    config = next((o for o in objects if o["kind"] == "ConfigMap" and o["metadata"]["name"] == "cilium-config"), None)
    return config is not None and str((config.get("data") or {}).get("kube-proxy-replacement")) == "true"
