"""Karpenter-provisioned GPU pools: the NodePool and node class are the pool definition (labels,
taints, GPU count: a closure like the DaemonSets' taint closure), disruption spares running pods,
maintenance windows become budgets, and every input Karpenter could not launch as written is a
located input error."""

from __future__ import annotations

import pytest
from conftest import EXAMPLES
from gpu_support import find, load_objects
from test_gpu_stack import spec_of, tolerates

from generator.inputs.consistency.in418_maintenance_window_never_closes import window_openings
from tests.inputs.test_gpu_consistency import edit, line_of, render_fails

EKS, NAP, OCP = "eks-mi300x-inference", "aks-nap-h100", "ocp-a100-tuned"
NODE_CLASS_KINDS = {"eks": ("karpenter.k8s.aws", "EC2NodeClass"), "aks": ("karpenter.azure.com", "AKSNodeClass")}
GPU_COUNT_LABEL = {"eks": "karpenter.k8s.aws/instance-gpu-count", "aks": "karpenter.azure.com/sku-gpu-count"}


def provisioned(cluster: str) -> list[dict]:
    return [p for p in spec_of(cluster)["nodePools"] if "provisioning" in p]


def test_examples_provision_their_gpu_pools():
    assert [p["name"] for p in provisioned(EKS)] == ["h100"]
    assert [p["name"] for p in provisioned(NAP)] == ["h100"]


@pytest.mark.parametrize("cluster", EXAMPLES)
def test_nodepool_is_the_pool_definition(rendered, cluster):
    """What the NodePool puts on its nodes is what the pool declares, which the device plugins,
    validation DaemonSets, admission policy and quotas read."""
    spec = spec_of(cluster)
    objects = load_objects(rendered / cluster)
    pools = provisioned(cluster)
    assert len(find(objects, "NodePool")) == len(pools)
    for pool in pools:
        (nodepool,) = find(objects, "NodePool", pool["name"])
        template = nodepool["spec"]["template"]
        node_labels = {**template.get("metadata", {}).get("labels", {}), "karpenter.sh/nodepool": pool["name"]}
        requirements = {r["key"]: r["values"] for r in template["spec"]["requirements"]}
        for key, value in pool["nodeSelector"].items():
            assert node_labels.get(key) == value or value in requirements.get(key, []), (pool["name"], key)
        assert template["spec"].get("taints", []) == pool["taints"]
        assert requirements[GPU_COUNT_LABEL[spec["provider"]]] == [str(pool["gpu"]["perNode"])]
        assert requirements["karpenter.sh/capacity-type"] == pool["provisioning"]["capacityTypes"]
        assert nodepool["spec"]["limits"] == {"nodes": str(pool["gpu"]["nodes"])}
        # the DaemonSets that serve the pool tolerate exactly what its nodes carry
        daemonsets = [
            ds
            for ds in find(objects, "DaemonSet")
            if ds["spec"]["template"]["spec"].get("nodeSelector") == pool["nodeSelector"]
        ]
        assert any(ds["metadata"]["name"] == f"gpu-validation-{pool['name']}" for ds in daemonsets)
        for ds in daemonsets:
            tolerations = ds["spec"]["template"]["spec"].get("tolerations", [])
            for taint in template["spec"].get("taints", []):
                assert any(tolerates(t, taint) for t in tolerations), (ds["metadata"]["name"], taint)
        group, kind = NODE_CLASS_KINDS[spec["provider"]]
        ref = template["spec"]["nodeClassRef"]
        assert ref == {"group": group, "kind": kind, "name": pool["name"]}
        assert find(objects, kind, ref["name"]), f"nodeClassRef {ref} has no target"


@pytest.mark.parametrize("cluster", [EKS, NAP])
def test_disruption_never_consolidates_a_node_with_pods(rendered, cluster):
    for nodepool in find(load_objects(rendered / cluster), "NodePool"):
        disruption = nodepool["spec"]["disruption"]
        assert disruption["consolidationPolicy"] == "WhenEmpty"
        assert disruption["budgets"][0] == {"nodes": "1"}
        assert nodepool["spec"]["template"]["spec"]["terminationGracePeriod"]


