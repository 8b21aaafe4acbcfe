"""The rendered GPU stack of the example clusters: taint/toleration closure over every DaemonSet,
operator values, device plugin configs, DCGM scraping and autoscaling queries that agree."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
from conftest import EXAMPLES, REPO
from gpu_support import find, load_objects
from ruamel.yaml import YAML

from generator.inputs.load import load_cluster
from generator.paths import Project


def spec_of(cluster: str) -> dict:
    return load_cluster(Project(REPO), cluster).spec


def tolerates(toleration: dict, taint: dict) -> bool:
    """Kubernetes' toleration matching (v1 Toleration.ToleratesTaint)."""
    if toleration.get("effect") and toleration["effect"] != taint["effect"]:
        return False
    if toleration.get("operator", "Equal") == "Exists":
        return not toleration.get("key") or toleration["key"] == taint["key"]
    return toleration.get("key") == taint["key"] and toleration.get("value", "") == taint.get("value", "")


def blocking(pool: dict) -> list[dict]:
    return [t for t in pool["taints"] if t["effect"] != "PreferNoSchedule"]


def targeted_pools(pod_spec: dict, pools: list[dict]) -> list[dict]:
    """Pools whose nodes the pod template may be scheduled on (by nodeSelector / node affinity)."""
    selector = pod_spec.get("nodeSelector", {})
    terms = (
        pod_spec.get("affinity", {})
        .get("nodeAffinity", {})
        .get("requiredDuringSchedulingIgnoredDuringExecution", {})
        .get("nodeSelectorTerms")
    )

    def term_matches(term: dict, labels: dict) -> bool:
        return all(e["operator"] == "In" and labels.get(e["key"]) in e["values"] for e in term["matchExpressions"])

    out = []
    for pool in pools:
        labels = pool["nodeSelector"]
        if any(labels.get(k) != v for k, v in selector.items()):
            continue
        if terms and not any(term_matches(t, labels) for t in terms):
            continue
        out.append(pool)
    return out


NIC_LABEL = "feature.node.kubernetes.io/pci-15b3.present"


# The sections of a NicClusterPolicy the operator makes a DaemonSet of, each placed by the policy's
# nodeAffinity and tolerations (Mellanox/network-operator v26.4.1 manifests/state-*: Multus, the
# CNI plugins, the IPoIB CNI, nv-ipam's node daemon 040-nv-ipam-node.yaml).
CLUSTER_POLICY_DAEMONSETS = (
    "secondaryNetwork.multus",
    "secondaryNetwork.cniPlugins",
    "secondaryNetwork.ipoib",
    "nvIpam",
)


def _network_operator_operands(objects: list[dict]) -> list[dict]:
    """The DaemonSets the Network Operator makes from its policies, as their placement: a
    NicNodePolicy's nodeSelector, a NicClusterPolicy's nodeAffinity, and the tolerations of
    either (Mellanox/network-operator v26.4.1 api/v1alpha1); one per NicNodePolicy, one per
    DaemonSet section of the NicClusterPolicy (``<policy>/<section>``)."""
    operands = []
    for policy in find(objects, "NicNodePolicy") + find(objects, "NicClusterPolicy"):
        spec = policy["spec"]
        placement = {k: spec[k] for k in ("nodeSelector", "tolerations") if k in spec}
        if "nodeAffinity" in spec:
            placement["affinity"] = {"nodeAffinity": spec["nodeAffinity"]}
        names = [policy["metadata"]["name"]]
        if policy["kind"] == "NicClusterPolicy":
            names = [f"{names[0]}/{section}" for section in CLUSTER_POLICY_DAEMONSETS if _has(spec, section.split("."))]
        operands += [{"metadata": {"name": name}, "spec": {"template": {"spec": placement}}} for name in names]
    return operands


def _has(spec: dict, path: list[str]) -> bool:
    for key in path:
        if not isinstance(spec, dict) or key not in spec:
            return False
        spec = spec[key]
    return True


def _with_nic_label(pools: list[dict]) -> list[dict]:
    """The pools, those with an InfiniBand or RoCE fabric labelled as NFD labels their nodes."""
    return [
        {**p, "nodeSelector": {**p["nodeSelector"], NIC_LABEL: "true"}}
        if p["fabric"]["type"] in ("infiniband", "roce")
        else p
        for p in pools
    ]


