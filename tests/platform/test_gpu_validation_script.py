"""scripts/validate-gpu-node.sh run for real, against fake nvidia-smi / amd-smi on PATH."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import REPO
from gpu_support import find, load_objects

SCRIPT = REPO / "libsonnet" / "scripts" / "validate-gpu-node.sh"


def fake_tool(bin_dir: Path, name: str, output: str, status: int = 0) -> None:
    tool = bin_dir / name
    tool.write_text(f"#!/bin/sh\ncat <<'OUT'\n{output}OUT\nexit {status}\n", encoding="utf-8")
    tool.chmod(0o755)


def run_script(bin_dir: Path, *args: str) -> subprocess.CompletedProcess:
    # Only the fake tools and the basic utilities the script needs are on PATH.
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "NODE_NAME": "gpu-node-1"}
    return subprocess.run(["sh", str(SCRIPT), *args], capture_output=True, encoding="utf-8", env=env)


@pytest.fixture
def bin_dir(tmp_path: Path) -> Path:
    path = tmp_path / "bin"
    path.mkdir()
    return path


def nvidia_output(version: str, count: int) -> str:
    return "".join(f"{version}\n" for _ in range(count))


def fake_nvidia_smi(bin_dir: Path, version: str, layouts: list[dict[str, int]]) -> None:
    """nvidia-smi answering --query-gpu with one driver line per GPU and -L with each GPU and
    the MIG devices under it, in the driver's own format."""
    listing = ""
    for i, layout in enumerate(layouts):
        listing += f"GPU {i}: NVIDIA A100-SXM4-80GB (UUID: GPU-{i:08d}-0000-0000-0000-000000000000)\n"
        n = 0
        for profile, count in layout.items():
            for _ in range(count):
                listing += (
                    f"  MIG {profile:<11} Device {n:>2}: (UUID: MIG-{i:04d}{n:04d}-0000-0000-0000-000000000000)\n"
                )
                n += 1
    tool = bin_dir / "nvidia-smi"
    tool.write_text(
        "#!/bin/sh\nif [ \"$1\" = -L ]; then\ncat <<'OUT'\n"
        + listing
        + "OUT\nelse\ncat <<'OUT'\n"
        + nvidia_output(version, len(layouts))
        + "OUT\nfi\n",
        encoding="utf-8",
    )
    tool.chmod(0o755)


def test_nvidia_pass(bin_dir):
    fake_tool(bin_dir, "nvidia-smi", nvidia_output("580.95.05", 8))
    result = run_script(bin_dir, "nvidia", "550.54.15", "8")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == (
        "gpu-validation: PASS node=gpu-node-1 vendor=nvidia driver=580.95.05 gpus=8 "
        "(minimum driver 550.54.15, expected 8)"
    )


@pytest.mark.parametrize("version,minimum", [("550.54.14", "550.54.15"), ("535.183.01", "550.54.15"), ("9.1", "10.0")])
def test_nvidia_old_driver_fails(bin_dir, version, minimum):
    fake_tool(bin_dir, "nvidia-smi", nvidia_output(version, 8))
    result = run_script(bin_dir, "nvidia", minimum, "8")
    assert result.returncode == 1
    assert (
        f"FAIL node=gpu-node-1 vendor=nvidia: driver {version} is older than the required minimum {minimum}"
        in result.stdout
    )


def test_numeric_not_lexical_comparison(bin_dir):
    """570.10 is newer than 570.9 although it sorts before it as text."""
    fake_tool(bin_dir, "nvidia-smi", nvidia_output("570.10", 2))
    assert run_script(bin_dir, "nvidia", "570.9", "2").returncode == 0


def test_nvidia_missing_gpu_fails(bin_dir):
    fake_tool(bin_dir, "nvidia-smi", nvidia_output("580.95.05", 7))
    result = run_script(bin_dir, "nvidia", "550.54.15", "8")
    assert result.returncode == 1
    assert "found 7 GPUs, the pool declares 8 per node" in result.stdout


def test_nvidia_smi_error_is_reported(bin_dir):
    fake_tool(
        bin_dir, "nvidia-smi", "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver\n", 9
    )
    result = run_script(bin_dir, "nvidia", "550.54.15", "8")
    assert result.returncode == 1
    assert "nvidia-smi failed: NVIDIA-SMI has failed" in result.stdout


def test_nvidia_smi_absent(bin_dir):
    result = run_script(bin_dir, "nvidia", "550.54.15", "8")
    assert result.returncode == 1
    assert "nvidia-smi not found" in result.stdout


