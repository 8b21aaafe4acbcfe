"""Cilium: the rendered Helm values are what the pinned chart understands, for both engines."""

from __future__ import annotations

import functools
import ipaddress
import json
import re

import pytest
import yaml
from clusterinput import BASE, objects, replace, write
from conftest import EXAMPLES, REPO, SHARED, cilium_enabled, needs_shared, validate_json

from generator.library import versions

CHART_DIR = SHARED / "helm-values" / "cilium" / "1.19.6"
# Values the chart documents only as a comment in values.yaml (`# -- mode is the operation mode of
# load balancing ... # mode: snat`): real values, absent from the parsed defaults. The chart's
# cilium-configmap.yaml turns them into `bpf-lb-mode`, `bpf-lb-dsr-dispatch` and `devices`.
COMMENTED_VALUES = {("loadBalancer", "mode"), ("loadBalancer", "dsrDispatch"), ("devices",)}
needs_chart = needs_shared(CHART_DIR, "the Cilium chart's values")


@functools.cache
def chart() -> tuple[dict, dict]:
    """(values.schema.json, values.yaml) of the pinned chart, parsed once."""
    return (
        json.loads((CHART_DIR / "values.schema.json").read_text(encoding="utf-8")),
        yaml.safe_load((CHART_DIR / "values.yaml").read_text(encoding="utf-8")),
    )


def release_values(rendered: dict[str, list[dict]]) -> tuple[str, dict]:
    """(chart version, values) of the Cilium release, whichever engine renders it."""
    for o in rendered["cilium"]:
        if o["kind"] == "HelmRelease":
            return o["spec"]["chart"]["spec"]["version"], o["spec"]["values"]
        if o["kind"] == "Application":
            return o["spec"]["source"]["targetRevision"], o["spec"]["source"]["helm"]["valuesObject"]
    raise AssertionError("no Cilium release rendered")


def key_paths(values: dict, prefix: tuple = ()) -> list[tuple]:
    paths = []
    for key, value in values.items():
        paths.append(prefix + (key,))
        if isinstance(value, dict):
            paths.extend(key_paths(value, prefix + (key,)))
    return paths


def inputs() -> list[tuple[str, object]]:
    """Every example with Cilium, plus the all-features base input on both engines."""
    cases = [(name, None) for name in EXAMPLES if cilium_enabled(name)]
    cases.append(("t", BASE))
    cases.append(("t", replace("engine: flux", "engine: argocd")))
    cases.append(("t", GKE))
    cases.append(("t", XDP_DSR))
    return cases


# BASE on GKE: native routing on the node pod CIDRs the VPC routes.
GKE = replace(
    "provider: generic",
    "provider: gke",
    replace("    ipam: {podCIDRs: [10.244.0.0/16]}\n", "    ipam: {mode: kubernetes, podCIDRs: [10.244.0.0/16]}\n"),
)

# BASE with XDP-accelerated DSR load balancing on pinned devices.
XDP_DSR = replace(
    "    bigTCP: {ipv4: true}\n",
    "    bigTCP: {ipv4: true}\n"
    "    loadBalancer: {acceleration: native, mode: dsr, dsrDispatch: ipip}\n    devices: [bond0, ens+]\n",
)


@needs_chart
@pytest.mark.parametrize(("name", "text"), inputs(), ids=lambda v: v if isinstance(v, str) and "\n" not in v else "")
def test_values_validate_against_the_chart_schema_and_exist_in_the_chart(project, name, text):
    if text is not None:
        write(project, text)
    version, values = release_values(objects(project, name))
    schema, chart_defaults = chart()
    validate_json(values, schema)
    for path in key_paths(values):
        if path in COMMENTED_VALUES:
            continue
        node = chart_defaults
        for key in path:
            assert isinstance(node, dict) and key in node, f"{'.'.join(path)} is not a value of the chart"
            node = node[key]
    assert version == "1.19.6"


def test_xdp_attaches_only_to_the_pinned_devices(project):
    write(project, XDP_DSR)
    _, values = release_values(objects(project, "t"))
    assert values["devices"] == ["bond0", "ens+"]
    assert values["loadBalancer"] == {"acceleration": "native", "mode": "dsr", "dsrDispatch": "ipip"}


def test_examples_with_xdp_pin_their_devices():
    for name in EXAMPLES:
        if not cilium_enabled(name):
            continue
        _, values = release_values(objects(REPO, name))
        if values["loadBalancer"]["acceleration"] != "disabled":
            assert values.get("devices"), name