def test_window_closes_drift_until_it_opens_again(rendered):
    # AKS example: Saturday and Sunday 01:00-05:00 UTC
    (nodepool,) = find(load_objects(rendered / NAP), "NodePool", "h100")
    assert nodepool["spec"]["disruption"]["budgets"][1:] == [
        {"nodes": "0", "reasons": ["Drifted"], "schedule": "0 5 * * 0", "duration": "140h"},
        {"nodes": "0", "reasons": ["Drifted"], "schedule": "0 5 * * 6", "duration": "20h"},
    ]


def test_window_across_midnight_and_daily(project, run):
    edit(
        project,
        EKS,
        'window: {days: [sat], start: "02:00", duration: 6h}',
        'window: {days: [fri], start: "22:00", duration: 4h30m}',
    )
    assert run(project, "render", EKS).exit_code == 0
    (nodepool,) = find(load_objects(project / "rendered" / EKS), "NodePool", "h100")
    assert nodepool["spec"]["disruption"]["budgets"][1:] == [
        {"nodes": "0", "reasons": ["Drifted"], "schedule": "30 2 * * 6", "duration": "163h30m"}
    ]
    edit(
        project,
        EKS,
        'window: {days: [fri], start: "22:00", duration: 4h30m}',
        'window: {start: "03:15", duration: 45m}',
    )
    assert run(project, "render", EKS).exit_code == 0
    (nodepool,) = find(load_objects(project / "rendered" / EKS), "NodePool", "h100")
    assert nodepool["spec"]["disruption"]["budgets"][1:] == [
        {"nodes": "0", "reasons": ["Drifted"], "schedule": "0 4 * * *", "duration": "23h15m"}
    ]


def test_window_openings_in_minutes_of_the_week():
    assert window_openings({"days": ["mon", "sun"], "start": "01:30", "duration": "2h"}) == [(90, 210), (1530, 1650)]


def test_node_classes_follow_the_image_policy(rendered):
    (ec2,) = find(load_objects(rendered / EKS), "EC2NodeClass", "h100")
    assert ec2["spec"]["amiSelectorTerms"] == [{"alias": "al2023@v20260724"}]
    assert ec2["spec"]["role"] == "KarpenterNodeRole-eks-mi300x-inference"
    assert ec2["spec"]["subnetSelectorTerms"] == [{"tags": {"karpenter.sh/discovery": EKS}}]
    # p5.48xlarge's instance-store NVMe: one RAID0 array for the node's ephemeral storage (the
    # pool has no localNvme that would take the disks as persistent volumes)
    assert ec2["spec"]["instanceStorePolicy"] == "RAID0"
    (nodepool,) = find(load_objects(rendered / EKS), "NodePool", "h100")
    # Cilium runs on the EKS example: its agent removes the startup taint; the pool's kubelet
    # restarts for its 2Mi pages: the node tuning removes the other
    assert nodepool["spec"]["template"]["spec"]["startupTaints"] == [
        {"key": "node.cilium.io/agent-not-ready", "value": "true", "effect": "NoExecute"},
        {"key": "gpu-gitops.io/node-tuning", "value": "pending", "effect": "NoSchedule"},
    ]
    (aks,) = find(load_objects(rendered / NAP), "AKSNodeClass", "h100")
    # the GPU Operator installs driver and toolkit (driver.managed: true), so AKS installs neither
    assert aks["spec"] == {"imageFamily": "Ubuntu2404", "gpu": {"mode": "None"}, "osDiskSizeGB": 256}
    (nodepool,) = find(load_objects(rendered / NAP), "NodePool", "h100")
    assert "startupTaints" not in nodepool["spec"]["template"]["spec"]


def test_do_not_disrupt_is_a_mutating_policy_on_the_namespaces_that_ask(rendered):
    objects = load_objects(rendered / NAP)
    (policy,) = find(objects, "MutatingAdmissionPolicy", "karpenter-do-not-disrupt")
    assert policy["apiVersion"] == "admissionregistration.k8s.io/v1"
    assert '"karpenter.sh/do-not-disrupt": "true"' in policy["spec"]["mutations"][0]["applyConfiguration"]["expression"]
    (binding,) = find(objects, "MutatingAdmissionPolicyBinding", "karpenter-do-not-disrupt")
    selector = binding["spec"]["matchResources"]["namespaceSelector"]["matchExpressions"]
    assert selector == [{"key": "kubernetes.io/metadata.name", "operator": "In", "values": ["llm-training"]}]
    assert not find(load_objects(rendered / EKS), "MutatingAdmissionPolicy")