def test_nvidia_mig_layout_pass(bin_dir):
    fake_nvidia_smi(bin_dir, "580.95.05", [{"1g.10gb": 7}] * 8)
    result = run_script(bin_dir, "nvidia", "550.54.15", "8", "1g.10gb=7")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == (
        "gpu-validation: PASS node=gpu-node-1 vendor=nvidia driver=580.95.05 gpus=8 "
        "mig=1g.10gb=7 (minimum driver 550.54.15, expected 8)"
    )


def test_nvidia_mixed_layout_is_compared_whatever_the_order(bin_dir):
    fake_nvidia_smi(bin_dir, "580.95.05", [{"2g.20gb": 1, "1g.10gb": 5}] * 2)
    assert run_script(bin_dir, "nvidia", "550.54.15", "2", "1g.10gb=5,2g.20gb=1").returncode == 0


def test_nvidia_gpu_without_its_mig_layout_fails(bin_dir):
    """The driver answers and the GPU count is right, but two GPUs are not partitioned as the
    pool declares: the device plugin would advertise fewer slices than the quotas assume."""
    fake_nvidia_smi(bin_dir, "580.95.05", [{"1g.10gb": 7}] * 6 + [{"1g.10gb": 3}, {}])
    result = run_script(bin_dir, "nvidia", "550.54.15", "8", "1g.10gb=7")
    assert result.returncode == 1
    assert result.stdout.strip() == (
        "gpu-validation: FAIL node=gpu-node-1 vendor=nvidia: MIG layout differs from the "
        "pool's (1g.10gb=7 per GPU): GPU 6 has 1g.10gb=3; GPU 7 has none"
    )


def test_nvidia_mig_devices_on_a_pool_without_mig_fail(bin_dir):
    fake_nvidia_smi(bin_dir, "580.95.05", [{}, {"3g.40gb": 2}])
    result = run_script(bin_dir, "nvidia", "550.54.15", "2", "none")
    assert result.returncode == 1
    assert "MIG layout differs from the pool's (none per GPU): GPU 1 has 3g.40gb=2" in result.stdout


def test_nvidia_whole_gpus_pass_when_the_pool_has_no_mig(bin_dir):
    fake_nvidia_smi(bin_dir, "580.95.05", [{}] * 4)
    result = run_script(bin_dir, "nvidia", "550.54.15", "4", "none")
    assert result.returncode == 0, result.stdout
    assert "gpus=4 mig=none" in result.stdout


AMD_STATIC = "".join(f"GPU: {i}\n    DRIVER:\n        NAME: amdgpu\n        VERSION: 6.10.5\n\n" for i in range(8))


def test_amd_pass(bin_dir):
    fake_tool(bin_dir, "amd-smi", AMD_STATIC)
    result = run_script(bin_dir, "amd", "6.8.5", "8")
    assert result.returncode == 0, result.stdout
    assert "gpu-validation: PASS node=gpu-node-1 vendor=amd driver=6.10.5 gpus=8" in result.stdout


def test_amd_wrong_count(bin_dir):
    fake_tool(bin_dir, "amd-smi", AMD_STATIC)
    result = run_script(bin_dir, "amd", "6.8.5", "4")
    assert result.returncode == 1
    assert "found 8 GPUs, the pool declares 4 per node" in result.stdout


def test_rendered_configmap_carries_the_script(rendered):
    (cm,) = find(load_objects(rendered / "eks-mi300x-inference"), "ConfigMap", "gpu-validation-script")
    assert cm["data"]["validate-gpu-node.sh"] == SCRIPT.read_text(encoding="utf-8")


def test_validation_daemonsets_check_each_pool(rendered):
    objects = load_objects(rendered / "eks-mi300x-inference")
    commands = {
        ds["metadata"]["name"]: ds["spec"]["template"]["spec"]["initContainers"][0]["command"]
        for ds in find(objects, "DaemonSet")
        if ds["metadata"]["name"].startswith("gpu-validation-")
    }
    assert commands == {
        "gpu-validation-mi300x": ["sh", "/scripts/validate-gpu-node.sh", "amd", "6.8.5", "8"],
        "gpu-validation-a100-mig": [
            "sh",
            "/scripts/validate-gpu-node.sh",
            "nvidia",
            "550.54.15",
            "8",
            "1g.5gb=2,2g.10gb=1,3g.20gb=1",
        ],
        "gpu-validation-h100": ["sh", "/scripts/validate-gpu-node.sh", "nvidia", "550.54.15", "8", "none"],
    }


