"""Bad GPU inputs stop the render with exit 2, the input line and a hint."""

from __future__ import annotations

import re

import pytest

from generator.inputs import mig

EKS, AKS, OCP = "eks-mi300x-inference", "aks-h100-training", "ocp-a100-tuned"
ONPREM = "onprem-mi300x-operator"
DRA = "onprem-gb200-dra"
GB200_POOL = "gpu: {vendor: nvidia, model: GB200, perNode: 4, nodes: 18, allocation: dra, multiNodeNVLink: true}"
MIG_CLAIM = "{name: b200-3g, pool: b200, mig: 3g.90gb}"


def edit(project, cluster: str, old: str, new: str) -> str:
    path = project / "clusters" / cluster / "cluster.yaml"
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    text = text.replace(old, new, 1)
    path.write_text(text, encoding="utf-8")
    return text


def line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


def render_fails(run, project, cluster: str, line: int, message: str, hint: str):
    """The render exits 2 with ``message`` at ``line`` of the input, followed by ``hint``."""
    result = run(project, "render", cluster)
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    pattern = rf"clusters/{cluster}/cluster\.yaml:{line}:\d+: error: .*{re.escape(message)}"
    matches = [i for i, ln in enumerate(lines) if re.search(pattern, ln)]
    assert matches, result.stderr
    assert lines[matches[0] + 1].startswith("  hint: ") and hint in lines[matches[0] + 1], result.stderr


MIG_LAYOUT = "profiles: {3g.20gb: 1, 2g.10gb: 1, 1g.5gb: 2}"