@pytest.mark.parametrize("cluster", EXAMPLES)
def test_every_daemonset_tolerates_the_pools_it_runs_on(rendered, cluster):
    spec = spec_of(cluster)
    pools = spec["nodePools"]
    # gpu.nvidia.mode managed (GKE): the platform's stack, no validation DaemonSet (main.libsonnet)
    managed = spec["gpu"]["nvidia"]["mode"] == "managed"
    gpu_pool_daemonsets: dict[str, list[str]] = {
        p["name"]: [] for p in pools if "gpu" in p and not (managed and p["gpu"]["vendor"] == "nvidia")
    }
    objects = load_objects(rendered / cluster)
    for ds in find(objects, "DaemonSet") + _network_operator_operands(objects):
        spec = ds["spec"]["template"]["spec"]
        tolerations = spec.get("tolerations", [])
        for pool in targeted_pools(spec, _with_nic_label(pools)):
            for taint in blocking(pool):
                assert any(tolerates(t, taint) for t in tolerations), (
                    f"{ds['metadata']['name']} runs on pool {pool['name']} but does not tolerate {taint}"
                )
            if pool["name"] in gpu_pool_daemonsets:
                gpu_pool_daemonsets[pool["name"]].append(ds["metadata"]["name"])
    # Each GPU pool is checked by its validation DaemonSet, so the closure is never vacuous; so
    # is each fabric pool by the operator's plugin and, with a secondary network, by Multus and
    # nv-ipam's node daemon.
    for pool, names in gpu_pool_daemonsets.items():
        assert f"gpu-validation-{pool}" in names, (pool, names)
    for pool in pools:
        names = gpu_pool_daemonsets.get(pool["name"], [])
        if pool["fabric"]["type"] in ("infiniband", "roce") and pool["name"] in gpu_pool_daemonsets:
            assert f"rdma-{pool['name']}" in names, (pool["name"], names)
            has_network = "network" in pool["fabric"]
            for section in ("secondaryNetwork.multus", "nvIpam"):
                assert (f"nic-cluster-policy/{section}" in names) == has_network, (pool["name"], names)


def helm_values(objects: list[dict], name: str) -> dict:
    for obj in objects:
        if obj["kind"] == "HelmRelease" and obj["metadata"]["name"] == name:
            return obj["spec"]["values"]
        if obj["kind"] == "Application" and obj["metadata"]["name"] == name:
            return obj["spec"]["source"]["helm"]["valuesObject"]
    raise AssertionError(f"no release {name}")


@pytest.mark.parametrize("cluster", ["aks-h100-training", "ocp-a100-tuned"])
def test_operator_operands_tolerate_every_nvidia_pool(rendered, cluster):
    values = helm_values(load_objects(rendered / cluster), "gpu-operator")
    for pool in spec_of(cluster)["nodePools"]:
        if pool.get("gpu", {}).get("vendor") == "nvidia":
            for taint in blocking(pool):
                assert any(tolerates(t, taint) for t in values["daemonsets"]["tolerations"]), (pool["name"], taint)


def test_operator_values_follow_the_input(rendered):
    yaml = YAML(typ="safe")
    aks = helm_values(load_objects(rendered / "aks-h100-training"), "gpu-operator")
    # AKS node pools without AKS's driver (--gpu-driver none): the operator installs it and the toolkit
    assert aks["driver"]["enabled"] is True and aks["toolkit"] == {"enabled": True}
    assert aks["dcgmExporter"]["serviceMonitor"] == {"enabled": True, "honorLabels": True}
    configs = aks["devicePlugin"]["config"]
    assert set(configs["data"]) == {"default", "h100", "l40s"}
    l40s = yaml.load(configs["data"]["l40s"])
    assert l40s["version"] == "v1"
    assert l40s["sharing"]["timeSlicing"]["resources"] == [{"name": "nvidia.com/gpu", "replicas": 4}]

    ocp = helm_values(load_objects(rendered / "ocp-a100-tuned"), "gpu-operator")
    assert ocp["driver"]["enabled"] is True and ocp["driver"]["version"] == "580.95.05"
    assert ocp["driver"]["upgradePolicy"]["maxUnavailable"] == "25%"
    assert ocp["mig"] == {"strategy": "single"}
    parted = yaml.load(ocp["migManager"]["config"]["data"]["config.yaml"])
    assert parted["mig-configs"]["a100"] == [{"devices": "all", "mig-enabled": True, "mig-devices": {"1g.10gb": 7}}]
    assert ocp["migManager"]["config"]["default"] == "all-disabled"