def test_nvidia_validation_reports_an_old_driver_instead_of_being_refused_by_the_runtime(rendered):
    """The CUDA base image's NVIDIA_REQUIRE_CUDA would make the runtime refuse the container on a
    driver below it: the check disables that, so the script itself prints FAIL."""
    checks = [
        ds["spec"]["template"]["spec"]["initContainers"][0]
        for cluster in ("aks-h100-training", "eks-mi300x-inference", "ocp-a100-tuned")
        for ds in find(load_objects(rendered / cluster), "DaemonSet")
        if ds["metadata"]["name"].startswith("gpu-validation-")
        and "nvidia" in ds["spec"]["template"]["spec"]["initContainers"][0]["command"]
    ]
    assert checks
    for check in checks:
        assert "cuda" in check["image"]
        assert {"name": "NVIDIA_DISABLE_REQUIRE", "value": "true"} in check["env"], check["name"]


def test_mig_validation_can_see_every_mig_device(rendered):
    """Listing all MIG devices takes the runtime's MIG monitor capability, granted with SYS_ADMIN
    (effective for root only), so the MIG pool's check runs so and its namespace admits it."""
    objects = load_objects(rendered / "eks-mi300x-inference")
    (ds,) = find(objects, "DaemonSet", "gpu-validation-a100-mig")
    check = ds["spec"]["template"]["spec"]["initContainers"][0]
    assert {"name": "NVIDIA_MIG_MONITOR_DEVICES", "value": "all"} in check["env"]
    assert check["securityContext"]["capabilities"] == {"drop": ["ALL"], "add": ["SYS_ADMIN"]}
    assert "runAsUser" not in check["securityContext"] and "runAsNonRoot" not in check["securityContext"]
    (ns,) = find(objects, "Namespace", "gpu-validation")
    assert ns["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "privileged"


def test_openshift_validation_is_admitted_by_its_sccs(rendered):
    """The MIG check (SYS_ADMIN) runs under an account allowed the privileged SCC, which assigns
    no UID: its non-root containers name one (test_openshift_scc models each SCC)."""
    objects = load_objects(rendered / "ocp-a100-tuned")
    (ds,) = find(objects, "DaemonSet", "gpu-validation-a100")
    pod = ds["spec"]["template"]["spec"]
    assert pod["containers"][0]["securityContext"]["runAsNonRoot"] is True
    assert pod["containers"][0]["securityContext"]["runAsUser"] == 65534
    assert pod["serviceAccountName"] == "gpu-validation-privileged"
    (binding,) = find(objects, "RoleBinding", "gpu-validation-privileged")
    assert binding["roleRef"] == {
        "apiGroup": "rbac.authorization.k8s.io",
        "kind": "ClusterRole",
        "name": "system:openshift:scc:privileged",
    }
    assert binding["subjects"] == [
        {"kind": "ServiceAccount", "name": "gpu-validation-privileged", "namespace": "gpu-validation"}
    ]
    # elsewhere a fixed non-root UID, and no OpenShift objects
    eks = load_objects(rendered / "eks-mi300x-inference")
    assert not find(eks, "RoleBinding", "gpu-validation-privileged")
    (pause,) = find(eks, "DaemonSet", "gpu-validation-a100-mig")[0]["spec"]["template"]["spec"]["containers"]
    assert pause["securityContext"]["runAsUser"] == 65534


def test_amd_validation_runs_as_root(rendered):
    """rocm/rocm-terminal runs as rocm-user, outside the host's render group that owns /dev/kfd
    and the render nodes: amd-smi would not open them."""
    (ds,) = find(load_objects(rendered / "eks-mi300x-inference"), "DaemonSet", "gpu-validation-mi300x")
    check = ds["spec"]["template"]["spec"]["initContainers"][0]
    assert check["securityContext"] == {"privileged": True, "runAsUser": 0}


KUBECTL = shutil.which("kubectl")


def fake_node(bin_dir: Path, allocatable: dict[str, str]) -> None:
    """kubectl answering `get node gpu-node-1 -o jsonpath=...` for a Node with ``allocatable``:
    the real kubectl evaluates the script's jsonpath on that Node offline."""
    node = bin_dir / "node.json"
    node.write_text(
        json.dumps(
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {"name": "gpu-node-1"},
                "status": {"allocatable": {"cpu": "96", **allocatable}},
            }
        ),
        encoding="utf-8",
    )
    tool = bin_dir / "kubectl"
    tool.write_text(
        "#!/bin/sh\n"
        'case "$*" in *"get node gpu-node-1 -o jsonpath="*) ;; *) echo "unexpected: $*" >&2; exit 2;; esac\n'
        "for a; do jp=$a; done\n"
        f'exec {KUBECTL} label --local -f {node} probe=1 -o "$jp"\n',
        encoding="utf-8",
    )
    tool.chmod(0o755)


