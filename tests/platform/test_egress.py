"""Workload egress: DNS names through Cilium's DNS proxy, NodeLocal DNSCache, and inference namespaces that must pull models."""

from __future__ import annotations

import re

import pytest
import yaml
from clusterinput import BASE, objects, replace, write
from conftest import EXAMPLES, REPO, SHARED, needs_shared, strict_args

CNP_SCHEMA = SHARED / "crd-schemas" / "cilium.io" / "ciliumnetworkpolicy_v2.json"

SERVE = """\
workloads:
  - namespace: serve
    type: inference
    quota: {gpus: 8}
"""
FQDNS = '    allowEgressToFQDNs: [huggingface.co, "*.hf.co"]\n'
NO_CILIUM = replace("    kubeProxyReplacement: true\n", "    enabled: false\n    kubeProxyReplacement: true\n")


def policies(rendered: dict, namespace: str) -> dict[str, dict]:
    return {
        o["metadata"]["name"]: o
        for o in rendered["workload-isolation"]
        if o["metadata"].get("namespace") == namespace and "Policy" in o["kind"]
    }


def render_error(project, run, text: str, fragment: str) -> tuple[int, str, str]:
    """(expected line, message, hint) of the located error; asserts exit 2 and that it names the line."""
    write(project, text)
    result = run(project, "render", "t")
    assert result.exit_code == 2, result.output
    expected = next(n for n, line in enumerate(text.splitlines(), 1) if fragment in line)
    located = re.findall(r"clusters/t/cluster\.yaml:(\d+):\d+: error: (.*)\n  hint: (.*)", result.output)
    assert any(int(line) == expected for line, _, _ in located), result.output
    return next((int(line), msg, hint) for line, msg, hint in located if int(line) == expected)


def test_fqdn_egress_is_a_cilium_policy_with_its_dns_proxy_rule(project):
    write(project, BASE + SERVE + FQDNS)
    cnp = policies(objects(project, "t"), "serve")["allow-egress-to-fqdns"]
    assert cnp["apiVersion"] == "cilium.io/v2" and cnp["kind"] == "CiliumNetworkPolicy"
    dns_rule, fqdn_rule = cnp["spec"]["egress"]
    assert dns_rule["toEndpoints"] == [
        {"matchLabels": {"k8s:io.kubernetes.pod.namespace": "kube-system", "k8s:k8s-app": "kube-dns"}}
    ]
    assert dns_rule["toPorts"] == [
        {"ports": [{"port": "53", "protocol": "ANY"}], "rules": {"dns": [{"matchPattern": "*"}]}}
    ]
    assert fqdn_rule == {"toFQDNs": [{"matchName": "huggingface.co"}, {"matchPattern": "*.hf.co"}]}


@needs_shared(CNP_SCHEMA, "the CiliumNetworkPolicy CRD schema")
def test_fqdn_policy_validates_against_the_cilium_crd(project, run):
    write(project, replace("nodePools:", "  nodeLocalDNS: {enabled: true}\nnodePools:", BASE) + SERVE + FQDNS)
    result = run(project, "-v", "render", "t", *strict_args())
    assert result.exit_code == 0, result.output
    assert "ciliumnetworkpolicy_serve_allow-egress-to-fqdns.yaml" in "\n".join(
        str(p) for p in (project / "rendered" / "t").rglob("*.yaml")
    )


def test_fqdn_egress_without_cilium_is_refused(project, run):
    _, message, hint = render_error(project, run, NO_CILIUM + SERVE + FQDNS, "allowEgressToFQDNs")
    assert "only Cilium's toFQDNs" in message
    assert "allowEgressTo" in hint


def test_gpu_inference_namespace_without_egress_renders_with_a_located_warning(project, run):
    """It renders (models may come from a volume) and says, at the namespace, why pulls would fail."""
    write(project, BASE + SERVE)
    result = run(project, "render", "t")
    assert result.exit_code == 0, result.output
    line = next(n for n, text in enumerate((BASE + SERVE).splitlines(), 1) if "- namespace: serve" in text)
    assert re.search(
        rf"clusters/t/cluster.yaml:{line}:\d+: warning: GPU inference namespace serve declares no "
        "egress",
        result.stderr,
    ), result.stderr
    assert "allowEgressToFQDNs" in result.stderr and "allowEgressTo: []" in result.stderr


@pytest.mark.parametrize("egress", ["    allowEgressTo: []\n", "    allowEgressTo: [10.20.0.0/16]\n", FQDNS])
def test_declared_egress_renders(project, run, egress):
    write(project, BASE + SERVE + egress)
    assert run(project, "render", "t").exit_code == 0


def test_training_namespace_needs_no_declared_egress(project, run):
    write(project, BASE + SERVE.replace("type: inference", "type: training"))
    assert run(project, "render", "t").exit_code == 0


def test_node_local_dns_cache_is_allowed(project):
    write(project, replace("nodePools:", "  nodeLocalDNS: {enabled: true}\nnodePools:", BASE) + SERVE + FQDNS)
    rendered = policies(objects(project, "t"), "serve")
    peers = rendered["allow-dns"]["spec"]["egress"][0]["to"]
    assert {"ipBlock": {"cidr": "169.254.20.10/32"}} in peers
    assert {
        "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}},
        "podSelector": {"matchLabels": {"k8s-app": "node-local-dns"}},
    } in peers
    to_dns = rendered["allow-egress-to-fqdns"]["spec"]["egress"][0]["toEndpoints"]
    assert {
        "matchLabels": {"k8s:io.kubernetes.pod.namespace": "kube-system", "k8s:k8s-app": "node-local-dns"}
    } in to_dns


def test_without_node_local_dns_only_the_cluster_dns_is_allowed(project):
    write(project, BASE + SERVE + FQDNS)
    peers = policies(objects(project, "t"), "serve")["allow-dns"]["spec"]["egress"][0]["to"]
    assert len(peers) == 1 and peers[0]["podSelector"] == {"matchLabels": {"k8s-app": "kube-dns"}}


def test_every_example_gpu_inference_namespace_can_reach_its_models():
    for name in EXAMPLES:
        data = yaml.safe_load((REPO / "clusters" / name / "cluster.yaml").read_text(encoding="utf-8"))
        for w in data.get("workloads", []):
            if w["type"] != "inference":
                continue
            kinds = {o["metadata"]["name"] for o in policies(objects(REPO, name), w["namespace"]).values()}
            assert kinds & {"allow-egress-to-cidrs", "allow-egress-to-fqdns"} or w.get("allowEgressTo") == [], (
                name,
                w["namespace"],
            )
