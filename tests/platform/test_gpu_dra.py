"""GPUs through Dynamic Resource Allocation: the NVIDIA DRA driver release with and without the
GPU Operator, claim templates whose CEL selectors pick the devices the driver publishes, device
quotas, ComputeDomains, dcgm-exporter's DRA pod mapping, and resource.k8s.io/v1 objects checked
against the Kubernetes 1.34 schemas."""

from __future__ import annotations

import celpy
import pytest
from gpu_support import find, load_objects

from generator.validate import SchemaValidator

DRA = "onprem-gb200-dra"


def edit(project, old: str, new: str) -> None:
    path = project / "clusters" / DRA / "cluster.yaml"
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def render(project, run) -> list[dict]:
    result = run(project, "render", DRA)
    assert result.exit_code == 0, result.output
    return load_objects(project / "rendered" / DRA)


def release_values(objects: list[dict], name: str) -> dict:
    (release,) = [o for o in objects if o["kind"] in ("HelmRelease", "Application") and o["metadata"]["name"] == name]
    spec = release["spec"]
    return spec["values"] if release["kind"] == "HelmRelease" else spec["source"]["helm"]["valuesObject"]


def labeller_args(objects: list[dict], pool: str) -> list[str]:
    (ds,) = find(objects, "DaemonSet", f"gpu-node-config-{pool}")
    return ds["spec"]["template"]["spec"]["initContainers"][0]["args"]