def test_device_plugin_mode_has_one_plugin_per_pool_with_its_config(rendered):
    objects = load_objects(rendered / "eks-mi300x-inference")
    (cm,) = find(objects, "ConfigMap", "nvidia-device-plugin-a100-mig")
    config = YAML(typ="safe").load(cm["data"]["config.yaml"])
    assert config == {"version": "v1", "flags": {"migStrategy": "mixed", "failOnInitError": True}}
    (ds,) = find(objects, "DaemonSet", "nvidia-device-plugin-a100-mig")
    pod = ds["spec"]["template"]["spec"]
    assert ds["metadata"]["namespace"] == "kube-system"
    assert pod["priorityClassName"] == "system-node-critical"
    assert pod["nodeSelector"] == {"karpenter.sh/nodepool": "a100-mig"}
    ctr = pod["containers"][0]
    # MIG devices are only visible with SYS_ADMIN and the MIG monitor capability (as upstream's chart).
    assert ctr["securityContext"] == {
        "readOnlyRootFilesystem": True,
        "allowPrivilegeEscalation": False,
        "capabilities": {"drop": ["ALL"], "add": ["SYS_ADMIN"]},
    }
    assert {"name": "NVIDIA_MIG_MONITOR_DEVICES", "value": "all"} in ctr["env"]
    assert {"name": "CONFIG_FILE", "value": "/config/config.yaml"} in ctr["env"]
    assert find(objects, "RuntimeClass", "nvidia")[0]["handler"] == "nvidia"
    # AMD pools get the ROCm plugin and labeller, not the NVIDIA one.
    names = {d["metadata"]["name"] for d in find(objects, "DaemonSet")}
    assert {"amdgpu-device-plugin-mi300x", "amdgpu-node-labeller-mi300x"} <= names
    assert "nvidia-device-plugin-mi300x" not in names


def test_device_plugin_without_mig_keeps_no_capability(project, run):
    path = project / "clusters" / "ocp-a100-tuned" / "cluster.yaml"
    text = path.read_text(encoding="utf-8")
    for old, new in [
        ("      mig:\n        strategy: single\n        profiles: {1g.10gb: 7}\n", ""),
        ("mode: operator", "mode: device-plugin"),
        ("gpus: 168", "gpus: 16"),
    ]:
        assert old in text, old
        text = text.replace(old, new)
    path.write_text(text, encoding="utf-8")
    result = run(project, "render", "ocp-a100-tuned")
    assert result.exit_code == 0, result.output
    (ds,) = find(load_objects(project / "rendered" / "ocp-a100-tuned"), "DaemonSet", "nvidia-device-plugin-a100")
    ctr = ds["spec"]["template"]["spec"]["containers"][0]
    assert ctr["securityContext"] == {
        "readOnlyRootFilesystem": True,
        "allowPrivilegeEscalation": False,
        "capabilities": {"drop": ["ALL"]},
    }
    assert [e for e in ctr["env"] if e["name"] == "NVIDIA_MIG_MONITOR_DEVICES"] == []


def test_scrape_labels_and_queries_agree(rendered):
    """honorLabels false renames pod/namespace to exported_*: the queries use those names."""
    for cluster, pod_label in [("eks-mi300x-inference", "exported_pod"), ("aks-h100-training", "pod")]:
        objects = load_objects(rendered / cluster)
        for so in find(objects, "ScaledObject"):
            (trigger,) = so["spec"]["triggers"]
            meta = trigger["metadata"]
            assert f'{pod_label}=~"{so["metadata"]["name"]}-' in meta["query"]
            assert meta["ignoreNullValues"] == "false"
            assert "metricName" not in meta
            assert so["spec"]["fallback"]["replicas"] >= 1
    (monitor,) = find(load_objects(rendered / "eks-mi300x-inference"), "ServiceMonitor")
    assert monitor["spec"]["endpoints"][0]["honorLabels"] is False


def test_trigger_authentication_only_with_an_auth_secret(rendered):
    eks = load_objects(rendered / "eks-mi300x-inference")
    (auth,) = find(eks, "TriggerAuthentication")
    assert auth["spec"]["secretTargetRef"] == [
        {"parameter": "bearerToken", "name": "prometheus-token", "key": "bearerToken"}
    ]
    assert find(eks, "ScaledObject")[0]["spec"]["triggers"][0]["authenticationRef"] == {
        "name": auth["metadata"]["name"]
    }
    assert find(load_objects(rendered / "aks-h100-training"), "TriggerAuthentication") == []