H100 = "instanceTypes: [p5.48xlarge]"
CASES = {
    # id: (cluster, old, new, needle for the line, message, hint)
    "unknown-instance-type": (
        EKS,
        H100,
        "instanceTypes: [p9.48xlarge]",
        "p9.48xlarge",
        "unknown instance type 'p9.48xlarge'",
        "p5.48xlarge",
    ),
    "model-mismatch": (
        EKS,
        H100,
        "instanceTypes: [p4d.24xlarge]",
        "p4d.24xlarge",
        "instance type 'p4d.24xlarge' has 8 x A100-40GB, but the pool declares 8 x H100-80GB",
        "p5.48xlarge",
    ),
    "count-mismatch": (
        EKS,
        H100,
        "instanceTypes: [p5.4xlarge]",
        "p5.4xlarge",
        "instance type 'p5.4xlarge' has 1 x H100-80GB, but the pool declares 8 x H100-80GB",
        "p5.48xlarge",
    ),
    "unknown-family": (EKS, H100, "instanceFamilies: [p9]", "p9]", "unknown instance family 'p9'", "p5.48xlarge"),
    "family-of-another-model": (
        EKS,
        H100,
        "instanceFamilies: [g6e]",
        "g6e]",
        "instance family 'g6e' has no size with 8 x H100-80GB",
        "p5.48xlarge",
    ),
    "no-instances": (
        EKS,
        H100 + "\n      ",
        "",
        "provisioning:\n      capacityTypes",
        "names no instanceTypes or instanceFamilies",
        "p5.48xlarge",
    ),
    "families-on-aks": (
        NAP,
        "instanceTypes: [Standard_ND96isr_H100_v5]",
        "instanceFamilies: [ND]",
        "instanceFamilies",
        "instanceFamilies is not supported on this provider",
        "list instanceTypes",
    ),
    "aks-pinned-image": (
        NAP,
        "image: {family: Ubuntu2404}",
        "image: {family: Ubuntu2404, version: v20260101}",
        "v20260101",
        "AKSNodeClass cannot pin an image version",
        "image.version: latest",
    ),
    "unknown-image-family": (EKS, "family: al2023", "family: ubuntu", "ubuntu", "image family 'ubuntu'", "al2023"),
    "bottlerocket-date": (
        EKS,
        "family: al2023, version: v20260724",
        "family: bottlerocket, version: v20260724",
        "v20260724",
        "is not a bottlerocket release",
        "vX.Y.Z",
    ),
    "driver-branch-too-old": (
        EKS,
        "    mode: device-plugin\n  amd:",
        '    mode: device-plugin\n    driver: {minVersion: "590.10"}\n  amd:',
        "v20260724",
        "al2023@v20260724 ships the NVIDIA 580 driver branch on Kubernetes 1.33, older than gpu.nvidia.driver.minVersion 590.10",
        "pin a newer release",
    ),
    "mig-mixed": (
        EKS,
        "        profiles: {3g.20gb: 1, 2g.10gb: 1, 1g.5gb: 2}\n",
        "        profiles: {3g.20gb: 1, 2g.10gb: 1, 1g.5gb: 2}\n    provisioning: {instanceTypes: [p4d.24xlarge], nodeClass: {role: r}}\n",
        "provisioning: {instanceTypes: [p4d",
        "Karpenter cannot provision a MIG `mixed` pool",
        "mig.strategy: single",
    ),
    "no-role": (
        EKS,
        "        role: KarpenterNodeRole-eks-mi300x-inference\n",
        "",
        "      nodeClass:\n",
        "an EC2NodeClass needs the IAM role",
        "EC2_LINUX",
    ),
    "role-on-aks": (
        NAP,
        "rootVolumeGiB: 256",
        "rootVolumeGiB: 256\n        role: nodes",
        "role: nodes",
        "nodeClass.role is an EC2NodeClass setting",
        "remove nodeClass.role",
    ),
    "aks-os-disk-too-large": (
        NAP,
        "rootVolumeGiB: 256",
        "rootVolumeGiB: 4096",
        "4096",
        "an AKSNodeClass OS disk is 30 to 2048 GB, not 4096",
        "the default is 128",
    ),
    "nodepool-label-mismatch": (
        EKS,
        "nodeSelector: {karpenter.sh/nodepool: h100}",
        "nodeSelector: {karpenter.sh/nodepool: gpu}",
        "karpenter.sh/nodepool: gpu",
        "karpenter.sh/nodepool=gpu selects no node of this pool",
        "karpenter.sh/nodepool: h100",
    ),
    "restricted-label": (
        EKS,
        "nodeSelector: {karpenter.sh/nodepool: h100}",
        'nodeSelector: {karpenter.sh/nodepool: h100, karpenter.sh/initialized: "true"}',
        "nodeSelector: {karpenter.sh/nodepool: h100, karpenter",
        "label karpenter.sh/initialized is restricted in a NodePool",
        "karpenter.sh/nodepool: h100",
    ),
    "provider-label": (
        NAP,
        "nodeSelector: {karpenter.sh/nodepool: h100}",
        "nodeSelector: {karpenter.sh/nodepool: h100, karpenter.azure.com/sku-family: N}",
        "nodeSelector: {karpenter.sh/nodepool: h100, karpenter.azure",
        "label karpenter.azure.com/sku-family is restricted in a NodePool",
        "karpenter.sh/nodepool: h100",
    ),
    "capacity-type-selector": (
        EKS,
        "nodeSelector: {karpenter.sh/nodepool: h100}",
        "nodeSelector: {karpenter.sh/nodepool: h100, karpenter.sh/capacity-type: spot}",
        "karpenter.sh/capacity-type: spot",
        "karpenter.sh/capacity-type=spot is not among provisioning.capacityTypes",
        "add it to capacityTypes",
    ),
    "duplicate-taint": (
        NAP,
        "nodeSelector: {karpenter.sh/nodepool: h100}\n",
        "nodeSelector: {karpenter.sh/nodepool: h100}\n    taints: [{key: gpu, effect: NoSchedule}, {key: gpu, value: x, effect: NoSchedule}]\n",
        "{key: gpu, value: x",
        "taint gpu:NoSchedule is listed twice",
        "keep one",
    ),
    "karpenter-taint": (
        NAP,
        "nodeSelector: {karpenter.sh/nodepool: h100}\n",
        "nodeSelector: {karpenter.sh/nodepool: h100}\n    taints: [{key: karpenter.sh/disrupted, effect: NoSchedule}]\n",
        "karpenter.sh/disrupted",
        "taint karpenter.sh/disrupted is in the karpenter.sh domain",
        "a key of your own",
    ),
    "cilium-startup-taint": (
        EKS,
        "nodeSelector: {karpenter.sh/nodepool: h100}\n",
        'nodeSelector: {karpenter.sh/nodepool: h100}\n    taints: [{key: node.cilium.io/agent-not-ready, value: "true", effect: NoExecute}]\n',
        "node.cilium.io/agent-not-ready, value",
        "node.cilium.io/agent-not-ready is the startup taint Cilium removes",
        "renders it as a startup taint",
    ),
    "window-never-closes": (
        EKS,
        'start: "02:00", duration: 6h}',
        'start: "02:00", duration: 168h}',
        "duration: 168h",
        "the maintenance window is open for 168h but opens again 168h after it opened",
        "shorter than the time between two openings",
    ),
    "daily-window-never-closes": (
        EKS,
        'window: {days: [sat], start: "02:00", duration: 6h}',
        'window: {start: "02:00", duration: 24h}',
        "duration: 24h",
        "opens again 24h after it opened",
        "24h when it opens every day",
    ),
    "do-not-disrupt-before-1-36": (
        NAP,
        'kubernetesVersion: "1.36"',
        'kubernetesVersion: "1.35"',
        "doNotDisrupt: true",
        "doNotDisrupt needs MutatingAdmissionPolicy admissionregistration.k8s.io/v1, served from Kubernetes 1.36",
        "karpenter.sh/do-not-disrupt",
    ),
    "operator-driver-on-eks": (
        EKS,
        "  nvidia:\n    mode: device-plugin\n",
        "  nvidia:\n    mode: operator\n",
        "image: {family: al2023",
        "the EKS-optimized AMI Karpenter picks for NVIDIA instance types ships the driver",
        "gpu.nvidia.driver.managed: false",
    ),
    "provider-without-karpenter": (
        OCP,
        "    gpu:\n      vendor: nvidia\n      model: A100-80GB",
        "    provisioning: {instanceTypes: [x]}\n    gpu:\n      vendor: nvidia\n      model: A100-80GB",
        "provisioning: {instanceTypes: [x]}",
        "provider openshift has no Karpenter node provisioning",
        "remove provisioning",
    ),
    "cpu-pool": (
        NAP,
        "nodeSelector: {kubernetes.azure.com/mode: system}",
        "nodeSelector: {kubernetes.azure.com/mode: system}\n    provisioning: {instanceTypes: [Standard_D8s_v5]}",
        "provisioning: {instanceTypes: [Standard_D8s_v5]}",
        "provisioning is for GPU pools",
        "add the pool's gpu",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_provisioning_input(project, run, case):
    cluster, old, new, needle, message, hint = CASES[case]
    text = edit(project, cluster, old, new)
    render_fails(run, project, cluster, line_of(text, needle), message, hint)


def test_driver_of_the_same_branch_is_a_warning(project, run):
    edit(
        project,
        EKS,
        "    mode: device-plugin\n  amd:",
        '    mode: device-plugin\n    driver: {minVersion: "580.95.05"}\n  amd:',
    )
    result = run(project, "render", EKS)
    assert result.exit_code == 0, result.output
    assert "ships an NVIDIA 580.x driver" in result.stderr
    assert "warning" in result.stderr


def test_release_before_the_table_is_not_checked(project, run):
    edit(project, EKS, "version: v20260724", "version: v20241201")
    edit(
        project,
        EKS,
        "    mode: device-plugin\n  amd:",
        '    mode: device-plugin\n    driver: {minVersion: "999.1"}\n  amd:',
    )
    result = run(project, "render", EKS)
    assert result.exit_code == 0, result.output
    assert "driver" not in result.stderr


def test_override_that_breaks_the_node_class_reference_stops_the_render(project, run):
    (project / "clusters" / EKS / "overrides.libsonnet").write_text(
        "{ 'node-provisioning'+: { nodepool_h100+: { spec+: { template+: { spec+: {\n"
        "  nodeClassRef+: { name: 'gpu' } } } } } } }\n",
        encoding="utf-8",
    )
    result = run(project, "render", EKS)
    assert result.exit_code == 2, result.output
    assert 'EC2NodeClass.karpenter.k8s.aws "gpu" not found' in result.stderr
    assert "[XR006]" in result.stderr


@pytest.mark.parametrize("cluster", [EKS, NAP])
def test_admission_admits_a_gpu_pod_that_tolerates_the_nodepool_taints(rendered, cluster):
    """The other side of the closure: the guardrail policy's toleration rule is met by exactly
    the taints the NodePool puts on its nodes (an Equal toleration with the taint's value)."""
    from test_gpu_admission_cel import evaluate, pod

    objects = load_objects(rendered / cluster)
    (policy,) = find(objects, "ValidatingAdmissionPolicy", "gpu-pod-guardrails")
    for nodepool in find(objects, "NodePool"):
        taints = nodepool["spec"]["template"]["spec"]["taints"]
        tolerations = [
            {"key": t["key"], "operator": "Equal", "value": t.get("value", ""), "effect": t["effect"]} for t in taints
        ]
        limits = {"limits": {"nvidia.com/gpu": 1, "memory": "8Gi"}}
        assert evaluate(policy, pod(limits, tolerations)) == []
        assert any("must tolerate" in m for m in evaluate(policy, pod(limits, [])))