def test_operator_mode_keeps_the_device_plugin_off_the_dra_pools(rendered):
    objects = load_objects(rendered / DRA)
    operator = release_values(objects, "gpu-operator")
    # the l40s pool stays on the device plugin, so the operator keeps running it there
    assert operator["devicePlugin"]["enabled"] is True
    assert operator["driver"]["manager"]["env"] == [
        {"name": "NODE_LABEL_FOR_GPU_POD_EVICTION", "value": "nvidia.com/dra-kubelet-plugin"}
    ]
    for pool in ("b200", "gb200"):
        args = labeller_args(objects, pool)
        assert "nvidia.com/gpu.deploy.device-plugin=false" in args and "nvidia.com/dra-kubelet-plugin=true" in args
    assert not [a for a in labeller_args(objects, "l40s") if "deploy.device-plugin" in a or "dra-kubelet" in a]
    # the labeller's admission policy lets it set those two labels as well
    (policy,) = find(objects, "ValidatingAdmissionPolicy", "gpu-node-config")
    managed = next(v["expression"] for v in policy["spec"]["variables"] if v["name"] == "managed")
    assert "'nvidia.com/gpu.deploy.device-plugin'" in managed and "'nvidia.com/dra-kubelet-plugin'" in managed

    driver = release_values(objects, "nvidia-dra-driver-gpu")
    assert driver["nvidiaDriverRoot"] == "/run/nvidia/driver"
    assert driver["resourceApiVersion"] == "resource.k8s.io/v1"
    assert driver["gpuResourcesEnabledOverride"] is True
    assert driver["kubeletPlugin"]["nodeSelector"] == {"nvidia.com/dra-kubelet-plugin": "true"}
    terms = driver["kubeletPlugin"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    pools = [t["matchExpressions"][0]["values"] for t in terms["nodeSelectorTerms"]]
    assert pools == [["b200"], ["gb200"]]
    # the claims share by MPS and by time-slicing; a gb200 pool is one NVLink domain
    # the kubelet plugin (compute-domains container included) runs on b200 too: no crash there on a
    # missing NVLink fabric
    assert driver["featureGates"] == {
        "MPSSupport": True,
        "TimeSlicingSettings": True,
        "CrashOnNVLinkFabricErrors": False,
    }
    assert driver["resources"] == {"gpus": {"enabled": True}, "computeDomains": {"enabled": True}}
    (release,) = find(objects, "HelmRelease", "nvidia-dra-driver-gpu")
    assert release["spec"]["chart"]["spec"]["version"] == "25.12.0"
    assert {"name": "gpu-operator", "namespace": "flux-system"} in release["spec"]["dependsOn"]
    (namespace,) = find(objects, "Namespace", "nvidia-dra-driver-gpu")
    assert namespace["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "privileged"


def test_operator_device_plugin_is_off_when_every_nvidia_pool_is_dra(project, run):
    edit(project, "  - name: l40s\n    nodeSelector: {node.example.com/pool: l40s}\n", "")
    edit(project, "    gpu: {vendor: nvidia, model: L40S, perNode: 4, nodes: 2}\n", "")
    edit(project, "{devices: {mig.nvidia.com: 48}, gpus: 4}", "{devices: {mig.nvidia.com: 48}}")
    objects = render(project, run)
    assert release_values(objects, "gpu-operator")["devicePlugin"]["enabled"] is False


def test_without_the_operator(project, run):
    """Device-plugin mode: no plugin on the DRA pools, the driver found on the host, the
    exporter mapping DRA devices to pods."""
    edit(project, "    mode: operator\n", "    mode: device-plugin\n")
    objects = render(project, run)
    plugins = sorted(
        d["metadata"]["name"] for d in find(objects, "DaemonSet") if "device-plugin" in d["metadata"]["name"]
    )
    assert plugins == ["nvidia-device-plugin-l40s"]
    assert find(objects, "RuntimeClass", "nvidia")
    driver = release_values(objects, "nvidia-dra-driver-gpu")
    assert driver["nvidiaDriverRoot"] == "/"
    assert "nodeSelector" not in driver["kubeletPlugin"]
    (release,) = find(objects, "HelmRelease", "nvidia-dra-driver-gpu")
    assert {"name": "gpu-operator", "namespace": "flux-system"} not in release["spec"].get("dependsOn", [])

    def exporter(pool: str) -> dict:
        (ds,) = find(objects, "DaemonSet", f"dcgm-exporter-{pool}")
        return ds["spec"]["template"]["spec"]

    b200 = exporter("b200")
    assert {"name": "KUBERNETES_ENABLE_DRA", "value": "true"} in b200["containers"][0]["env"]
    assert b200["serviceAccountName"] == "dcgm-exporter"
    assert "api-token" in [m["name"] for m in b200["containers"][0]["volumeMounts"]]
    l40s = exporter("l40s")
    assert "KUBERNETES_ENABLE_DRA" not in [e["name"] for e in l40s["containers"][0]["env"]]
    assert "serviceAccountName" not in l40s
    (role,) = find(objects, "ClusterRole", "dcgm-exporter-read-resourceslices")
    assert role["rules"] == [
        {"apiGroups": ["resource.k8s.io"], "resources": ["resourceslices"], "verbs": ["get", "list", "watch"]}
    ]


def test_exporter_dra_mapping_is_opt_in(project, run):
    """The pinned exporter waits for resource.k8s.io/v1beta1 forever where it is not served:
    without draPodMetrics it is not asked to."""
    edit(project, "    draPodMetrics: true\n", "")
    objects = render(project, run)
    assert "env" not in release_values(objects, "gpu-operator")["dcgmExporter"]
    assert not find(objects, "ClusterRole", "nvidia-dcgm-exporter-read-resourceslices")


def test_operator_exporter_gets_its_token_and_slice_access(rendered):
    objects = load_objects(rendered / DRA)
    env = release_values(objects, "gpu-operator")["dcgmExporter"]["env"]
    assert {"name": "KUBERNETES_ENABLE_DRA", "value": "true"} in env
    # the operator mounts the exporter's token only when pod metadata is on
    assert {"name": "DCGM_EXPORTER_KUBERNETES_ENABLE_POD_UID", "value": "true"} in env
    (binding,) = find(objects, "ClusterRoleBinding", "nvidia-dcgm-exporter-read-resourceslices")
    assert binding["subjects"] == [
        {"kind": "ServiceAccount", "name": "nvidia-dcgm-exporter", "namespace": "gpu-operator"}
    ]


# Devices as the kubelet plugin publishes them (deviceinfo.go, partitions.go, v25.12.0): the
# attribute map CEL sees as device.attributes['gpu.nvidia.com'].
B200_GPU = {"type": "gpu", "productName": "NVIDIA B200", "architecture": "Blackwell"}
GB200_GPU = {"type": "gpu", "productName": "NVIDIA GB200", "architecture": "Blackwell"}
L40S_GPU = {"type": "gpu", "productName": "NVIDIA L40S", "architecture": "Ada Lovelace"}


def mig(parent: dict, profile: str) -> dict:
    return {**parent, "type": "mig", "profile": profile}


def selected(template: dict, attributes: dict) -> bool:
    (request,) = template["spec"]["spec"]["devices"]["requests"]
    env = celpy.Environment()
    device = celpy.json_to_cel({"driver": "gpu.nvidia.com", "attributes": {"gpu.nvidia.com": attributes}})
    return all(
        bool(env.program(env.compile(s["cel"]["expression"])).evaluate({"device": device}))
        for s in request["exactly"].get("selectors", [])
    )


@pytest.fixture(scope="module")
def templates(rendered) -> dict[str, dict]:
    return {o["metadata"]["name"]: o for o in find(load_objects(rendered / DRA), "ResourceClaimTemplate")}


def test_claim_selectors_pick_the_pools_devices(templates):
    three = templates["b200-3g"]
    assert three["spec"]["spec"]["devices"]["requests"][0]["exactly"]["deviceClassName"] == "mig.nvidia.com"
    assert selected(three, mig(B200_GPU, "3g.90gb"))
    assert not selected(three, mig(B200_GPU, "1g.23gb"))
    # GB200 contains "B200": the family is matched as a whole word
    assert not selected(three, mig(GB200_GPU, "3g.90gb"))
    node = templates["gb200-node"]
    exactly = node["spec"]["spec"]["devices"]["requests"][0]["exactly"]
    assert exactly["deviceClassName"] == "gpu.nvidia.com" and exactly["count"] == 4
    assert selected(node, GB200_GPU)
    assert not selected(node, B200_GPU) and not selected(node, L40S_GPU)


def test_claim_sharing_is_the_drivers_config(templates):
    (config,) = templates["b200-1g-mps"]["spec"]["spec"]["devices"]["config"]
    assert config["requests"] == ["gpu"]
    assert config["opaque"]["driver"] == "gpu.nvidia.com"
    assert config["opaque"]["parameters"] == {
        "apiVersion": "resource.nvidia.com/v1beta1",
        "kind": "MigDeviceConfig",
        "sharing": {
            "strategy": "MPS",
            "mpsConfig": {"defaultActiveThreadPercentage": 50, "defaultPinnedDeviceMemoryLimit": "10Gi"},
        },
    }
    (config,) = templates["gb200-timesliced"]["spec"]["spec"]["devices"]["config"]
    assert config["opaque"]["parameters"]["kind"] == "GpuConfig"
    assert config["opaque"]["parameters"]["sharing"] == {
        "strategy": "TimeSlicing",
        "timeSlicingConfig": {"interval": "Long"},
    }
    assert "config" not in templates["b200-3g"]["spec"]["spec"]["devices"]


def test_device_quotas_and_compute_domains(rendered):
    objects = load_objects(rendered / DRA)
    (quota,) = [q for q in find(objects, "ResourceQuota") if q["metadata"]["namespace"] == "llm-serving"]
    assert quota["spec"]["hard"]["mig.nvidia.com.deviceclass.resource.k8s.io/devices"] == "48"
    assert quota["spec"]["hard"]["requests.nvidia.com/gpu"] == "4"
    (quota,) = [q for q in find(objects, "ResourceQuota") if q["metadata"]["namespace"] == "nvl-training"]
    assert quota["spec"]["hard"] == {"gpu.nvidia.com.deviceclass.resource.k8s.io/devices": "72"}
    (domain,) = find(objects, "ComputeDomain", "nvl72")
    assert domain["metadata"]["namespace"] == "nvl-training"
    assert domain["spec"] == {
        "numNodes": 0,
        "channel": {"resourceClaimTemplate": {"name": "nvl72-channel"}, "allocationMode": "Single"},
    }


def test_resource_v1_objects_are_checked_against_the_1_34_schemas(templates):
    """kubernetes-validate bundles the 1.34 strict schemas of resource.k8s.io/v1: a rendered
    claim template passes them, and a mistyped field would not."""
    validator = SchemaValidator("1.34")
    template = templates["b200-1g-mps"]
    assert validator.check(template) == []
    broken = {**template, "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactlyy": {}}]}}}}
    assert validator.check(broken)