def test_keda_only_where_something_autoscales(rendered):
    assert (rendered / "aks-h100-training" / "00-crds-operators" / "keda").is_dir()
    assert not (rendered / "ocp-a100-tuned" / "00-crds-operators" / "keda").exists()


def test_mig_quota_keys(rendered):
    (quota,) = [
        q
        for q in find(load_objects(rendered / "eks-mi300x-inference"), "ResourceQuota")
        if q["metadata"]["namespace"] == "embeddings"
    ]
    assert quota["spec"]["hard"]["requests.nvidia.com/mig-1g.5gb"] == "16"
    assert quota["spec"]["hard"]["requests.nvidia.com/mig-2g.10gb"] == "8"


def test_argocd_release_shape(project, run):
    """The same release through Argo CD: an Application with the pinned chart and typed values."""
    path = project / "clusters" / "ocp-a100-tuned" / "cluster.yaml"
    text = path.read_text(encoding="utf-8").replace("engine: flux", "engine: argocd")
    text = "".join(line for line in text.splitlines(keepends=True) if "sourceName:" not in line)  # Flux only
    path.write_text(text, encoding="utf-8")
    assert run(project, "render", "ocp-a100-tuned").exit_code == 0
    objects = load_objects(project / "rendered" / "ocp-a100-tuned")
    (app,) = find(objects, "Application", "gpu-operator")
    assert app["spec"]["source"]["repoURL"] == "https://helm.ngc.nvidia.com/nvidia"
    assert app["spec"]["source"]["targetRevision"] == "v26.7.0"
    assert app["spec"]["destination"]["namespace"] == "gpu-operator"
    assert find(objects, "HelmRelease") == []


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl not installed")
@pytest.mark.parametrize("cluster", EXAMPLES)
def test_kustomize_builds(rendered, cluster):
    result = subprocess.run(["kubectl", "kustomize", str(rendered / cluster)], capture_output=True, encoding="utf-8")
    assert result.returncode == 0, result.stderr
    assert "kind: ValidatingAdmissionPolicy\n" in result.stdout


def test_amd_operator_mode(project, run):
    """AMD operator mode: the operator release plus one DeviceConfig per pool, schema-valid upstream."""
    from conftest import strict_args

    path = project / "clusters" / "eks-mi300x-inference" / "cluster.yaml"
    path.write_text(
        path.read_text(encoding="utf-8").replace(
            "  amd:\n    mode: device-plugin",
            "  amd:\n    mode: operator\n    driverImage: registry.example.com/gpu/amdgpu-driver",
        ),
        encoding="utf-8",
    )
    result = run(project, "render", "eks-mi300x-inference", *strict_args())
    assert result.exit_code == 0, result.output
    objects = load_objects(project / "rendered" / "eks-mi300x-inference")
    (config,) = find(objects, "DeviceConfig")
    assert config["spec"]["selector"] == {"karpenter.sh/nodepool": "mi300x"}
    assert config["spec"]["driver"]["enable"] is True and config["spec"]["driver"]["version"] == "6.4.3"
    assert config["spec"]["driver"]["image"] == "registry.example.com/gpu/amdgpu-driver"
    taint = {"key": "amd.com/gpu", "effect": "NoSchedule"}
    for tolerations in (
        config["spec"]["devicePlugin"]["devicePluginTolerations"],
        config["spec"]["devicePlugin"]["nodeLabellerTolerations"],
        config["spec"]["metricsExporter"]["tolerations"],
    ):
        assert any(tolerates(t, taint) for t in tolerations)
    assert find(objects, "Application", "amd-gpu-operator")[0]["spec"]["source"]["chart"] == "gpu-operator-charts"
    assert not [d for d in find(objects, "DaemonSet") if d["metadata"]["name"].startswith("amdgpu-")]


def unknown_keys(ours: dict, upstream: dict, prefix: str = "") -> list[str]:
    """Key paths of ``ours`` the upstream chart values do not have (free-form ``{}`` maps excepted)."""
    out = []
    for key, value in ours.items():
        path = f"{prefix}{key}"
        if key not in upstream:
            out.append(path)
        elif isinstance(value, dict) and isinstance(upstream[key], dict) and upstream[key]:
            out += unknown_keys(value, upstream[key], path + ".")
    return out


