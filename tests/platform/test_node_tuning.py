"""Node tuning as rendered: DaemonSet backend options and the Tuned profiles."""

from __future__ import annotations

import re

from clusterinput import BASE, objects, replace, write

TUNED_1GI = (
    replace(
        "{2Mi: 1024, 1Gi: 16, bootReserved: true}",
        "{2Mi: 1024, 1Gi: 16}",
        replace("nodeSelector: {agentpool: gpu}", 'nodeSelector: {node-role.kubernetes.io/worker-gpu: "", gpu: h100}'),
    )
    + "tuning: {backend: tuned, machineConfigPools: [worker-gpu]}\n"
)
# the Node Tuning Operator runs on OpenShift or self-managed (generic) clusters, not on AKS
TUNED_1GI = TUNED_1GI.replace("provider: aks", "provider: generic")


def tuning(root) -> list[dict]:
    return objects(root, "t")["node-tuning"]


def test_kubelet_restart_is_opt_in(project):
    write(project, BASE)
    (ds,) = [o for o in tuning(project) if o["kind"] == "DaemonSet"]
    pod = ds["spec"]["template"]["spec"]
    assert "hostPID" not in pod
    assert {"name": "RESTART_KUBELET", "value": "false"} in pod["initContainers"][0]["env"]
    write(project, BASE + "tuning: {restartKubelet: true}\n")
    (ds,) = [o for o in tuning(project) if o["kind"] == "DaemonSet"]
    pod = ds["spec"]["template"]["spec"]
    assert pod["hostPID"] is True
    assert {"name": "RESTART_KUBELET", "value": "true"} in pod["initContainers"][-1]["env"]


def test_restart_record_is_kept_on_the_host_across_pods_and_reboots(project):
    write(project, BASE + "tuning: {restartKubelet: true}\n")
    (ds,) = [o for o in tuning(project) if o["kind"] == "DaemonSet"]
    pod = ds["spec"]["template"]["spec"]
    init = pod["initContainers"][-1]
    state_dir = next(e["value"] for e in init["env"] if e["name"] == "STATE_DIR")
    (mount,) = [m for m in init["volumeMounts"] if m["mountPath"] == state_dir]
    (volume,) = [v for v in pod["volumes"] if v["name"] == mount["name"]]
    assert volume["hostPath"] == {"path": "/var/lib/gpu-gitops", "type": "DirectoryOrCreate"}
    assert not mount.get("readOnly", False)