CASES = {
    # id: (cluster, old, new, needle for the line, message, hint)
    "dra-before-1.34": (
        DRA,
        'kubernetesVersion: "1.34"',
        'kubernetesVersion: "1.33"',
        "allocation: dra\n",
        "allocation: dra needs Kubernetes 1.34 or newer (resource.k8s.io/v1",
        'set kubernetesVersion: "1.34"',
    ),
    "dra-with-time-slicing": (
        DRA,
        GB200_POOL,
        GB200_POOL[:-1] + ", timeSlicing: {replicas: 2}}",
        "gpu: {vendor: nvidia, model: GB200",
        "timeSlicing is the device plugin's node-wide sharing",
        "sharing: {strategy: TimeSlicing}",
    ),
    "nvlink-without-dra": (
        DRA,
        "gpu: {vendor: nvidia, model: L40S, perNode: 4, nodes: 2}",
        "gpu: {vendor: nvidia, model: L40S, perNode: 4, nodes: 2, multiNodeNVLink: true}",
        "model: L40S",
        "multiNodeNVLink needs allocation: dra",
        "set allocation: dra",
    ),
    "claim-on-device-plugin-pool": (
        DRA,
        MIG_CLAIM,
        "{name: b200-3g, pool: l40s, mig: 3g.90gb}",
        "pool: l40s, mig",
        "claim 'b200-3g' names pool 'l40s', which is not an NVIDIA pool with allocation: dra",
        "dra pools: b200, gb200",
    ),
    "claim-profile-not-in-layout": (
        DRA,
        MIG_CLAIM,
        "{name: b200-3g, pool: b200, mig: 4g.90gb}",
        "mig: 4g.90gb",
        "claim 'b200-3g' asks for MIG profile 4g.90gb, which pool 'b200' does not have",
        "use one of 1g.23gb, 2g.45gb, 3g.90gb",
    ),
    "whole-gpu-claim-on-mig-pool": (
        DRA,
        MIG_CLAIM,
        "{name: b200-3g, pool: b200}",
        "{name: b200-3g, pool: b200}",
        "asks for whole GPUs, but pool 'b200' runs MIG",
        "add mig: one of",
    ),
    "claim-larger-than-a-node": (
        DRA,
        "{name: gb200-node, pool: gb200, count: 4}",
        "{name: gb200-node, pool: gb200, count: 8}",
        "count: 8",
        "asks for 8 devices, but a node of pool 'gb200' has 4",
        "lower count to 4",
    ),
    "mps-setting-with-time-slicing": (
        DRA,
        "sharing: {strategy: MPS, activeThreadPercentage: 50",
        "sharing: {strategy: TimeSlicing, activeThreadPercentage: 50",
        "sharing: {strategy: TimeSlicing",
        "activeThreadPercentage is an MPS setting",
        "set strategy: MPS",
    ),
    "device-quota-above-capacity": (
        DRA,
        "devices: {mig.nvidia.com: 48}",
        "devices: {mig.nvidia.com: 65}",
        "mig.nvidia.com: 65",
        "quota asks for 65 mig.nvidia.com devices; the dra pools publish 64",
        "lower the quota",
    ),
    "compute-domain-on-pool-without-nvlink": (
        DRA,
        "{name: nvl72, pool: gb200}",
        "{name: nvl72, pool: b200}",
        "{name: nvl72, pool: b200}",
        "ComputeDomain 'nvl72' names pool 'b200', which is not a dra pool with multiNodeNVLink: true",
        "Multi-Node NVLink pools: gb200",
    ),
    "claim-named-like-a-channel-template": (
        DRA,
        "{name: gb200-node, pool: gb200, count: 4}",
        "{name: nvl72-channel, pool: gb200, count: 4}",
        "name: nvl72-channel",
        "has the name the ComputeDomain's channel template takes",
        "<name>-channel",
    ),
    "profile-not-on-model": (
        EKS,
        MIG_LAYOUT,
        "profiles: {3g.40gb: 1, 2g.10gb: 1}",
        "profiles: {3g.40gb",
        "MIG profile '3g.40gb' does not exist on A100-40GB",
        "did you mean '3g.20gb'?",
    ),
    "more-than-max-instances": (
        EKS,
        MIG_LAYOUT,
        "profiles: {3g.20gb: 3}",
        "profiles: {3g.20gb: 3}",
        "A100-40GB fits at most 2 x 3g.20gb per GPU, not 3",
        "lower 3g.20gb",
    ),
    "too-many-compute-slices": (
        EKS,
        MIG_LAYOUT,
        "profiles: {3g.20gb: 2, 1g.5gb: 2}",
        "profiles: {3g.20gb: 2",
        "uses 8 compute slices; A100-40GB has 7",
        "add up to 7",
    ),
    "memory-slices-overlap": (
        EKS,
        MIG_LAYOUT,
        "profiles: {4g.20gb: 1, 1g.10gb: 3}",
        "profiles: {4g.20gb",
        "does not fit on one A100-40GB",
        "nvidia-smi mig -lgipp",
    ),
    "unknown-model-with-mig": (
        OCP,
        "model: A100-80GB",
        "model: L40S",
        "model: L40S",
        "GPU model 'L40S' has no known MIG profiles",
        "mig.strategy: none",
    ),
    "single-with-two-profiles": (
        OCP,
        "profiles: {1g.10gb: 7}",
        "profiles: {1g.10gb: 3, 2g.20gb: 2}",
        "profiles: {1g.10gb: 3",
        "mig.strategy single advertises",
        "mig.strategy: mixed",
    ),
    "profiles-without-strategy": (
        OCP,
        "strategy: single",
        "strategy: none",
        "profiles: {1g.10gb: 7}",
        "mig.strategy is none",
        "set mig.strategy",
    ),
    "time-slicing-with-mig": (
        EKS,
        "      mig:\n        strategy: mixed\n",
        "      timeSlicing: {replicas: 2}\n      mig:\n        strategy: mixed\n",
        "timeSlicing: {replicas: 2}",
        "time-slicing cannot be combined with MIG",
        "remove timeSlicing",
    ),
    "time-slicing-on-amd": (
        EKS,
        "gpu: {vendor: amd, model: MI300X, perNode: 8, nodes: 2}",
        "gpu: {vendor: amd, model: MI300X, perNode: 8, nodes: 2, timeSlicing: {replicas: 2}}",
        "timeSlicing: {replicas: 2}}",
        "time-slicing is not available for AMD GPUs",
        "ROCm device plugin",
    ),
    "mig-quota-above-capacity": (
        EKS,
        "mig: {1g.5gb: 16,",
        "mig: {1g.5gb: 64,",
        "mig: {1g.5gb: 64",
        "quota asks for 64 x 1g.5gb MIG slices; the mig.strategy mixed pools have 32",
        "lower the quota",
    ),
    "mig-quota-profile-not-offered": (
        EKS,
        "2g.10gb: 8}}",
        "4g.20gb: 1}}",
        "mig: {1g.5gb",
        "quota asks for 1 x 4g.20gb MIG slices; the mig.strategy mixed pools have 0",
        "offered: 1g.5gb, 2g.10gb, 3g.20gb",
    ),
    "gpu-quota-above-capacity": (
        AKS,
        "quota: {gpus: 32,",
        "quota: {gpus: 65,",
        "quota: {gpus: 65",
        "quota asks for 65 nvidia GPUs; the node pools have 64",
        "lower quota.gpus",
    ),
    "autoscaling-in-amd-namespace": (
        EKS,
        "    quota: {gpus: 16, hugepages-1Gi: 64Gi}\n",
        "    quota: {gpus: 16, hugepages-1Gi: 64Gi}\n    autoscaling: [{deployment: vllm}]\n",
        "autoscaling: [{deployment: vllm}]",
        "its GPUs are amd",
        "DCGM exports NVIDIA GPUs only",
    ),
    "autoscaling-with-zero-gpu-quota": (
        AKS,
        "quota: {gpus: 24}",
        "quota: {gpus: 0}",
        "autoscaling:",
        "its quota allows no GPUs",
        "raise quota.gpus",
    ),
    "autoscaling-without-dcgm-exporter": (
        AKS,
        "dcgmExporter: true",
        "dcgmExporter: false",
        "autoscaling:",
        "monitoring.dcgmExporter is false",
        "enable monitoring.dcgmExporter",
    ),
    "mig-on-amd": (
        EKS,
        "gpu: {vendor: amd, model: MI300X, perNode: 8, nodes: 2}",
        "gpu: {vendor: amd, model: MI300X, perNode: 8, nodes: 2, mig: {strategy: mixed}}",
        "strategy: mixed}}",
        "MIG is an NVIDIA feature",
        "AMD GPU Operator",
    ),
    "mig-without-model": (OCP, "      model: A100-80GB\n", "", "    gpu:\n", "MIG needs gpu.model", "A100-40GB"),
    "amd-managed-driver-without-image": (
        ONPREM,
        "    driverImage: registry.onprem.example.com/gpu/amdgpu-driver\n",
        "",
        "driverManaged: true",
        "gpu.amd.driverImage is not set",
        "set gpu.amd.driverImage",
    ),
    "tuned-on-a-managed-service": (
        OCP,
        "provider: openshift",
        "provider: eks",
        "backend: tuned",
        "tuning.backend tuned needs the Node Tuning Operator, which eks does not run",
        "use tuning.backend: daemonset",
    ),
    "min-above-max-replicas": (
        AKS,
        "minReplicas: 1, maxReplicas: 8",
        "minReplicas: 9, maxReplicas: 8",
        "minReplicas: 9",
        "minReplicas 9 is above maxReplicas 8",
        "raise maxReplicas",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_gpu_input(project, run, case):
    cluster, old, new, needle, message, hint = CASES[case]
    text = edit(project, cluster, old, new)
    render_fails(run, project, cluster, line_of(text, needle), message, hint)


def test_gpu_util_on_mig_only_cluster(project, run):
    # the example's H100 pool (provisioned by Karpenter) is its only whole-GPU NVIDIA pool
    text = (project / "clusters" / EKS / "cluster.yaml").read_text(encoding="utf-8")
    h100 = text[text.index("  - name: h100\n") : text.index("\ngpu:\n  nvidia:") + 1]
    edit(project, EKS, h100, "")
    text = edit(project, EKS, "metric: DCGM_FI_PROF_GR_ENGINE_ACTIVE, ", "metric: DCGM_FI_DEV_GPU_UTIL, ")
    render_fails(
        run,
        project,
        EKS,
        line_of(text, "{deployment: embedder"),
        "DCGM_FI_DEV_GPU_UTIL is not reported for MIG slices",
        "DCGM_FI_PROF_GR_ENGINE_ACTIVE",
    )


def test_operator_mode_needs_one_mig_strategy(project, run):
    text = edit(
        project,
        OCP,
        "tuning:\n",
        "  - name: h100\n    nodeSelector: {pool: h100}\n"
        "    gpu: {vendor: nvidia, model: H100-80GB, perNode: 8, mig: {strategy: mixed, profiles: {3g.40gb: 2}}}\n"
        "tuning:\n",
    )
    render_fails(
        run,
        project,
        OCP,
        line_of(text, "mig: {strategy: mixed"),
        "pool 'h100' uses mig.strategy mixed but pool 'a100' uses single",
        "gpu.nvidia.mode: device-plugin",
    )


def test_unknown_model_is_fine_without_mig(project, run):
    """The AKS example's L40S pool has no MIG profiles: time-slicing only."""
    assert run(project, "render", AKS).exit_code == 0


def test_admission_enabled_before_1_30_is_located(project, run):
    edit(project, AKS, 'kubernetesVersion: "1.32"', 'kubernetesVersion: "1.29"')
    text = edit(project, AKS, "admission: {", "admission: {enabled: true, ")
    render_fails(
        run,
        project,
        AKS,
        line_of(text, "admission: {enabled"),
        "admission.enabled is true, but admission policies need Kubernetes 1.30 or newer",
        "it defaults to off before 1.30",
    )


def test_older_cluster_renders_with_admission_off(project, run):
    """Before 1.30 admission defaults to off: the example renders on 1.29 once its training
    namespace no longer relies on the fabric-pod-security policy (baseline-ipc-lock and the
    NCCL test in it need admission)."""
    edit(project, AKS, 'kubernetesVersion: "1.32"', 'kubernetesVersion: "1.29"')
    edit(project, AKS, "podSecurity: baseline-ipc-lock", "podSecurity: baseline")
    edit(project, AKS, "fabric: {ncclTestNamespace: gpu-training}\n", "")
    result = run(project, "render", AKS)
    assert result.exit_code == 0, result.output
    assert not (project / "rendered" / AKS / "10-platform" / "admission").exists()


# Valid layouts from NVIDIA's A100 combination table and mig-parted's example configs.
@pytest.mark.parametrize(
    "model,layout",
    [
        ("A100-40GB", {"1g.5gb": 7}),
        ("A100-40GB", {"4g.20gb": 1, "2g.10gb": 1, "1g.5gb": 1}),
        ("A100-40GB", {"2g.10gb": 3, "1g.5gb": 1}),
        ("A100-40GB", {"3g.20gb": 1, "2g.10gb": 2}),
        ("A100-80GB", {"1g.20gb": 4}),
        ("H100-80GB", {"1g.10gb": 2, "2g.20gb": 1, "3g.40gb": 1}),
        ("H100-94GB", {"1g.12gb": 1, "2g.24gb": 1, "3g.47gb": 1}),
        ("H200-141GB", {"1g.18gb": 2, "2g.35gb": 1, "3g.71gb": 1}),
        ("B200", {"1g.23gb": 2, "2g.45gb": 1, "3g.90gb": 1}),
        # gpu-operator v26.7.0 default mig-parted config, all-balanced for GB200 (0x294110DE)
        ("GB200", {"1g.23gb": 2, "2g.47gb": 1, "3g.93gb": 1}),
        ("GB200", {"1g.47gb": 4}),
        ("GB200-186GB", {"7g.186gb": 1}),
        ("A30-24GB", {"2g.12gb": 1, "1g.6gb": 2}),
    ],
)
def test_known_layouts_fit(model, layout):
    assert mig.fits(mig.MODELS[model], layout)


@pytest.mark.parametrize(
    "model,layout",
    [
        ("A100-40GB", {"7g.40gb": 1, "1g.5gb": 1}),
        ("A100-40GB", {"1g.10gb": 4, "1g.5gb": 1}),
        ("H100-80GB", {"3g.40gb": 1, "1g.20gb": 3}),
        ("A30-24GB", {"4g.24gb": 1, "1g.6gb": 1}),
        ("GB200", {"4g.93gb": 1, "3g.93gb": 1, "1g.23gb": 1}),
    ],
)
def test_overlapping_layouts_do_not_fit(model, layout):
    assert not mig.fits(mig.MODELS[model], layout)


@pytest.mark.parametrize("name", ["default", "all-disabled"])
def test_operator_pool_named_like_a_reserved_config_is_an_error(project, run, name):
    text = edit(project, OCP, "  - name: a100\n", f"  - name: {name}\n")
    render_fails(
        run,
        project,
        OCP,
        line_of(text, f"name: {name}\n"),
        f"NVIDIA pool name {name!r} is also the GPU Operator's config for unlabelled nodes",
        "rename the pool",
    )


def test_longest_gpu_pool_name_renders_valid_label_values(project, run):
    """The longest pool name the schema allows (40) fits every GPU object name built from it
    (the name is also the `app.kubernetes.io/name` label value, 63 characters at most)."""
    from gpu_support import load_objects

    edit(project, EKS, "  - name: mi300x\n", f"  - name: {'a' * 40}\n")
    edit(project, EKS, "  - name: a100-mig\n", f"  - name: {'b' * 40}\n")
    edit(project, AKS, "  - name: l40s\n", f"  - name: {'c' * 40}\n")
    edit(project, AKS, "{pool: l40s,", f"{{pool: {'c' * 40},")  # the inference queue's flavor
    result = run(project, "render", EKS, AKS)
    assert result.exit_code == 0, result.output
    for cluster in (EKS, AKS):
        for obj in load_objects(project / "rendered" / cluster):
            for value in [obj["metadata"]["name"], *obj["metadata"].get("labels", {}).values()]:
                assert len(value) <= 63, (cluster, value)