def test_no_dra_objects_without_dra_pools(rendered):
    for cluster in ("aks-h100-training", "ocp-a100-tuned", "eks-mi300x-inference", "onprem-mi300x-operator"):
        objects = load_objects(rendered / cluster)
        assert not find(objects, "ResourceClaimTemplate") and not find(objects, "ComputeDomain")
        assert not [o for o in objects if o["metadata"]["name"] == "nvidia-dra-driver-gpu"]


def test_upstream_dra_examples_lint_clean_at_1_34(run, project):
    from conftest import SHARED, shared_missing

    examples = SHARED / "upstream-examples" / "k8s-dra-driver-gpu"
    if not examples.is_dir():
        pytest.skip(shared_missing(examples, "the DRA driver's upstream examples"))
    result = run(project, "lint", "--kubernetes-version", "1.34", str(examples))
    assert result.exit_code == 0, result.output
    assert " 0 error(s)" in result.output


def test_documented_workloads_use_offered_claims_and_are_admitted(rendered):
    """docs/examples/dra-claims.yaml names only claim templates the platform renders (or the
    ComputeDomain generates) and passes the admission policy."""
    from conftest import REPO
    from ruamel.yaml import YAML
    from test_gpu_admission_cel import evaluate

    objects = load_objects(rendered / DRA)
    offered = {(o["metadata"]["namespace"], o["metadata"]["name"]) for o in find(objects, "ResourceClaimTemplate")}
    offered |= {
        (o["metadata"]["namespace"], o["spec"]["channel"]["resourceClaimTemplate"]["name"])
        for o in find(objects, "ComputeDomain")
    }
    (policy,) = find(objects, "ValidatingAdmissionPolicy", "gpu-pod-guardrails")
    workloads = list(
        YAML(typ="safe").load_all((REPO / "docs" / "examples" / "dra-claims.yaml").read_text(encoding="utf-8"))
    )
    assert [w["kind"] for w in workloads] == ["Deployment", "Job"]
    for obj in workloads:
        spec = obj["spec"]["template"]["spec"]
        for claim in spec["resourceClaims"]:
            assert (obj["metadata"]["namespace"], claim["resourceClaimTemplateName"]) in offered
        assert evaluate(policy, obj) == []
        without = {**obj, "spec": {**obj["spec"], "template": {"spec": {**spec, "tolerations": []}}}}
        assert evaluate(policy, without), "a claim pod without the toleration must be refused"