def test_versions_pin_the_chart_version_that_is_checked():
    pinned = {v.input: v.default for v in versions.load(REPO / "libsonnet").inputs}
    assert pinned["network.cilium.version"] == "1.19.6"


def test_kube_proxy_free_native_routing_values(project):
    write(project, BASE)
    _, values = release_values(objects(project, "t"))
    assert values["kubeProxyReplacement"] is True
    assert (values["k8sServiceHost"], values["k8sServicePort"]) == ("api.example.com", 443)
    assert values["routingMode"] == "native"
    assert values["ipv4NativeRoutingCIDR"] == "10.244.0.0/16"
    assert "tunnelProtocol" not in values
    assert values["bandwidthManager"] == {"enabled": True, "bbr": True}
    assert values["enableIPv4BIGTCP"] is True
    assert values["tolerations"] == [{"operator": "Exists"}]


def test_extra_values_are_merged_last(project):
    write(
        project,
        replace(
            "    bigTCP: {ipv4: true}\n",
            "    bigTCP: {ipv4: true}\n"
            "    values: {ipam: {operator: {clusterPoolIPv4MaskSize: 26}}, "
            "hubble: {metrics: {enableOpenMetrics: true}}}\n",
        ),
    )
    _, values = release_values(objects(project, "t"))
    assert values["ipam"] == {
        "mode": "cluster-pool",
        "operator": {"clusterPoolIPv4PodCIDRList": ["10.244.0.0/16"], "clusterPoolIPv4MaskSize": 26},
    }
    assert values["hubble"]["metrics"] == {"enableOpenMetrics": True}
    assert values["hubble"]["enabled"] is True
    assert values["hubble"]["relay"] == {"enabled": True}


@pytest.mark.parametrize(
    ("engine", "kinds"), [("flux", ["HelmRelease", "HelmRepository"]), ("argocd", ["Application"])]
)
def test_engine_decides_the_release_objects(project, engine, kinds):
    write(project, replace("engine: flux", f"engine: {engine}"))
    rendered = objects(project, "t")["cilium"]
    assert [o["kind"] for o in rendered] == kinds
    if engine == "flux":
        release, repo = rendered  # in key order (helmrelease_..., helmrepository_...)
        ref = release["spec"]["chart"]["spec"]["sourceRef"]
        assert (ref["name"], ref["namespace"]) == (repo["metadata"]["name"], repo["metadata"]["namespace"])
        assert release["spec"]["targetNamespace"] == "kube-system"
        assert "tls" not in release["spec"]["values"]["hubble"]
    else:
        assert rendered[0]["spec"]["destination"]["namespace"] == "kube-system"
        assert rendered[0]["spec"]["source"]["helm"]["valuesObject"]["hubble"]["tls"] == {"auto": {"method": "cronJob"}}
        assert rendered[0]["spec"]["source"]["chart"] == "cilium"


def test_disabled_cilium_renders_nothing(project):
    write(project, replace("    kubeProxyReplacement: true\n", "    enabled: false\n    kubeProxyReplacement: true\n"))
    assert objects(project, "t")["cilium"] == []


def test_cluster_pool_is_rendered_so_the_chart_default_pool_never_applies(project):
    write(
        project,
        replace(
            "ipam: {podCIDRs: [10.244.0.0/16]}", "ipam: {podCIDRs: [10.244.0.0/17, 10.244.128.0/18], maskSize: 26}"
        ),
    )
    _, values = release_values(objects(project, "t"))
    assert values["ipam"] == {
        "mode": "cluster-pool",
        "operator": {"clusterPoolIPv4PodCIDRList": ["10.244.0.0/17", "10.244.128.0/18"], "clusterPoolIPv4MaskSize": 26},
    }


def test_kubernetes_ipam_renders_the_mode_only(project):
    write(project, GKE)
    _, values = release_values(objects(project, "t"))
    assert values["ipam"] == {"mode": "kubernetes"}