needs_kubectl = pytest.mark.skipif(KUBECTL is None, reason="kubectl not installed")


@needs_kubectl
def test_advertised_resources_pass(bin_dir):
    fake_node(bin_dir, {"nvidia.com/mig-1g.5gb": "16", "nvidia.com/mig-2g.10gb": "8"})
    result = run_script(bin_dir, "advertised", "nvidia.com/mig-1g.5gb=16", "nvidia.com/mig-2g.10gb=8")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == (
        "gpu-validation: PASS node=gpu-node-1 vendor=advertised nvidia.com/mig-1g.5gb=16 nvidia.com/mig-2g.10gb=8"
    )


@needs_kubectl
def test_fewer_advertised_than_declared_fails(bin_dir):
    """The GPUs answer, but the device plugin registered whole GPUs where the pool time-slices
    them 4 ways (its config never reached the node)."""
    fake_node(bin_dir, {"nvidia.com/gpu": "2"})
    result = run_script(bin_dir, "advertised", "nvidia.com/gpu=8")
    assert result.returncode == 1
    assert "the node advertises 2 nvidia.com/gpu, the pool declares 8" in result.stdout


@needs_kubectl
def test_nothing_advertised_fails(bin_dir):
    fake_node(bin_dir, {})
    result = run_script(bin_dir, "advertised", "amd.com/gpu=8")
    assert result.returncode == 1
    assert "the node advertises no amd.com/gpu, the pool declares 8" in result.stdout


def test_validation_checks_what_each_pool_advertises(rendered):
    advertised = {}
    for cluster in ("eks-mi300x-inference", "aks-h100-training", "ocp-a100-tuned"):
        for ds in find(load_objects(rendered / cluster), "DaemonSet"):
            if ds["metadata"]["name"].startswith("gpu-validation-"):
                pod = ds["spec"]["template"]["spec"]
                (check,) = [c for c in pod["initContainers"] if c["name"] == "advertised"]
                assert check["command"][:3] == ["sh", "/scripts/validate-gpu-node.sh", "advertised"]
                advertised[ds["metadata"]["name"]] = check["command"][3:]
                # the API token is mounted into this container only
                assert pod["automountServiceAccountToken"] is False
                assert [
                    m["name"]
                    for c in pod["initContainers"] + pod["containers"]
                    for m in c.get("volumeMounts", [])
                    if m["name"] == "api-token"
                ] == ["api-token"]
    assert advertised == {
        "gpu-validation-a100-mig": ["nvidia.com/mig-1g.5gb=16", "nvidia.com/mig-2g.10gb=8", "nvidia.com/mig-3g.20gb=8"],
        "gpu-validation-mi300x": ["amd.com/gpu=8"],
        # aks-h100-training's (read last): 8 GPUs and the InfiniBand fabric's shared RDMA resource
        "gpu-validation-h100": ["nvidia.com/gpu=8", "rdma/ib=63"],
        "gpu-validation-l40s": ["nvidia.com/gpu=8"],  # 2 GPUs time-sliced 4 ways
        "gpu-validation-a100": ["nvidia.com/gpu=56"],  # 8 GPUs x 7 single-strategy slices
    }
    (role,) = find(load_objects(rendered / "ocp-a100-tuned"), "ClusterRole", "gpu-validation-node-reader")
    assert role["rules"] == [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["get"]}]