def test_argocd_installs_the_driver_after_the_operator(project, run):
    edit(
        project,
        "  engine: flux\n  repository: https://git.example.com/platform/gitops.git\n  branch: main\n",
        "  engine: argocd\n  repository: https://git.example.com/platform/gitops.git\n  branch: main\n",
    )
    objects = render(project, run)
    (app,) = find(objects, "Application", "nvidia-dra-driver-gpu")
    assert app["metadata"]["annotations"]["argocd.argoproj.io/sync-wave"] == "1"
    assert app["spec"]["source"] == {
        "repoURL": "https://helm.ngc.nvidia.com/nvidia",
        "chart": "nvidia-dra-driver-gpu",
        "targetRevision": "25.12.0",
        "helm": {
            "releaseName": "nvidia-dra-driver-gpu",
            "valuesObject": release_values(objects, "nvidia-dra-driver-gpu"),
        },
    }
    # the Namespace (Pod Security privileged) is rendered, not created by Argo CD
    assert "CreateNamespace=true" not in app["spec"]["syncPolicy"]["syncOptions"]
    assert app["spec"]["destination"]["namespace"] == "nvidia-dra-driver-gpu"


def test_automatic_driver_upgrades_with_dra_and_device_plugin_pools_are_refused(project, run):
    """The operator's upgrade waits for its validator on each node (k8s-operator-libs
    validation_manager.go: 600 s, then upgrade-failed), whose plugin check never passes on a DRA
    node while another pool keeps the operator's device plugin on."""
    edit(project, "    driver: {upgradePolicy: {autoUpgrade: false}}\n", "")
    result = run(project, "render", DRA)
    assert result.exit_code == 2
    (line,) = [x for x in result.output.splitlines() if ": error: " in x]
    assert line.startswith(f"clusters/{DRA}/cluster.yaml:") and "upgrade-failed" in line
    assert "the DRA pools (b200, gb200) while l40s keep" in line
    assert "hint: set gpu.nvidia.driver.upgradePolicy.autoUpgrade: false" in result.output
    # with every NVIDIA pool on DRA the operator's device plugin is off: upgrades validate
    edit(project, "  - name: l40s\n    nodeSelector: {node.example.com/pool: l40s}\n", "")
    edit(project, "    gpu: {vendor: nvidia, model: L40S, perNode: 4, nodes: 2}\n", "")
    edit(project, "{devices: {mig.nvidia.com: 48}, gpus: 4}", "{devices: {mig.nvidia.com: 48}}")
    assert run(project, "render", DRA).exit_code == 0