@pytest.mark.parametrize(
    "release,values_file",
    [
        ("gpu-operator", "gpu-operator/values.yaml"),
        ("keda", "keda/v2.20.2/values.yaml"),
        ("nvidia-dra-driver-gpu", "nvidia-dra-driver-gpu/25.12.0/values.yaml"),
    ],
)
def test_helm_values_exist_upstream(rendered, release, values_file):
    from conftest import SHARED, shared_missing

    path = SHARED / "helm-values" / values_file
    if not path.is_file():
        pytest.skip(shared_missing(path, "upstream chart values"))
    upstream = YAML(typ="safe").load(path.read_text(encoding="utf-8"))
    for cluster in EXAMPLES:
        objects = load_objects(rendered / cluster)
        try:
            values = helm_values(objects, release)
        except AssertionError:
            continue
        assert unknown_keys(values, upstream) == [], cluster


def test_gke_relies_on_its_own_toleration_injection(project, run):
    """GKE adds GPU tolerations to pods itself: the policy keeps the memory limit rule only."""
    path = project / "clusters" / "aks-h100-training" / "cluster.yaml"
    text = (
        path.read_text(encoding="utf-8")
        .replace("provider: aks", "provider: gke")
        .replace("admission: {enforceGpuTolerations: true}\n", "")
    )
    text = text.replace(
        "  cilium:\n", "  cilium:\n    enabled: false   # GKE's own dataplane: the policy is what is tested\n"
    )
    # without Cilium the API server's endpoints would have to be listed: not what is tested
    text = text.replace("    allowEgressToApiServer: true\n", "")
    # GKE's RDMA is the platform's own (fabrics in providers.json): no fabric on the pool
    text = re.sub(r"(?m)^    fabric: .*\n", "", text)
    # DNS-name egress needs Cilium: the namespace reaches the CIDR of a model mirror instead
    old = '    allowEgressToFQDNs: [huggingface.co, "*.huggingface.co", "*.hf.co"]\n'
    assert old in text
    path.write_text(text.replace(old, "    allowEgressTo: [10.30.0.0/16]\n"), encoding="utf-8")
    result = run(project, "render", "aks-h100-training")
    assert result.exit_code == 0, result.output
    (policy,) = find(
        load_objects(project / "rendered" / "aks-h100-training"), "ValidatingAdmissionPolicy", "gpu-pod-guardrails"
    )
    messages = [v["message"] for v in policy["spec"]["validations"]]
    assert messages and not any("tolerate" in m for m in messages)


def test_amd_device_plugin_names_its_program(rendered):
    """rocm/k8s-device-plugin has no ENTRYPOINT, only CMD ["./k8s-device-plugin", ...] in WORKDIR
    /root: `args` without `command` would run the first flag as the program."""
    objects = load_objects(rendered / "eks-mi300x-inference")
    (plugin,) = find(objects, "DaemonSet", "amdgpu-device-plugin-mi300x")[0]["spec"]["template"]["spec"]["containers"]
    assert plugin["command"] == ["./k8s-device-plugin"] and plugin["workingDir"] == "/root"
    assert "-resource_naming_strategy=single" in plugin["args"]
    (labeller,) = find(objects, "DaemonSet", "amdgpu-node-labeller-mi300x")[0]["spec"]["template"]["spec"]["containers"]
    assert labeller["command"] == ["./k8s-node-labeller"] and labeller["workingDir"] == "/root"
    for container in (plugin, labeller):
        assert all(a.startswith("-") for a in container["args"]), container["args"]


def test_every_nvidia_daemonset_uses_the_nvidia_runtime(rendered):
    """Device-plugin mode: the plugin, the exporter and the validation all need NVML from the
    NVIDIA runtime, selected by the RuntimeClass rendered beside them."""
    objects = load_objects(rendered / "eks-mi300x-inference")
    names = ["nvidia-device-plugin-a100-mig", "dcgm-exporter-a100-mig", "gpu-validation-a100-mig"]
    for name in names:
        (ds,) = find(objects, "DaemonSet", name)
        assert ds["spec"]["template"]["spec"].get("runtimeClassName") == "nvidia", name
    assert find(objects, "RuntimeClass", "nvidia")