def test_validation_and_quota_checks_count_capacity_alike(rendered):
    """The quota checks (generator/inputs/consistency) and the node check (gpu.advertisedPerNode) must
    agree on what a pool advertises, or a passing node would not honour a passing quota."""
    from conftest import EXAMPLES

    from generator.inputs.advertised import advertised_per_gpu, device_capacity, gpu_resource
    from generator.inputs.load import load_cluster
    from generator.paths import Project

    for cluster in EXAMPLES:
        objects = load_objects(rendered / cluster)
        for pool in load_cluster(Project(REPO), cluster).spec["nodePools"]:
            gpu = pool.get("gpu")
            if not gpu or not find(objects, "DaemonSet", f"gpu-validation-{pool['name']}"):
                continue
            (ds,) = find(objects, "DaemonSet", f"gpu-validation-{pool['name']}")
            (check,) = [c for c in ds["spec"]["template"]["spec"]["initContainers"] if c["name"] == "advertised"]
            advertised = {k: int(v) for k, v in (a.split("=") for a in check["command"][3:])}
            if gpu.get("allocation") == "dra":
                # the device quotas count DRA devices as the ResourceSlice check does
                per_class = {
                    "gpu.nvidia.com": advertised.get("gpu", 0) * gpu["nodes"],
                    "mig.nvidia.com": sum(n for k, n in advertised.items() if k.startswith("mig/")) * gpu["nodes"],
                }
                assert per_class == device_capacity({"nodePools": [pool]}), (cluster, pool["name"])
                continue
            whole = advertised.get(gpu_resource(gpu), 0)
            assert whole == gpu["perNode"] * advertised_per_gpu(gpu), (cluster, pool["name"])
            slices = {k.removeprefix("nvidia.com/mig-"): v for k, v in advertised.items() if "/mig-" in k}
            mixed = gpu["mig"]["strategy"] == "mixed"
            assert slices == ({p: n * gpu["perNode"] for p, n in gpu["mig"]["profiles"].items()} if mixed else {})


def fake_slices(bin_dir: Path, devices: list[tuple[str, str]]) -> None:
    """kubectl answering the script's ResourceSlice query with the lines its jsonpath prints, one
    per device: its `type` attribute and its `profile` (empty for a whole GPU)."""
    listing = "".join(f"{kind} {profile}\n" for kind, profile in devices)
    tool = bin_dir / "kubectl"
    tool.write_text(
        "#!/bin/sh\n"
        'case "$*" in *"get resourceslices.v1.resource.k8s.io --field-selector '
        'spec.nodeName=gpu-node-1,spec.driver=gpu.nvidia.com -o jsonpath="*) ;; '
        '*) echo "unexpected: $*" >&2; exit 2;; esac\n'
        f"cat <<'OUT'\n{listing}OUT\n",
        encoding="utf-8",
    )
    tool.chmod(0o755)


def test_slices_with_the_declared_mig_devices_pass(bin_dir):
    devices = [("mig", "1g.23gb")] * 2 + [("mig", "1g.23gb+me")] + [("mig", "3g.90gb")]
    fake_slices(bin_dir, devices)
    result = run_script(bin_dir, "slices", "mig/3g.90gb=1", "mig/1g.23gb=2", "mig/1g.23gb+me=1")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == (
        "gpu-validation: PASS node=gpu-node-1 vendor=slices mig/1g.23gb+me=1 mig/1g.23gb=2 mig/3g.90gb=1"
    )


def test_slices_with_whole_gpus_where_mig_is_declared_fail(bin_dir):
    """The MIG layout never reached the node: the driver publishes its GPUs whole."""
    fake_slices(bin_dir, [("gpu", "")] * 8)
    result = run_script(bin_dir, "slices", "mig/3g.90gb=8")
    assert result.returncode == 1
    assert "the node's ResourceSlices publish gpu=8, the pool declares mig/3g.90gb=8" in result.stdout
    # what to do: the plugin listed the GPUs before the layout was applied
    assert "check nvidia.com/mig.config.state on the node" in result.stdout
    assert "gpu-node-config restarts the DRA kubelet plugin" in result.stdout


def test_no_slices_fail(bin_dir):
    """No kubelet plugin on the node (not labelled, or the device plugin still holds it)."""
    fake_slices(bin_dir, [])
    result = run_script(bin_dir, "slices", "gpu=4")
    assert result.returncode == 1
    assert "publish no devices, the pool declares gpu=4" in result.stdout
    assert "mig.config.state" not in result.stdout


def test_dra_pools_are_validated_by_their_resource_slices(rendered):
    objects = load_objects(rendered / "onprem-gb200-dra")
    checks = {}
    for pool in ("b200", "gb200", "l40s"):
        (ds,) = find(objects, "DaemonSet", f"gpu-validation-{pool}")
        (check,) = [c for c in ds["spec"]["template"]["spec"]["initContainers"] if c["name"] == "advertised"]
        checks[pool] = check["command"][2:]
    assert checks == {
        "b200": ["slices", "mig/1g.23gb=16", "mig/2g.45gb=8", "mig/3g.90gb=8"],
        "gb200": ["slices", "gpu=4"],
        "l40s": ["advertised", "nvidia.com/gpu=4"],
    }
    (role,) = find(objects, "ClusterRole", "gpu-validation-node-reader")
    assert {"apiGroups": ["resource.k8s.io"], "resources": ["resourceslices"], "verbs": ["list"]} in role["rules"]