def test_dra_pod_metrics_need_the_api_version_the_exporter_reads_in_the_runtime_config(project, run):
    """draPodMetrics reads resource.k8s.io/v1beta1, off by default on 1.34: the input must say the
    API server serves it (apiServer.runtimeConfig), else the exporter serves no metrics."""
    from tests.inputs.test_gpu_consistency import edit, line_of, render_fails

    text = edit(project, "onprem-gb200-dra", "apiServer: {runtimeConfig: [resource.k8s.io/v1beta1]}\n", "")
    render_fails(
        run,
        project,
        "onprem-gb200-dra",
        line_of(text, "    draPodMetrics: true"),
        "gpu.nvidia.draPodMetrics needs the API server to serve resource.k8s.io/v1beta1",
        "apiServer: {runtimeConfig: [resource.k8s.io/v1beta1]}",
    )


def test_fabric_errors_crash_the_plugin_where_every_dra_pool_is_multi_node_nvlink(project, run):
    """The chart's one kubelet plugin DaemonSet carries the compute-domains container to every DRA
    node (templates/kubeletplugin.yaml); the plugin reads no node label that could scope it
    (cmd/compute-domain-kubelet-plugin main.go: flags and environment only). Where every DRA pool
    is Multi-Node NVLink, CrashOnNVLinkFabricErrors keeps its upstream default (on: a GB200 node
    whose fabric is not registered crashes its plugin instead of publishing a ComputeDomain
    channel without a clique); where a single-node NVLink pool shares the DaemonSet, it is off."""
    driver = release_values(render(project, run), "nvidia-dra-driver-gpu")
    assert driver["featureGates"]["CrashOnNVLinkFabricErrors"] is False
    edit(project, "      allocation: dra\n", "      allocation: dra\n      multiNodeNVLink: true\n")
    driver = release_values(render(project, run), "nvidia-dra-driver-gpu")
    assert "CrashOnNVLinkFabricErrors" not in driver["featureGates"]
    assert driver["resources"]["computeDomains"] == {"enabled": True}


def test_no_compute_domains_without_a_multi_node_nvlink_pool(project, run):
    edit(project, "allocation: dra, multiNodeNVLink: true}", "allocation: dra}")
    edit(project, "    computeDomains:\n      - {name: nvl72, pool: gb200}\n", "")
    driver = release_values(render(project, run), "nvidia-dra-driver-gpu")
    assert driver["resources"]["computeDomains"] == {"enabled": False}
    assert "CrashOnNVLinkFabricErrors" not in driver["featureGates"]
