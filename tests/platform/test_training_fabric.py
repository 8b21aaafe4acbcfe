"""The training fabric rendered from the pool definition (``nodePools[].fabric``): the Network
Operator with a NicNodePolicy per InfiniBand/RoCE pool, the EFA device plugin per EFA pool, and
the input checks that refuse a fabric the provider or instance type cannot offer."""

from __future__ import annotations

import ipaddress
import json
import subprocess

import pytest
from conftest import REPO
from gpu_support import find, load_objects
from ruamel.yaml import YAML
from test_gpu_stack import blocking, spec_of, tolerates

from generator.inputs.advertised import RDMA_SHARED_UNITS, pool_offers

AKS = "aks-h100-training"
EKS = "eks-mi300x-inference"
ONPREM = "onprem-gb200-dra"


def _values(objects: list[dict], name: str) -> dict:
    for obj in objects:
        if obj["kind"] == "HelmRelease" and obj["metadata"]["name"] == name:
            return obj["spec"]["values"]
        if obj["kind"] == "Application" and obj["metadata"]["name"] == name:
            return obj["spec"]["source"]["helm"]["valuesObject"]
    raise AssertionError(f"no release {name}")


@pytest.mark.parametrize("cluster", [AKS, ONPREM])
def test_rdma_pools_get_a_nic_node_policy_bound_to_the_pool(rendered, cluster):
    objects = load_objects(rendered / cluster)
    pools = [p for p in spec_of(cluster)["nodePools"] if p["fabric"]["type"] in ("infiniband", "roce")]
    assert pools
    policies = find(objects, "NicNodePolicy")
    assert sorted(p["metadata"]["name"] for p in policies) == sorted(f"rdma-{p['name']}" for p in pools)
    for pool in pools:
        (policy,) = find(objects, "NicNodePolicy", f"rdma-{pool['name']}")
        spec = policy["spec"]
        # on the pool's nodes, and only where NFD found an NVIDIA NIC
        assert spec["nodeSelector"] == {**pool["nodeSelector"], "feature.node.kubernetes.io/pci-15b3.present": "true"}
        # the operator's plugin DaemonSet tolerates every taint of the pool (the closure)
        for taint in blocking(pool):
            assert any(tolerates(t, taint) for t in spec["tolerations"]), (pool["name"], taint)
        config = json.loads(spec["rdmaSharedDevicePlugin"]["config"])
        (entry,) = config["configList"]
        assert "rdma/" + entry["resourceName"] == pool["fabric"]["resourceName"] == "rdma/ib"
        assert entry["selectors"] == {"vendors": ["15b3"], "linkTypes": ["infiniband"]}
        # what lint's cluster contract says a node offers is what the plugin advertises
        assert entry["rdmaHcaMax"] == RDMA_SHARED_UNITS == pool_offers(pool)[0]["rdma/ib"]
        assert spec["rdmaSharedDevicePlugin"]["version"] == "network-operator-v26.4.1"
    values = _values(objects, "network-operator")
    # one NFD per cluster: the project's, which also renders the NIC rule
    assert values["nfd"] == {"enabled": False, "deployNodeFeatureRules": False}
    (rule,) = find(objects, "NodeFeatureRule", "gpu-gitops-hardware")
    (nic,) = [r for r in rule["spec"]["rules"] if r["name"] == "nic-nvidia"]
    assert nic["matchFeatures"][0]["matchExpressions"]["vendor"] == {"op": "In", "value": ["15b3"]}
    (namespace,) = find(objects, "Namespace", "nvidia-network-operator")
    assert namespace["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "privileged"


def test_efa_pool_gets_the_efa_device_plugin_bound_to_the_pool(rendered):
    objects = load_objects(rendered / EKS)
    (pool,) = [p for p in spec_of(EKS)["nodePools"] if p["fabric"]["type"] == "efa"]
    assert pool["fabric"]["resourceName"] == "vpc.amazonaws.com/efa"
    assert pool_offers(pool)[0]["vpc.amazonaws.com/efa"] == 32  # the p5.48xlarge's interfaces
    values = _values(objects, f"aws-efa-k8s-device-plugin-{pool['name']}")
    assert values["nodeSelector"] == pool["nodeSelector"]
    for taint in blocking(pool):
        assert any(tolerates(t, taint) for t in values["tolerations"]), taint
    assert not find(objects, "NicNodePolicy")
    assert not [o for o in objects if o["metadata"]["name"] == "network-operator"]


def test_clusters_without_a_fabric_render_none_of_it(rendered):
    objects = load_objects(rendered / "onprem-mi300x-operator")
    assert not find(objects, "NicNodePolicy")
    assert not [o for o in objects if o["metadata"]["name"].startswith(("aws-efa", "network-operator"))]


def _render_fails(project, run, cluster, old, new, needle, message, hint):
    path = project / "clusters" / cluster / "cluster.yaml"
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    text = text.replace(old, new, 1)
    path.write_text(text, encoding="utf-8")
    line = text[: text.index(needle)].count("\n") + 1
    result = run(project, "render", cluster)
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    at = [
        n for n, ln in enumerate(lines) if ln.startswith(f"clusters/{cluster}/cluster.yaml:{line}:") and message in ln
    ]
    assert at, result.stderr
    assert lines[at[0] + 1].startswith("  hint: ") and hint in lines[at[0] + 1], result.stderr


AKS_FABRIC = "fabric: {type: infiniband, nics: 8, nicModel: ConnectX-7, network: {master: ib0, range: 192.168.64.0/18}}"
EKS_FABRIC = "fabric: {type: efa, nics: 32, nicModel: EFA}"

CASES = {
    "fabric-the-provider-lacks": (
        AKS,
        AKS_FABRIC,
        "fabric: {type: roce, nics: 8}",
        "type: roce",
        "provider aks offers no roce fabric",
        "fabrics",
    ),
    "nics-not-one-per-gpu": (
        AKS,
        AKS_FABRIC,
        "fabric: {type: infiniband, nics: 4}",
        "nics: 4",
        "aks pairs 1 fabric NIC with each GPU: 8 GPUs per node have 8",
        "set fabric.nics: 8",
    ),
    "rdma-resource-without-its-prefix": (
        AKS,
        AKS_FABRIC,
        "fabric: {type: infiniband, nics: 8, resourceName: nvidia.com/ib}",
        "resourceName: nvidia.com/ib",
        "the RDMA shared device plugin advertises its resources under rdma/",
        "rdma/ib",
    ),
    "efa-without-huge-pages": (
        EKS,
        EKS_FABRIC + "\n    hugepages: {2Mi: 5120}",
        EKS_FABRIC,
        "type: efa",
        "has an efa fabric but reserves no 2Mi huge pages",
        ".hugepages.2Mi",
    ),
    "efa-interfaces-of-the-instance-type": (
        EKS,
        EKS_FABRIC,
        "fabric: {type: efa, nics: 8}",
        "nics: 8",
        "p5.48xlarge has 32 EFA interfaces",
        "set fabric.nics: 32",
    ),
    "efa-on-an-instance-type-without-it": (
        EKS,
        "nodeSelector: {karpenter.sh/nodepool: a100-mig}",
        "nodeSelector: {karpenter.sh/nodepool: a100-mig, node.kubernetes.io/instance-type: g5.2xlarge}\n"
        "    fabric: {type: efa}\n    hugepages: {2Mi: 1024}",
        "g5.2xlarge",
        "instance type 'g5.2xlarge' has no Elastic Fabric Adapter",
        "p5.48xlarge",
    ),
    "efa-under-another-name": (
        EKS,
        EKS_FABRIC,
        "fabric: {type: efa, resourceName: aws.com/efa}",
        "resourceName: aws.com/efa",
        "the EFA device plugin advertises only vpc.amazonaws.com/efa",
        "remove fabric.resourceName",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_fabric_the_pool_cannot_have_is_a_located_error(project, run, case):
    _render_fails(project, run, *CASES[case])


# ---- Workload side: baseline with IPC_LOCK (podSecurity: baseline-ipc-lock) ----


def _fabric_policy(rendered):
    from generator.contract.model import Policy

    objects = load_objects(rendered / AKS)
    (policy,) = find(objects, "ValidatingAdmissionPolicy", "fabric-pod-security")
    (binding,) = find(objects, "ValidatingAdmissionPolicyBinding", "fabric-pod-security")
    assert binding["spec"]["validationActions"] == ["Deny"]
    namespaces = tuple(binding["spec"]["matchResources"]["namespaceSelector"]["matchExpressions"][0]["values"])
    return Policy("fabric-pod-security", policy["spec"], namespaces, ("Deny",)), objects


def _training_job(**container_security) -> dict:
    container = {
        "name": "train",
        "image": "nvcr.io/nvidia/pytorch:25.01-py3",
        "resources": {"limits": {"nvidia.com/gpu": 8, "rdma/ib": 1, "memory": "512Gi"}},
        "securityContext": {"capabilities": {"add": ["IPC_LOCK"]}, **container_security},
    }
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "train", "namespace": "gpu-training"},
        "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [container]}}},
    }


def test_ipc_lock_namespace_is_privileged_for_pod_security_and_guarded_by_the_policy(rendered):
    from generator.lint.admission import judge

    policy, objects = _fabric_policy(rendered)
    assert policy.namespaces == ("gpu-training",)
    (namespace,) = find(objects, "Namespace", "gpu-training")
    assert namespace["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "privileged"
    # a namespace that keeps plain baseline is not bound
    (other,) = find(objects, "Namespace", "gpu-inference")
    assert other["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "baseline"
    assert judge(policy, _training_job(), "gpu-training") == []
    assert judge(policy, _training_job(), "gpu-inference") == []


BASELINE_BREACHES = {
    "capability": ({"capabilities": {"add": ["IPC_LOCK", "SYS_ADMIN"]}}, "capabilities.add may only name IPC_LOCK"),
    "privileged": ({"privileged": True}, "privileged containers are not allowed"),
    "seccomp": ({"seccompProfile": {"type": "Unconfined"}}, "seccompProfile.type Unconfined"),
    "proc-mount": ({"procMount": "Unmasked"}, "procMount must be Default"),
    "selinux-user": ({"seLinuxOptions": {"user": "system_u"}}, "seLinuxOptions may only set"),
}


@pytest.mark.parametrize("case", sorted(BASELINE_BREACHES))
def test_the_policy_denies_what_baseline_denies_beyond_ipc_lock(rendered, case):
    from generator.lint.admission import judge

    policy, _ = _fabric_policy(rendered)
    security, message = BASELINE_BREACHES[case]
    denials = judge(policy, _training_job(**security), "gpu-training")
    assert [d.action for d in denials] == ["Deny"] and message in denials[0].message, denials


@pytest.mark.parametrize(
    "spec, message",
    [
        ({"hostNetwork": True}, "hostNetwork, hostPID and hostIPC are not allowed"),
        ({"volumes": [{"name": "root", "hostPath": {"path": "/"}}]}, "hostPath volumes are not allowed"),
        ({"securityContext": {"sysctls": [{"name": "kernel.msgmax", "value": "1"}]}}, "only the sysctls"),
    ],
)
def test_the_policy_denies_host_access_and_unsafe_sysctls(rendered, spec, message):
    from generator.lint.admission import judge

    policy, _ = _fabric_policy(rendered)
    job = _training_job()
    job["spec"]["template"]["spec"].update(spec)
    denials = judge(policy, job, "gpu-training")
    assert len(denials) == 1 and message in denials[0].message, denials


def test_baseline_ipc_lock_without_admission_is_a_located_error(project, run):
    _render_fails(
        project,
        run,
        AKS,
        "admission: {enforceGpuTolerations: true}",
        "admission: {enforceGpuTolerations: true, enabled: false}",
        "podSecurity: baseline-ipc-lock",
        "has podSecurity baseline-ipc-lock, but admission is off",
        "admission.enabled: true",
    )


# ---- Validation: the fabric's RDMA devices on each node ----

SCRIPT = REPO / "libsonnet" / "scripts" / "validate-gpu-node.sh"


def _hca(sysfs, name: str, *, vendor="0x15b3", layer="InfiniBand", states=("4: ACTIVE",), driver="mlx5_core"):
    """A device under <sysfs>/class/infiniband as the kernel lays it out (ports/<n>/state,
    link_layer; device/vendor; device/driver a link to the driver)."""
    dev = sysfs / "class" / "infiniband" / name
    (dev / "device").mkdir(parents=True)
    (dev / "device" / "vendor").write_text(vendor + "\n", encoding="utf-8")
    drivers = sysfs / "bus" / "drivers" / driver
    drivers.mkdir(parents=True, exist_ok=True)
    (dev / "device" / "driver").symlink_to(drivers)
    for n, state in enumerate(states, 1):
        port = dev / "ports" / str(n)
        port.mkdir(parents=True)
        (port / "state").write_text(state + "\n", encoding="utf-8")
        (port / "link_layer").write_text(layer + "\n", encoding="utf-8")


def _fabric_check(sysfs, *args):
    env = {"PATH": "/usr/bin:/bin", "NODE_NAME": "gpu-node-1", "SYSFS": str(sysfs)}
    return subprocess.run(["sh", str(SCRIPT), "fabric", *args], capture_output=True, encoding="utf-8", env=env)


def test_fabric_check_counts_active_nvidia_hcas_of_the_link_layer(tmp_path):
    for i in range(4):
        _hca(tmp_path, f"mlx5_{i}")
    _hca(tmp_path, "mlx5_4", layer="Ethernet")  # the front-end NIC: not the InfiniBand fabric
    result = _fabric_check(tmp_path, "infiniband", "4")
    assert result.returncode == 0 and "PASS" in result.stdout and "devices=4" in result.stdout, result
    result = _fabric_check(tmp_path, "infiniband", "5")
    assert result.returncode == 1 and "found 4 infiniband devices with an active port" in result.stdout, result
    assert _fabric_check(tmp_path, "roce", "1").returncode == 0  # mlx5_4


def test_fabric_check_names_the_devices_whose_ports_are_down(tmp_path):
    _hca(tmp_path, "mlx5_0")
    _hca(tmp_path, "mlx5_1", states=("1: DOWN",))
    _hca(tmp_path, "irdma0", vendor="0x8086")  # another vendor's RDMA NIC is not the fabric
    result = _fabric_check(tmp_path, "infiniband", "2")
    assert result.returncode == 1, result
    assert "found 1 infiniband devices with an active port, the pool declares 2" in result.stdout
    assert "(no active port: mlx5_1)" in result.stdout


def test_fabric_check_counts_efa_devices_by_their_driver(tmp_path):
    for i in range(2):
        _hca(tmp_path, f"rdmap{i}s0", vendor="0x1d0f", layer="Unspecified", driver="efa")
    _hca(tmp_path, "mlx5_0")
    assert _fabric_check(tmp_path, "efa", "2").returncode == 0
    result = _fabric_check(tmp_path, "efa", "32")
    assert result.returncode == 1 and "found 2 efa devices" in result.stdout, result


def test_fabric_check_without_rdma_devices_fails_with_the_reason(tmp_path):
    result = _fabric_check(tmp_path, "infiniband", "8")
    assert result.returncode == 1 and "does not exist (is the NIC's RDMA driver loaded?)" in result.stdout


@pytest.mark.parametrize("cluster", [AKS, EKS, ONPREM])
def test_fabric_pools_validate_their_fabric_and_its_allocatable(rendered, cluster):
    objects = load_objects(rendered / cluster)
    for pool in spec_of(cluster)["nodePools"]:
        fabric = pool["fabric"]
        if fabric["type"] == "none":
            continue
        (ds,) = find(objects, "DaemonSet", f"gpu-validation-{pool['name']}")
        inits = {c["name"]: c for c in ds["spec"]["template"]["spec"]["initContainers"]}
        assert inits["fabric"]["command"][2:] == ["fabric", fabric["type"], str(fabric["nics"])]
        assert inits["fabric"]["securityContext"]["capabilities"] == {"drop": ["ALL"]}
        if inits["advertised"]["command"][2] == "advertised":  # a DRA pool checks ResourceSlices instead
            offered = pool_offers(pool)[0][fabric["resourceName"]]
            assert f"{fabric['resourceName']}={offered}" in inits["advertised"]["command"]


# ---- The on-demand two-node NCCL test ----


def test_nccl_test_is_a_suspended_bounded_two_node_template_the_namespace_admits(rendered):
    from generator.contract.model import Policy
    from generator.lint.admission import judge

    objects = load_objects(rendered / AKS)
    (pool,) = [p for p in spec_of(AKS)["nodePools"] if p["name"] == "h100"]
    (cron,) = find(objects, "CronJob", "nccl-test-h100")
    assert cron["metadata"]["namespace"] == "gpu-training" and cron["spec"]["suspend"] is True
    job = cron["spec"]["jobTemplate"]["spec"]
    assert (job["completionMode"], job["completions"], job["parallelism"], job["backoffLimit"]) == ("Indexed", 2, 2, 0)
    assert job["activeDeadlineSeconds"] == 900 and job["ttlSecondsAfterFinished"] == 3600
    pod = job["template"]["spec"]
    (service,) = find(objects, "Service", "nccl-test-h100")
    assert service["spec"]["clusterIP"] == "None" and pod["subdomain"] == "nccl-test-h100"
    assert service["spec"]["selector"].items() <= job["template"]["metadata"]["labels"].items()
    anti = pod["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]
    assert anti["topologyKey"] == "kubernetes.io/hostname"
    assert pod["nodeSelector"] == pool["nodeSelector"]
    (container,) = pod["containers"]
    assert "--master-addr=$(JOB_NAME)-0.nccl-test-h100" in container["command"]
    # the pool's secondary network, which lint's CL014 expects of a pod with the fabric
    assert job["template"]["metadata"]["annotations"] == {"k8s.v1.cni.cncf.io/networks": "fabric-h100"}
    assert find(objects, "NetworkAttachmentDefinition", "fabric-h100")[0]["metadata"]["namespace"] == "gpu-training"
    assert container["resources"]["limits"] == {"memory": "64Gi", "nvidia.com/gpu": 8, "rdma/ib": 1}
    assert container["securityContext"]["capabilities"] == {"drop": ["ALL"], "add": ["IPC_LOCK"]}
    assert {"name": "NCCL_NET", "value": "IB"} in container["env"]
    # both admission policies bound to the namespace admit the Jobs made from it
    for name in ("gpu-pod-guardrails", "fabric-pod-security"):
        (policy,) = find(objects, "ValidatingAdmissionPolicy", name)
        (binding,) = find(objects, "ValidatingAdmissionPolicyBinding", name)
        namespaces = tuple(binding["spec"]["matchResources"]["namespaceSelector"]["matchExpressions"][0]["values"])
        assert judge(Policy(name, policy["spec"], namespaces), cron, "gpu-training") == [], name


NCCL_CASES = {
    "namespace-without-ipc-lock": (
        "fabric: {ncclTestNamespace: gpu-training}",
        "fabric: {ncclTestNamespace: gpu-inference}",
        "ncclTestNamespace: gpu-inference",
        "'gpu-inference' is not a workload namespace with podSecurity baseline-ipc-lock",
        "baseline-ipc-lock",
    ),
}


@pytest.mark.parametrize("case", sorted(NCCL_CASES))
def test_an_nccl_test_that_cannot_run_is_a_located_error(project, run, case):
    _render_fails(project, run, AKS, *NCCL_CASES[case])


def test_an_nccl_test_with_nothing_to_test_renders_none_with_a_warning(project, run):
    path = project / "clusters" / AKS / "cluster.yaml"
    text = path.read_text(encoding="utf-8").replace(AKS_FABRIC, "fabric: {type: none}", 1)
    path.write_text(text, encoding="utf-8")
    line = text[: text.index("ncclTestNamespace: gpu-training")].count("\n") + 1
    result = run(project, "render", AKS)
    assert result.exit_code == 0, result.output
    assert f"clusters/{AKS}/cluster.yaml:{line}:" in result.stderr and "no pool has NVIDIA whole GPUs" in result.stderr
    assert not (project / "rendered" / AKS / "20-workloads" / "nccl-test").exists()


# ---- The secondary network on the fabric: Multus, IPoIB/Macvlan, nv-ipam ----


@pytest.mark.parametrize("cluster", [AKS, ONPREM])
def test_fabric_network_is_an_attachment_in_each_namespace_that_uses_the_fabric(rendered, cluster):
    objects = load_objects(rendered / cluster)
    spec = spec_of(cluster)
    pools = [p for p in spec["nodePools"] if "network" in p["fabric"]]
    namespaces = [w["namespace"] for w in spec["workloads"] if w["podSecurity"] == "baseline-ipc-lock"]
    assert pools and namespaces
    attachments = find(objects, "NetworkAttachmentDefinition")
    assert sorted((a["metadata"]["namespace"], a["metadata"]["name"]) for a in attachments) == sorted(
        (ns, f"fabric-{p['name']}") for p in pools for ns in namespaces
    )
    for attachment in attachments:
        (pool,) = [p for p in pools if f"fabric-{p['name']}" == attachment["metadata"]["name"]]
        network = pool["fabric"]["network"]
        config = json.loads(attachment["spec"]["config"])
        assert config["name"] == attachment["metadata"]["name"] and config["cniVersion"] == "0.3.1"
        assert (config["type"], config["master"]) == ("ipoib", network["master"])
        assert config["ipam"] == {"type": "nv-ipam", "poolName": attachment["metadata"]["name"]}


@pytest.mark.parametrize("cluster", [AKS, ONPREM])
def test_each_fabric_network_has_an_ip_pool_on_the_pools_nic_nodes(rendered, cluster):
    objects = load_objects(rendered / cluster)
    pools = [p for p in spec_of(cluster)["nodePools"] if "network" in p["fabric"]]
    ip_pools = find(objects, "IPPool")
    # in the operator's namespace, where nv-ipam reads them (--ippools-namespace)
    assert sorted((p["metadata"]["namespace"], p["metadata"]["name"]) for p in ip_pools) == sorted(
        ("nvidia-network-operator", f"fabric-{p['name']}") for p in pools
    )
    for pool in pools:
        (ip_pool,) = find(objects, "IPPool", f"fabric-{pool['name']}")
        network = pool["fabric"]["network"]
        spec = ip_pool["spec"]
        assert (spec["subnet"], spec["perNodeBlockSize"]) == (network["range"], network["perNodeBlockSize"])
        assert "gateway" not in spec and "defaultGateway" not in spec
        excluded = [ipaddress.ip_network(cidr) for cidr in network.get("exclude", [])]
        assert spec.get("exclusions", []) == [
            {"startIP": str(n.network_address), "endIP": str(n.broadcast_address)} for n in excluded
        ]
        (term,) = spec["nodeSelector"]["nodeSelectorTerms"]
        wanted = {**pool["nodeSelector"], "feature.node.kubernetes.io/pci-15b3.present": "true"}
        assert {e["key"]: e["values"] for e in term["matchExpressions"]} == {k: [v] for k, v in wanted.items()}
        assert {e["operator"] for e in term["matchExpressions"]} == {"In"}


def test_ip_pool_exclusions_end_at_the_last_address_of_each_cidr(project, run):
    path = project / "clusters" / ONPREM / "cluster.yaml"
    text = path.read_text(encoding="utf-8")
    assert ONPREM_NETWORK in text
    v6 = "network: {master: ib0, range: 'fd00:30::/64', exclude: ['fd00:30::/120', 'fd00:30::ff00/123']}"
    path.write_text(text.replace(ONPREM_NETWORK, v6, 1), encoding="utf-8")
    result = run(project, "render", ONPREM)
    assert result.exit_code == 0, result.output
    (ip_pool,) = find(load_objects(project / "rendered" / ONPREM), "IPPool", "fabric-gb200")
    assert ip_pool["spec"]["exclusions"] == [
        {"startIP": "fd00:30::", "endIP": "fd00:30:0:0:0:0:0:ff"},
        {"startIP": "fd00:30::ff00", "endIP": "fd00:30:0:0:0:0:0:ff1f"},
    ]


@pytest.mark.parametrize("cluster", [AKS, ONPREM])
def test_multus_and_the_cni_plugins_run_on_the_fabric_pools_and_cilium_keeps_their_config(rendered, cluster):
    objects = load_objects(rendered / cluster)
    pools = [p for p in spec_of(cluster)["nodePools"] if "network" in p["fabric"]]
    (policy,) = find(objects, "NicClusterPolicy", "nic-cluster-policy")  # the operator's singleton
    spec = policy["spec"]
    assert set(spec["secondaryNetwork"]) == {"multus", "cniPlugins", "ipoib"}
    assert spec["secondaryNetwork"]["multus"] == {
        "image": "multus-cni",
        "repository": "nvcr.io/nvidia/mellanox",
        "version": "network-operator-v26.4.1",
    }
    # the per-node sections stay in the NicNodePolicies (the operator's webhook refuses both)
    assert not {"rdmaSharedDevicePlugin", "ofedDriver", "sriovDevicePlugin"} & set(spec)
    # the attachments' IPAM, without the webhook that needs cert-manager
    assert spec["nvIpam"] == {
        "image": "nvidia-k8s-ipam",
        "repository": "nvcr.io/nvidia/mellanox",
        "version": "network-operator-v26.4.1",
        "enableWebhook": False,
    }
    terms = spec["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    for pool, term in zip(pools, terms, strict=True):
        wanted = {**pool["nodeSelector"], "feature.node.kubernetes.io/pci-15b3.present": "true"}
        assert {e["key"]: e["values"] for e in term["matchExpressions"]} == {k: [v] for k, v in wanted.items()}
        for taint in blocking(pool):
            assert any(tolerates(t, taint) for t in spec["tolerations"]), (pool["name"], taint)
    # Cilium's exclusive mode would rename Multus's 00-multus.conf to *.cilium_bak
    assert _values(objects, "cilium")["cni"]["exclusive"] is False


def test_clusters_without_a_fabric_network_render_no_multus(rendered):
    objects = load_objects(rendered / EKS)
    assert not find(objects, "NicClusterPolicy") and not find(objects, "NetworkAttachmentDefinition")
    assert not find(objects, "IPPool")
    assert "exclusive" not in _values(objects, "cilium").get("cni", {})


def test_a_roce_network_is_a_macvlan_of_the_nic_without_ipoib(project, run):
    path = project / "clusters" / ONPREM / "cluster.yaml"
    text = path.read_text(encoding="utf-8").replace("type: infiniband, nics: 4", "type: roce, nics: 4", 1)
    path.write_text(text.replace("master: ib0", "master: ens1f0np0", 1), encoding="utf-8")
    result = run(project, "render", ONPREM)
    assert result.exit_code == 0, result.output
    objects = load_objects(project / "rendered" / ONPREM)
    (attachment,) = find(objects, "NetworkAttachmentDefinition", "fabric-gb200")
    config = json.loads(attachment["spec"]["config"])
    assert (config["type"], config["master"], config["mode"]) == ("macvlan", "ens1f0np0", "bridge")
    (policy,) = find(objects, "NicClusterPolicy")
    assert set(policy["spec"]["secondaryNetwork"]) == {"multus", "cniPlugins"}


ONPREM_NETWORK = "network: {master: ib0, range: 172.30.0.0/16, exclude: [172.30.0.0/24]}"

NETWORK_CASES = {
    "range-overlaps-the-pod-cidr": (
        ONPREM,
        ONPREM_NETWORK,
        "network: {master: ib0, range: 10.56.0.0/16}",
        "range: 10.56.0.0/16",
        "fabric range 10.56.0.0/16 overlaps network.cilium.ipam.podCIDRs[0] (10.48.0.0/12)",
        "outside the pod network",
    ),
    "range-not-a-cidr": (
        ONPREM,
        ONPREM_NETWORK,
        "network: {master: ib0, range: 172.30.0.0/33}",
        "range: 172.30.0.0/33",
        "CIDR '172.30.0.0/33' must be a valid CIDR value",
        "write a CIDR",
    ),
    "range-with-host-bits": (
        ONPREM,
        ONPREM_NETWORK,
        "network: {master: ib0, range: 172.30.0.1/16}",
        "range: 172.30.0.1/16",
        "must not have bits set beyond the prefix length",
        "write 172.30.0.0/16",
    ),
    "exclude-outside-the-range": (
        ONPREM,
        ONPREM_NETWORK,
        "network: {master: ib0, range: 172.30.0.0/16, exclude: [172.31.0.0/24]}",
        "172.31.0.0/24]",
        "exclude '172.31.0.0/24' is not inside the range 172.30.0.0/16",
        "exclude only addresses of 172.30.0.0/16",
    ),
    "range-in-the-default-service-cidr": (
        ONPREM,
        ONPREM_NETWORK,
        "network: {master: ib0, range: 10.96.0.0/16}",
        "range: 10.96.0.0/16",
        "overlaps the generic default Service CIDR (10.96.0.0/12)",
        "set network.serviceCidr if the cluster was created with another Service CIDR",
    ),
    "range-too-small-for-the-pools-blocks": (
        ONPREM,
        ONPREM_NETWORK,
        "network: {master: ib0, range: 172.30.0.0/23}",
        "range: 172.30.0.0/23",
        "holds 8 blocks of perNodeBlockSize 63 addresses, but the pool has up to 18 nodes",
        "perNodeBlockSize: 28",
    ),
    "network-on-efa": (
        EKS,
        EKS_FABRIC,
        "fabric: {type: efa, nics: 32, nicModel: EFA, network: {master: eth1, range: 172.30.0.0/16}}",
        "network: {master",
        "has a fabric.network on a efa fabric",
        "remove fabric.network",
    ),
}


@pytest.mark.parametrize("case", sorted(NETWORK_CASES))
def test_a_fabric_network_that_cannot_work_is_a_located_error(project, run, case):
    _render_fails(project, run, *NETWORK_CASES[case])


def test_two_pools_with_overlapping_fabric_ranges_is_a_located_error(project, run):
    cluster = ONPREM
    path = project / "clusters" / cluster / "cluster.yaml"
    text = path.read_text(encoding="utf-8")
    old = "  - name: l40s\n    nodeSelector: {node.example.com/pool: l40s}\n"
    assert old in text
    text = text.replace(
        old, old + "    fabric: {type: roce, nics: 4, network: {master: ens1f0np0, range: 172.30.128.0/17}}\n", 1
    )
    _render_fails_text(project, run, cluster, text, "range: 172.30.128.0/17", "overlaps node pool gb200's fabric range")


def _render_fails_text(project, run, cluster, text, needle, message):
    (project / "clusters" / cluster / "cluster.yaml").write_text(text, encoding="utf-8")
    line = text[: text.index(needle)].count("\n") + 1
    result = run(project, "render", cluster)
    assert result.exit_code == 2, result.output
    assert any(
        ln.startswith(f"clusters/{cluster}/cluster.yaml:{line}:") and message in ln for ln in result.stderr.splitlines()
    ), result.stderr


def test_a_fabric_network_no_namespace_uses_renders_nowhere_with_a_warning(project, run):
    path = project / "clusters" / ONPREM / "cluster.yaml"
    text = path.read_text(encoding="utf-8").replace("    podSecurity: baseline-ipc-lock\n", "", 1)
    text = text.replace("fabric: {ncclTestNamespace: nvl-training}\n", "", 1)
    path.write_text(text, encoding="utf-8")
    result = run(project, "render", ONPREM)
    assert result.exit_code == 0, result.output
    line = text[: text.index("network: {master: ib0")].count("\n") + 1
    assert (
        f"clusters/{ONPREM}/cluster.yaml:{line}:" in result.stderr
        and "no workload namespace uses the fabric" in result.stderr
    )
    assert not (project / "rendered" / ONPREM / "20-workloads" / "fabric-networks").exists()


def _admitted(objects: list[dict], job: dict, namespace: str) -> None:
    """Every admission policy bound to ``namespace`` admits ``job``."""
    from generator.contract.model import Policy
    from generator.lint.admission import judge

    for policy in find(objects, "ValidatingAdmissionPolicy"):
        name = policy["metadata"]["name"]
        for binding in find(objects, "ValidatingAdmissionPolicyBinding", name):
            selector = binding["spec"].get("matchResources", {}).get("namespaceSelector", {})
            namespaces = tuple(v for e in selector.get("matchExpressions", []) for v in e["values"])
            if namespaces and namespace not in namespaces:
                continue
            assert judge(Policy(name, policy["spec"], namespaces), job, namespace) == [], name


def test_nccl_test_on_a_dra_pool_claims_the_gpus_and_keeps_off_nvlink(rendered):
    objects = load_objects(rendered / ONPREM)
    (pool,) = [p for p in spec_of(ONPREM)["nodePools"] if p["name"] == "gb200"]
    (cron,) = find(objects, "CronJob", "nccl-test-gb200")
    assert cron["metadata"]["namespace"] == "nvl-training" and cron["spec"]["suspend"] is True
    job = cron["spec"]["jobTemplate"]["spec"]
    assert (job["completions"], job["backoffLimit"], job["activeDeadlineSeconds"]) == (2, 0, 900)
    pod = job["template"]["spec"]
    assert pod["resourceClaims"] == [{"name": "gpus", "resourceClaimTemplateName": "nccl-test-gb200"}]
    (container,) = pod["containers"]
    resources = container["resources"]
    # GPUs from the claim, none from the device plugin a DRA node does not run
    assert resources["claims"] == [{"name": "gpus"}]
    assert resources["limits"] == {"memory": "64Gi", "rdma/ib": 1}
    assert "--nproc-per-node=4" in container["command"]
    env = {e["name"]: e.get("value") for e in container["env"]}
    assert (env["NCCL_NET"], env["NCCL_MNNVL_ENABLE"]) == ("IB", "0")
    (template,) = find(objects, "ResourceClaimTemplate", "nccl-test-gb200")
    (request,) = template["spec"]["spec"]["devices"]["requests"]
    exactly = request["exactly"]
    assert (exactly["deviceClassName"], exactly["allocationMode"], exactly["count"]) == (
        "gpu.nvidia.com",
        "ExactCount",
        4,
    )
    # the pool's own GPUs (as gpu-claims selects them): GB200, never B200
    assert "gb200" in exactly["selectors"][0]["cel"]["expression"]
    assert job["template"]["metadata"]["annotations"] == {"k8s.v1.cni.cncf.io/networks": "fabric-gb200"}
    assert pool["gpu"]["allocation"] == "dra"
    _admitted(objects, cron, "nvl-training")


def test_nccl_test_on_an_efa_pool_uses_aws_ofi_nccl_over_all_interfaces(rendered):
    objects = load_objects(rendered / EKS)
    (cron,) = find(objects, "CronJob", "nccl-test-h100")
    (container,) = cron["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"]
    assert (
        container["image"]
        == "public.ecr.aws/deep-learning-containers/pytorch-training:2.8.0-gpu-py312-cu129-ubuntu22.04-ec2"
    )
    env = {e["name"]: e.get("value") for e in container["env"]}
    assert (env["NCCL_NET"], env["FI_PROVIDER"], env["FI_EFA_USE_DEVICE_RDMA"]) == ("AWS Libfabric", "efa", "1")
    # every EFA interface of the p5.48xlarge, the EKS guide's huge pages (the pool reserves 10Gi)
    assert container["resources"]["limits"] == {
        "memory": "64Gi",
        "nvidia.com/gpu": 8,
        "vpc.amazonaws.com/efa": 32,
        "hugepages-2Mi": "5120Mi",
    }
    assert container["resources"]["requests"] == {"cpu": "8", **container["resources"]["limits"]}
    assert container["securityContext"]["capabilities"] == {"drop": ["ALL"], "add": ["IPC_LOCK"]}
    _admitted(objects, cron, "llm-training")
    assert not find(objects, "CronJob", "nccl-test-a100-mig")  # MIG slices: no whole GPUs to test


def _layer_of(tree, kind: str) -> str:
    """The layer of the rendered objects of ``kind`` (one layer)."""
    (layer,) = {p.relative_to(tree).parts[0] for p in tree.rglob(f"{kind.lower()}_*.yaml")}
    return layer


def test_ip_pools_are_applied_after_the_policy_whose_operator_creates_their_crd(rendered, project, run):
    # Flux: the IPPools' layer waits for the layer of the NicClusterPolicy (nvIpam makes the CRD)
    tree = rendered / ONPREM
    assert (_layer_of(tree, "IPPool"), _layer_of(tree, "NicClusterPolicy")) == ("20-workloads", "10-platform")
    kustomization = next((tree / "gitops").glob("kustomization_*-20-workloads.yaml"))
    assert {"name": f"{ONPREM}-10-platform"} in _yaml(kustomization)["spec"]["dependsOn"]
    # Argo CD: a later sync wave, and no dry run of a kind the API server does not serve yet
    path = project / "clusters" / ONPREM / "cluster.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("engine: flux", "engine: argocd", 1), encoding="utf-8")
    result = run(project, "render", ONPREM)
    assert result.exit_code == 0, result.output
    apps = {p.name: _yaml(p) for p in (project / "rendered" / ONPREM / "gitops").glob("application_*.yaml")}
    workloads = apps[f"application_argocd_{ONPREM}-20-workloads.yaml"]
    platform = apps[f"application_argocd_{ONPREM}-10-platform.yaml"]
    wave = "argocd.argoproj.io/sync-wave"
    assert int(workloads["metadata"]["annotations"][wave]) > int(platform["metadata"]["annotations"][wave])
    assert "SkipDryRunOnMissingResource=true" in workloads["spec"]["syncPolicy"]["syncOptions"]


def _yaml(path) -> dict:
    return YAML(typ="safe").load(path.read_text(encoding="utf-8"))
