"""Provider and monitoring conventions of the GPU stack: OpenShift DNS, GPU Operator platform and
NFD from OLM; the AMD GPU Operator's chart and DeviceConfig; ServiceMonitor labels that the
cluster's Prometheus selects on."""

from __future__ import annotations

from conftest import strict_args
from gpu_support import find, load_objects
from test_gpu_stack import helm_values

OCP, AKS, EKS, ONPREM = "ocp-a100-tuned", "aks-h100-training", "eks-mi300x-inference", "onprem-mi300x-operator"


def edit(project, cluster: str, old: str, new: str) -> None:
    path = project / "clusters" / cluster / "cluster.yaml"
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def dns_egress(objects: list[dict]) -> list[dict]:
    policies = find(objects, "NetworkPolicy", "allow-dns")
    assert policies
    (rule,) = {repr(p["spec"]["egress"]): p["spec"]["egress"] for p in policies}.values()  # same in every namespace
    return rule


def test_openshift_dns_policy_reaches_the_dns_operator_pods(rendered):  # noqa: F811
    (rule,) = dns_egress(load_objects(rendered / OCP))
    (peer,) = rule["to"]
    assert peer["namespaceSelector"]["matchLabels"] == {"kubernetes.io/metadata.name": "openshift-dns"}
    assert peer["podSelector"]["matchLabels"] == {"dns.operator.openshift.io/daemonset-dns": "default"}
    # the pods listen on 5353 behind Service port 53; policies see the pod port
    ports = {(p["protocol"], p["port"]) for p in rule["ports"]}
    assert {("UDP", 5353), ("TCP", 5353), ("UDP", 53), ("TCP", 53)} == ports


def test_other_providers_keep_kube_dns(rendered):  # noqa: F811
    for cluster in (AKS, EKS, ONPREM):
        (rule,) = dns_egress(load_objects(rendered / cluster))
        (peer,) = rule["to"]
        assert peer["namespaceSelector"]["matchLabels"] == {"kubernetes.io/metadata.name": "kube-system"}
        assert peer["podSelector"]["matchLabels"] == {"k8s-app": "kube-dns"}
        assert {p["port"] for p in rule["ports"]} == {53}


def test_gpu_operator_platform_follows_the_provider(rendered):  # noqa: F811
    assert helm_values(load_objects(rendered / OCP), "gpu-operator")["platform"] == {"openshift": True}
    assert "platform" not in helm_values(load_objects(rendered / AKS), "gpu-operator")


def test_openshift_uses_the_running_nfd_but_keeps_the_rules(rendered):  # noqa: F811
    objects = load_objects(rendered / OCP)
    assert find(objects, "NodeFeatureRule"), "the OLM NFD operator serves the rules: they must still be rendered"
    assert not [
        o
        for o in objects
        if o["kind"] in ("HelmRelease", "Application") and o["metadata"]["name"] == "node-feature-discovery"
    ]
    # its labels still count as present, so the GPU Operator does not bring its own NFD
    assert helm_values(objects, "gpu-operator")["nfd"] == {"enabled": False}
    assert find(load_objects(rendered / AKS), "HelmRelease", "node-feature-discovery")


def test_openshift_can_still_deploy_the_nfd_chart(project, run):
    edit(project, OCP, "tuning:\n", "nodeFeatureDiscovery: {deploy: helm}\ntuning:\n")
    assert run(project, "render", OCP).exit_code == 0
    assert find(load_objects(project / "rendered" / OCP), "HelmRelease", "node-feature-discovery")


def test_amd_operator_chart_leaves_the_nodes_to_our_device_configs(rendered):  # noqa: F811
    values = helm_values(load_objects(rendered / ONPREM), "amd-gpu-operator")
    assert values["crds"]["defaultCR"]["install"] is False
    assert values["installdefaultNFDRule"] is False  # node-feature-rules labels the nodes
    assert values["node-feature-discovery"] == {"enabled": False}


def test_amd_managed_driver_has_an_image_and_blacklists_the_inbox_module(rendered):  # noqa: F811
    (config,) = find(load_objects(rendered / ONPREM), "DeviceConfig")
    driver = config["spec"]["driver"]
    assert driver["enable"] is True and driver["blacklist"] is True
    assert driver["image"] == "registry.onprem.example.com/gpu/amdgpu-driver"
    assert ":" not in driver["image"].rsplit("/", 1)[-1], "the operator tags the image itself"
    assert driver["imageRegistrySecret"] == {"name": "amd-driver-registry"}


def test_amd_driver_image_with_a_tag_is_an_input_error(project, run):
    edit(project, ONPREM, "amdgpu-driver\n", "amdgpu-driver:6.4.3\n")
    result = run(project, "render", ONPREM)
    assert result.exit_code == 2
    assert "cluster.yaml:" in result.stderr and "driverImage" in result.stderr


def test_inbox_amd_driver_needs_no_image(project, run):
    edit(project, ONPREM, "driverManaged: true", "driverManaged: false")
    edit(project, ONPREM, "    driverImage: registry.onprem.example.com/gpu/amdgpu-driver\n", "")
    assert run(project, "render", ONPREM).exit_code == 0
    (config,) = find(load_objects(project / "rendered" / ONPREM), "DeviceConfig")
    assert config["spec"]["driver"] == {"enable": False}


def test_openshift_amd_driver_uses_the_internal_registry_and_machine_config(project, run):
    """OpenShift ignores the DeviceConfig blacklist (a MachineConfig does it) and its internal
    registry is the CRD's default driver image, so driverImage may be left out there."""
    edit(project, ONPREM, "provider: generic", "provider: openshift")
    edit(project, ONPREM, "    driverImage: registry.onprem.example.com/gpu/amdgpu-driver\n", "")
    result = run(project, "render", ONPREM)
    assert result.exit_code == 0, result.output
    (config,) = find(load_objects(project / "rendered" / ONPREM), "DeviceConfig")
    assert config["spec"]["driver"]["blacklist"] is False
    assert "image" not in config["spec"]["driver"]


def test_service_monitor_labels_reach_every_service_monitor(project, run):
    labels = "  serviceMonitorLabels: {release: kube-prometheus-stack}\n"
    # the example has them from the base it shares with the other Argo CD cluster
    assert labels in (project / "clusters" / "_bases" / "argocd-platform.yaml").read_text(encoding="utf-8")
    edit(project, AKS, "monitoring:\n", "monitoring:\n" + labels)
    result = run(project, "render", EKS, AKS, *strict_args())
    assert result.exit_code == 0, result.output
    (monitor,) = find(load_objects(project / "rendered" / EKS), "ServiceMonitor")
    assert monitor["metadata"]["labels"]["release"] == "kube-prometheus-stack"
    # the selector still matches the exporter's Service, not the Prometheus label
    assert "release" not in monitor["spec"]["selector"]["matchLabels"]
    values = helm_values(load_objects(project / "rendered" / AKS), "gpu-operator")
    assert values["dcgmExporter"]["serviceMonitor"]["additionalLabels"] == {"release": "kube-prometheus-stack"}


def test_amd_metrics_exporter_service_monitor_gets_the_labels(rendered):  # noqa: F811
    (config,) = find(load_objects(rendered / ONPREM), "DeviceConfig")
    monitor = config["spec"]["metricsExporter"]["prometheus"]["serviceMonitor"]
    assert monitor == {"enable": True, "labels": {"release": "kube-prometheus-stack"}}