def node_config_labels(objects: list[dict], pool: dict) -> dict[str, str]:
    """The labels the pool's node-config DaemonSet puts on each of its nodes."""
    (ds,) = find(objects, "DaemonSet", f"gpu-node-config-{pool['name']}")
    pod = ds["spec"]["template"]["spec"]
    assert pod["nodeSelector"] == pool["nodeSelector"]
    (init,) = pod["initContainers"]
    assert init["args"][0] == "once" and init["command"][:2] == ["sh", "-c"]
    return dict(a.split("=", 1) for a in init["args"][1:])


def test_operator_mode_labels_each_pool_with_its_configs(rendered):
    """The operator applies a pool's MIG layout and device plugin config only to nodes labelled
    nvidia.com/mig.config / nvidia.com/device-plugin.config: follow the labels to what the
    OpenShift pool advertises, and it is the 168 slices its quota assumes."""
    yaml = YAML(typ="safe")
    objects = load_objects(rendered / "ocp-a100-tuned")
    values = helm_values(objects, "gpu-operator")
    spec = spec_of("ocp-a100-tuned")
    (pool,) = [p for p in spec["nodePools"] if "gpu" in p]
    labels = node_config_labels(objects, pool)
    layouts = yaml.load(values["migManager"]["config"]["data"]["config.yaml"])["mig-configs"]
    (layout,) = layouts[labels["nvidia.com/mig.config"]]
    plugin = yaml.load(values["devicePlugin"]["config"]["data"][labels["nvidia.com/device-plugin.config"]])
    assert plugin["flags"]["migStrategy"] == "single"  # every MIG device advertised as nvidia.com/gpu
    advertised = sum(layout["mig-devices"].values()) * pool["gpu"]["perNode"] * pool["gpu"]["nodes"]
    (training,) = [w for w in spec["workloads"] if w["namespace"] == "research-training"]
    assert advertised == training["quota"]["gpus"] == 168
    # the labeller may label nodes and nothing else
    (role,) = find(objects, "ClusterRole", "gpu-node-config")
    assert role["rules"] == [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "patch"]}]


def test_operator_mode_labels_time_sliced_and_whole_gpu_pools(rendered):
    yaml = YAML(typ="safe")
    objects = load_objects(rendered / "aks-h100-training")
    configs = helm_values(objects, "gpu-operator")["devicePlugin"]["config"]["data"]
    pools = {p["name"]: p for p in spec_of("aks-h100-training")["nodePools"]}
    l40s = node_config_labels(objects, pools["l40s"])
    assert l40s == {"nvidia.com/device-plugin.config": "l40s"}  # no MIG pool: no mig.config label
    assert yaml.load(configs["l40s"])["sharing"]["timeSlicing"]["resources"][0]["replicas"] == 4
    h100 = node_config_labels(objects, pools["h100"])
    assert "sharing" not in yaml.load(configs[h100["nvidia.com/device-plugin.config"]])


def test_operator_default_device_plugin_config_is_the_pools_when_they_share_one(project, run):
    path = project / "clusters" / "aks-h100-training" / "cluster.yaml"
    text = path.read_text(encoding="utf-8")
    old = "gpu: {vendor: nvidia, model: H100-80GB, perNode: 8, nodes: 4}"
    assert old in text
    path.write_text(
        text.replace(old, old[:-1] + ", timeSlicing: {replicas: 4, renameByDefault: false}}"), encoding="utf-8"
    )
    result = run(project, "render", "aks-h100-training")
    assert result.exit_code == 0, result.output
    configs = helm_values(load_objects(project / "rendered" / "aks-h100-training"), "gpu-operator")["devicePlugin"][
        "config"
    ]["data"]
    assert configs["default"] == configs["l40s"] == configs["h100"]
    assert "timeSlicing" in configs["default"]


def test_dcgm_exporter_labels_series_with_the_node_and_keeps_only_sys_admin(rendered):
    """dcgm-exporter's Hostname label is NODE_NAME, else the pod's host name; upstream's manifest
    sets it, drops every other capability and mounts no API token."""
    (ds,) = find(load_objects(rendered / "eks-mi300x-inference"), "DaemonSet", "dcgm-exporter-a100-mig")
    pod = ds["spec"]["template"]["spec"]
    (ctr,) = pod["containers"]
    assert {"name": "NODE_NAME", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}} in ctr["env"]
    assert ctr["securityContext"]["capabilities"] == {"drop": ["ALL"], "add": ["SYS_ADMIN"]}
    assert ctr["securityContext"]["allowPrivilegeEscalation"] is False
    assert pod["automountServiceAccountToken"] is False