@pytest.mark.parametrize(
    ("provider", "text", "integration"),
    [
        ("aks", None, {"aksbyocni": {"enabled": True}}),
        (
            "gke",
            GKE,
            {"gke": {"enabled": True}, "nodeinit": {"enabled": True}, "cni": {"binPath": "/home/kubernetes/bin"}},
        ),
        ("generic", BASE, {}),
    ],
)
def test_provider_integration(project, provider, text, integration):
    if text is None:
        text = replace(
            "provider: generic",
            "provider: aks",
            replace(
                "      mode: native\n      ipv4NativeRoutingCIDR: 10.244.0.0/16\n",
                "      mode: tunnel\n",
                replace("    bigTCP: {ipv4: true}\n", ""),
            ),
        )
    write(project, text)
    _, values = release_values(objects(project, "t"))
    present = {key: values[key] for key in ("aksbyocni", "gke", "nodeinit", "cni") if key in values}
    assert present == integration
    assert values["routingMode"] == ("tunnel" if provider == "aks" else "native")


# The network part of BASE removed: the input says nothing about Cilium.
WITHOUT_NETWORK = BASE[: BASE.index("network:\n")] + BASE[BASE.index("nodePools:\n") :]


@pytest.mark.parametrize("provider", ["aks", "eks", "gke", "openshift"])
def test_a_provider_with_its_own_cni_gets_no_cilium_unless_the_input_asks(project, run, provider):
    """ciliumByDefault: false there (docs/providers.md); before, every such input failed."""
    write(project, WITHOUT_NETWORK.replace("provider: generic", f"provider: {provider}"))
    result = run(project, "render", "t")
    assert result.exit_code == 0, result.output
    assert objects(project, "t")["cilium"] == []


def test_cilium_on_by_the_providers_default_is_one_error_at_the_provider(project, run):
    """generic has ciliumByDefault: true, and the defaults need k8sServiceHost: one error, at the
    provider line (not at 1:1), whose first hint is the smallest edit that renders."""
    write(project, WITHOUT_NETWORK)
    result = run(project, "render", "t")
    assert result.exit_code == 2, result.output
    errors = re.findall(r"clusters/t/cluster\.yaml:(\d+):(\d+): error: (.*)\n  hint: (.*)", result.output)
    assert len(errors) == 1, result.output
    ((line, col, message, hint),) = errors
    assert (int(line), int(col)) == (3, 11)  # provider: generic
    assert "Cilium is on by default for provider generic" in message and "k8sServiceHost" in message
    assert hint.startswith("set network.cilium.enabled: false")


def test_a_written_cilium_block_means_cilium(project):
    """The examples' blocks do not say `enabled`: they keep rendering Cilium on every provider."""
    for name in ("aks-h100-training", "eks-mi300x-inference"):
        assert objects(REPO, name)["cilium"], name


def test_gke_defaults_what_its_integration_allows_one_value_for(project, run):
    """ciliumConstraints with one allowed value become the default: native routing and
    kubernetes IPAM on GKE, so only what GKE cannot tell (its CIDR, the API server) is asked."""
    text = WITHOUT_NETWORK.replace("provider: generic", "provider: gke")
    write(project, text + "network:\n  cilium: {}\n")
    result = run(project, "render", "t")
    assert result.exit_code == 2
    assert "native routing needs ipv4NativeRoutingCIDR" in result.output
    assert "GKE integration runs only with native routing" not in result.output
    assert "node's own pod CIDR" not in result.output
    write(
        project,
        text + "network:\n  cilium:\n    k8sServiceHost: 10.0.0.2\n    routing: {ipv4NativeRoutingCIDR: 10.8.0.0/14}\n",
    )
    _, values = release_values(objects(project, "t"))
    assert values["routingMode"] == "native" and values["ipam"] == {"mode": "kubernetes"}


def test_aks_example_is_bring_your_own_cni_over_vxlan():
    _, values = release_values(objects(REPO, "aks-h100-training"))
    assert values["aksbyocni"] == {"enabled": True}
    assert (values["routingMode"], values["tunnelProtocol"]) == ("tunnel", "vxlan")
    assert values["ipam"]["operator"]["clusterPoolIPv4PodCIDRList"] == ["10.244.0.0/16"]


def test_an_example_exercises_kube_proxy_free_native_routing():
    native = []
    for name in EXAMPLES:
        if not cilium_enabled(name):
            continue
        _, values = release_values(objects(REPO, name))
        if values["routingMode"] == "native" and values["kubeProxyReplacement"] is True:
            native.append(name)
            pool = values["ipam"]["operator"]["clusterPoolIPv4PodCIDRList"]
            assert all(
                ipaddress.ip_network(c).subnet_of(ipaddress.ip_network(values["ipv4NativeRoutingCIDR"])) for c in pool
            )
    assert native