def test_only_the_tuning_namespace_is_privileged_and_only_tuning_containers_are(project):
    write(project, BASE)
    rendered = tuning(project)
    (ns,) = [o for o in rendered if o["kind"] == "Namespace"]
    assert ns["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "privileged"
    (ds,) = [o for o in rendered if o["kind"] == "DaemonSet"]
    pod = ds["spec"]["template"]["spec"]
    assert pod["initContainers"][0]["securityContext"] == {"privileged": True, "readOnlyRootFilesystem": True}
    assert pod["containers"][0]["securityContext"]["allowPrivilegeEscalation"] is False


def test_daemonset_config_lists_sysctls_runtime_pages_and_checked_boot_pages(project):
    write(project, BASE)
    (cm,) = [o for o in tuning(project) if o["kind"] == "ConfigMap" and "tuning.conf" in o["data"]]
    lines = cm["data"]["tuning.conf"].splitlines()
    assert "sysctl net.core.rmem_max 268435456" in lines  # the pool's value over the GPU default
    assert "sysctl fs.file-max 2097152" in lines  # GPU pool default
    assert "hugepages 2048 1024" in lines
    assert "reserved-hugepages 1048576 16" in lines


def test_tuned_reserves_1gi_pages_on_the_kernel_command_line_through_the_machine_config_pool(project):
    write(project, TUNED_1GI)
    rendered = tuning(project)
    assert [o["kind"] for o in rendered] == ["Tuned"]
    (tuned,) = rendered
    assert tuned["metadata"]["namespace"] == "openshift-cluster-node-tuning-operator"
    (profile,) = tuned["spec"]["profile"]
    data = profile["data"].splitlines()
    assert "include=openshift-node" in data
    assert "net.core.rmem_max=268435456" in data
    # 2Mi pages too: set at runtime (vm.nr_hugepages) they would miss the kubelet's allocatable
    assert not any(line.startswith("vm.nr_hugepages") for line in data)
    assert data.index("[bootloader]") < data.index(
        "cmdline_gpu_gitops_hugepages=hugepagesz=2M hugepages=1024 hugepagesz=1G hugepages=16"
    )
    assert "[vm]" not in data and not any("transparent_hugepages" in line for line in data)  # not asked for
    (recommend,) = tuned["spec"]["recommend"]
    assert recommend["profile"] == profile["name"]
    assert recommend["machineConfigLabels"] == {"machineconfiguration.openshift.io/role": "worker-gpu"}


def test_tuned_2mi_pages_go_on_the_kernel_command_line_too(project):
    write(project, TUNED_1GI.replace("{2Mi: 1024, 1Gi: 16}", "{2Mi: 1024}"))
    (tuned,) = tuning(project)
    data = tuned["spec"]["profile"][0]["data"].splitlines()
    assert "cmdline_gpu_gitops_hugepages=hugepagesz=2M hugepages=1024" in data
    assert tuned["spec"]["recommend"][0]["machineConfigLabels"] == {
        "machineconfiguration.openshift.io/role": "worker-gpu"
    }


def test_tuned_without_kernel_arguments_matches_all_the_pools_labels(project):
    write(
        project,
        (
            replace(
                "    hugepages: {2Mi: 1024, 1Gi: 16, bootReserved: true}\n",
                "",
                replace("nodeSelector: {agentpool: gpu}", "nodeSelector: {agentpool: gpu, sku: h100}"),
            )
            + "tuning: {backend: tuned}\n"
        ).replace("provider: aks", "provider: generic"),
    )
    (tuned,) = tuning(project)
    assert "[bootloader]" not in tuned["spec"]["profile"][0]["data"]
    (recommend,) = tuned["spec"]["recommend"]
    assert "machineConfigLabels" not in recommend
    assert recommend["match"] == [{"label": "agentpool", "value": "gpu", "match": [{"label": "sku", "value": "h100"}]}]


def test_pools_without_settings_get_no_tuning(project):
    write(project, BASE[: BASE.index("  - name: gpu\n")] + "tuning: {backend: daemonset}\n")
    assert tuning(project) == []


def test_kubelet_restarts_take_the_pools_lease_with_api_access_for_that_only(project):
    write(
        project,
        BASE + "  - name: cpu\n    nodeSelector: {agentpool: cpu}\n    sysctls: {fs.file-max: 1048576}\n"
        "tuning: {restartKubelet: true}\n",
    )
    rendered = tuning(project)
    daemonsets = {o["metadata"]["name"]: o for o in rendered if o["kind"] == "DaemonSet"}
    for ds in daemonsets.values():
        assert ds["spec"]["updateStrategy"]["rollingUpdate"]["maxUnavailable"] == 1  # a new config: one node at a time
    # the cpu pool has no runtime huge pages: no restart, no lock, no API access
    cpu = daemonsets["tune-cpu"]["spec"]["template"]["spec"]
    # a pool that never restarts the kubelet runs as the tuning's own account, with no token
    assert [c["name"] for c in cpu["initContainers"]] == ["tune"] and cpu["serviceAccountName"] == "node-tuning"
    assert cpu["automountServiceAccountToken"] is False
    for pool, ds in (("gpu", daemonsets["tune-gpu"]),):
        pod = ds["spec"]["template"]["spec"]
        copier, tune = pod["initContainers"]
        assert copier["command"] == ["cp", "/bin/kubectl", "/tools/kubectl"]
        env = {e["name"]: e.get("value", e.get("valueFrom")) for e in tune["env"]}
        assert env["LOCK_NAME"] == f"kubelet-restart-{pool}" and env["LOCK_NAMESPACE"] == "gpu-node-tuning"
        assert env["NODE_NAME"] == {"fieldRef": {"fieldPath": "spec.nodeName"}}
        assert env["KUBECTL"] == "/tools/kubectl"
        assert env["HOST_PROC"] == "/proc" and pod["hostPID"] is True  # PID 1: the systemd check
        # the token is mounted into the tuning container only
        assert pod["automountServiceAccountToken"] is False
        assert pod["serviceAccountName"] == "kubelet-restart"
        token_mounts = [
            m
            for c in pod["initContainers"] + pod["containers"]
            for m in c.get("volumeMounts", [])
            if m["mountPath"] == "/var/run/secrets/kubernetes.io/serviceaccount"
        ]
        assert token_mounts == [m for m in tune["volumeMounts"] if m["name"] == "api-token"] and token_mounts
    (role,) = [o for o in rendered if o["kind"] == "Role"]
    assert role["rules"] == [
        {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["create"]},
        {
            "apiGroups": ["coordination.k8s.io"],
            "resources": ["leases"],
            "resourceNames": ["kubelet-restart-gpu"],
            "verbs": ["get", "update", "delete"],
        },
    ]
    (binding,) = [o for o in rendered if o["kind"] == "RoleBinding"]
    assert binding["subjects"] == [
        {"kind": "ServiceAccount", "name": "kubelet-restart", "namespace": "gpu-node-tuning"}
    ]


def test_without_kubelet_restarts_no_api_access(project):
    write(project, BASE)
    rendered = tuning(project)
    # its own account (never the namespace's default, which an SCC binding would widen), with no
    # token and no Role
    assert not [o for o in rendered if o["kind"] in ("Role", "RoleBinding")]
    (account,) = [o for o in rendered if o["kind"] == "ServiceAccount"]
    assert account["automountServiceAccountToken"] is False
    (ds,) = [o for o in rendered if o["kind"] == "DaemonSet"]
    pod = ds["spec"]["template"]["spec"]
    assert [c["name"] for c in pod["initContainers"]] == ["tune"] and pod["automountServiceAccountToken"] is False


def test_a_machine_config_pool_not_known_to_exist_is_an_input_error(project, run):
    text = TUNED_1GI.replace("tuning: {backend: tuned, machineConfigPools: [worker-gpu]}", "tuning: {backend: tuned}")
    write(project, text)
    result = run(project, "render", "t")
    assert result.exit_code == 2, result.output
    (line, message, hint), *_ = re.findall(
        r"clusters/t/cluster\.yaml:(\d+):\d+: error: (.*)\n  hint: (.*)", result.output
    )
    assert int(line) == next(n for n, x in enumerate(text.splitlines(), 1) if 'worker-gpu: ""' in x)
    assert "MachineConfigPool 'worker-gpu'" in message
    assert "tuning.machineConfigPools" in hint
