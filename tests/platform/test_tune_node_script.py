"""files/tune-node.sh run for real against a fake /proc/sys and /sys tree."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from clusterinput import objects

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "libsonnet" / "files" / "tune-node.sh"
HUGE_2M = "kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"
HUGE_1G = "kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages"

pytestmark = pytest.mark.skipif(shutil.which("sh") is None, reason="needs a POSIX shell")


@pytest.fixture
def node(tmp_path: Path) -> Path:
    """A fake node: kernel defaults in /proc/sys, no huge pages in /sys."""
    files = {
        "proc/sys/net/core/rmem_max": "212992\n",
        "proc/sys/net/core/wmem_max": "212992\n",
        "proc/sys/fs/file-max": "9223372036854775807\n",
        "proc/sys/kernel/pid_max": "32768\n",
        "proc/sys/kernel/core_pattern": "core\n",
        "proc/sys/kernel/random/boot_id": "boot-1\n",
        "proc/1/comm": "systemd\n",
        "sys/" + HUGE_2M: "0\n",
        "sys/" + HUGE_1G: "0\n",
    }
    for rel, content in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    return tmp_path


def tune(node: Path, config: str, **env) -> subprocess.CompletedProcess:
    conf = node / "tuning.conf"
    conf.write_text(config, encoding="utf-8")
    environ = {
        "PATH": os.environ["PATH"],
        "PROC_SYS": str(node / "proc/sys"),
        "SYS_ROOT": str(node / "sys"),
        "HOST_PROC": str(node / "proc"),
        **env,
    }
    return subprocess.run(["sh", str(SCRIPT), str(conf)], env=environ, capture_output=True, encoding="utf-8")


def read(node: Path, rel: str) -> str:
    return (node / rel).read_text(encoding="utf-8").strip()


def snapshot(node: Path) -> dict[str, tuple[str, int]]:
    return {
        str(p.relative_to(node)): (p.read_text(encoding="utf-8"), p.stat().st_mtime_ns)
        for p in sorted(node.rglob("*"))
        if p.is_file() and p.name != "tuning.conf"
    }


CONFIG = """\
# node pool gpu
sysctl net.core.rmem_max 268435456
sysctl kernel.pid_max 4194304
sysctl kernel.core_pattern |/usr/bin/dump %p
hugepages 2048 1024
"""


def test_first_run_writes_every_setting_and_logs_it(node):
    result = tune(node, CONFIG)
    assert result.returncode == 0, result.stdout + result.stderr
    assert read(node, "proc/sys/net/core/rmem_max") == "268435456"
    assert read(node, "proc/sys/kernel/pid_max") == "4194304"
    assert read(node, "proc/sys/kernel/core_pattern") == "|/usr/bin/dump %p"
    assert read(node, "sys/" + HUGE_2M) == "1024"
    assert read(node, "proc/sys/net/core/wmem_max") == "212992"  # not in the config: untouched
    assert "set net.core.rmem_max: 212992 -> 268435456" in result.stdout
    assert "set hugepages-2048kB: 0 -> 1024" in result.stdout
    assert "4 changed, 0 unchanged, 0 failed" in result.stdout


def test_second_run_changes_nothing(node):
    assert tune(node, CONFIG).returncode == 0
    before = snapshot(node)
    result = tune(node, CONFIG)
    assert result.returncode == 0
    assert snapshot(node) == before
    assert "0 changed, 4 unchanged, 0 failed" in result.stdout
    assert "huge pages changed" not in result.stdout


def restarts(node: Path, restart: str = "true") -> dict[str, str]:
    """Environment of a node whose kubelet restarts are counted (lines of the file `restarts`) and
    whose kubelet answers its health check at once (a stand-in wget)."""
    command = node / f"restart-kubelet-{restart}"
    command.write_text(f"#!/bin/sh\n{restart} && echo restart >> {node}/restarts\n", encoding="utf-8")
    command.chmod(0o755)
    tool(node, "wget", "exit 0")
    return {
        "RESTART_KUBELET": "true",
        "STATE_DIR": str(node / "var/lib/gpu-gitops"),
        "KUBELET_RESTART_COMMAND": str(command),
        "PATH": f"{node / 'bin'}:{os.environ['PATH']}",
    }


def tool(node: Path, name: str, body: str) -> None:
    """A stand-in command on the node's PATH (see restarts)."""
    path = node / "bin" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text("#!/bin/sh\n" + body + "\n", encoding="utf-8")
    path.chmod(0o755)


def restart_count(node: Path) -> int:
    path = node / "restarts"
    return len(path.read_text(encoding="utf-8").splitlines()) if path.exists() else 0


def reboot(node: Path, boot_id: str) -> None:
    """A new boot: new boot_id, runtime huge pages gone, sysctls back to the kernel default."""
    (node / "proc/sys/kernel/random/boot_id").write_text(boot_id + "\n", encoding="utf-8")
    (node / "sys" / HUGE_2M).write_text("0\n", encoding="utf-8")


def test_kubelet_restarts_once_per_huge_page_setting_and_boot(node):
    env = restarts(node)
    first = tune(node, CONFIG, **env)
    assert first.returncode == 0, first.stdout
    assert restart_count(node) == 1
    assert "no restart recorded" in first.stdout
    assert (node / "var/lib/gpu-gitops/kubelet-hugepages").read_text(
        encoding="utf-8"
    ) == "hugepages 2048kB=1024 boot boot-1\n"
    again = tune(node, CONFIG, **env)
    assert restart_count(node) == 1
    assert "unchanged kubelet" in again.stdout
    assert tune(node, "sysctl kernel.pid_max 65536\n", **env).returncode == 0  # no runtime huge pages
    assert restart_count(node) == 1
    resized = tune(node, CONFIG.replace("hugepages 2048 1024", "hugepages 2048 2048"), **env)
    assert restart_count(node) == 2
    assert "huge pages changed" in resized.stdout


def test_after_a_reboot_the_kubelet_restarts_again_for_the_pages_set_after_it_started(node):
    env = restarts(node)
    assert tune(node, CONFIG, **env).returncode == 0
    reboot(node, "boot-2")
    result = tune(node, CONFIG, **env)
    assert result.returncode == 0, result.stdout
    assert read(node, "sys/" + HUGE_2M) == "1024"
    assert restart_count(node) == 2
    assert "the node rebooted since the last restart" in result.stdout


def test_a_failed_restart_is_retried_though_the_pages_are_already_in_place(node):
    failed = tune(node, CONFIG, **restarts(node, restart="false"))
    assert failed.returncode == 1
    assert "the kubelet restart failed" in failed.stdout
    assert not (node / "var/lib/gpu-gitops/kubelet-hugepages").exists()
    retried = tune(node, CONFIG, **restarts(node))
    assert retried.returncode == 0, retried.stdout
    assert "0 changed" in retried.stdout  # sysfs already right: the record decides, not this run's changes
    assert restart_count(node) == 1
    assert (node / "var/lib/gpu-gitops/kubelet-hugepages").is_file()


def test_a_lost_record_restarts_the_kubelet(node):
    env = restarts(node)
    assert tune(node, CONFIG, **env).returncode == 0
    (node / "var/lib/gpu-gitops/kubelet-hugepages").unlink()
    assert tune(node, CONFIG, **env).returncode == 0
    assert restart_count(node) == 2


def test_no_restart_while_the_huge_pages_are_not_in_place(node):
    (node / "sys" / HUGE_2M).unlink()
    result = tune(node, CONFIG, **restarts(node))
    assert result.returncode == 1
    assert restart_count(node) == 0
    assert not (node / "var/lib/gpu-gitops/kubelet-hugepages").exists()


def fragmented(node: Path, limit: int) -> dict[str, str]:
    """A kernel that allocates at most `limit` 2Mi pages: reading nr_hugepages shows what it got."""
    real_cat = shutil.which("cat")
    tool(
        node,
        "cat",
        f"""if [ "$1" = "{node / "sys" / HUGE_2M}" ]; then
  v=$({real_cat} "$1"); [ "$v" -gt {limit} ] && v={limit}; echo "$v"; exit 0
fi
exec {real_cat} "$@"
""",
    )
    return {"PATH": f"{node / 'bin'}:{os.environ['PATH']}"}


def test_a_partial_huge_page_allocation_is_rolled_back(node):
    (node / "sys" / HUGE_2M).write_text("256\n", encoding="utf-8")
    result = tune(node, "hugepages 2048 1024\n", **{**restarts(node), **fragmented(node, 600)})
    assert result.returncode == 1
    assert "allocated 600 of 1024" in result.stdout
    assert read(node, "sys/" + HUGE_2M) == "256"  # the count before the run, not the partial 600
    assert "rolled back hugepages-2048kB to 256" in result.stdout
    assert restart_count(node) == 0


def test_kubelet_restart_needs_systemd_as_the_hosts_init(node):
    (node / "proc/1/comm").write_text("machined\n", encoding="utf-8")
    result = tune(node, CONFIG, **restarts(node))
    assert result.returncode == 1
    assert "the host's init is 'machined', not systemd" in result.stdout
    assert restart_count(node) == 0
    assert not (node / "var/lib/gpu-gitops/kubelet-hugepages").exists()


# A stand-in kubectl keeping one Lease in files (one a field): create fails while it exists,
# replace and delete need the resourceVersion read (a conflict otherwise), get prints the fields
# in the order of the script's jsonpath (read_lock in files/tune-node.sh).
FAKE_KUBECTL = r"""
store="$LEASES"; mkdir -p "$store"
field() { printf '%s\n' "$manifest" | sed -n "s/.*\"$1\":\"\{0,1\}\([^\",}]*\).*/\1/p"; }
save() {
  field holderIdentity > "$store/holder"; field renewTime > "$store/renew"
  field leaseDurationSeconds > "$store/duration"; field 'gpu-gitops.io\/held' > "$store/held"
}
value() { cat "$store/$1" 2>/dev/null; }
case $1 in
  create)
    manifest=$(cat); [ -f "$store/version" ] && { echo 'Error from server (AlreadyExists)' >&2; exit 1; }
    save; echo 1 > "$store/version"; date -u +%Y-%m-%dT%H:%M:%SZ > "$store/created"
    echo "create $(value holder)" >> "$store/log" ;;
  replace)
    manifest=$(cat)
    [ "$(field resourceVersion)" = "$(value version)" ] || { echo 'Error from server (Conflict)' >&2; exit 1; }
    save; echo $(( $(value version) + 1 )) > "$store/version"
    echo "replace $(value holder)${held:+ held}$([ -s "$store/held" ] && echo ' held')" >> "$store/log" ;;
  get)
    [ -f "$store/version" ] || { echo 'Error from server (NotFound)' >&2; exit 1; }
    for f in version holder duration renew acquire created held; do printf '%s|' "$(value $f)"; done; echo end ;;
  delete)
    [ "$2" = --raw ] || { echo "delete without a precondition: $*" >&2; exit 2; }
    manifest=$(cat)
    [ -f "$store/version" ] || { echo 'Error from server (NotFound)' >&2; exit 1; }
    [ "$(field resourceVersion)" = "$(value version)" ] || { echo 'Error from server (Conflict)' >&2; exit 1; }
    echo "delete $(value holder)" >> "$store/log"; rm -f "$store"/[!l]* ;;
esac
"""


def locked(node: Path) -> dict[str, str]:
    """A node of a pool whose kubelet restarts take the Lease lock (see FAKE_KUBECTL)."""
    tool(node, "kubectl", FAKE_KUBECTL)
    return {
        **restarts(node),
        "KUBECTL": "kubectl",
        "LOCK_NAME": "kubelet-restart-gpu",
        "LOCK_NAMESPACE": "gpu-node-tuning",
        "NODE_NAME": "node-a",
        "LEASES": str(node / "leases"),
    }


def lease_log(node: Path) -> list[str]:
    path = node / "leases" / "log"
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def stamp(seconds_ago: int, micro: bool = True) -> str:
    """An API timestamp `seconds_ago` in the past (MicroTime, or Time without micro)."""
    import datetime

    moment = datetime.datetime.now(datetime.UTC) - datetime.timedelta(seconds=seconds_ago)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ" if micro else "%Y-%m-%dT%H:%M:%SZ")


def hold(node: Path, holder: str, renewed_ago: int | None = 0, duration: str = "600", **fields: str) -> None:
    """A Lease of another writer: holder, renewTime `renewed_ago` seconds ago (None: unset),
    leaseDurationSeconds, and any further field of FAKE_KUBECTL's store (created, acquire, held)."""
    leases = node / "leases"
    leases.mkdir(exist_ok=True)
    values = {
        "holder": holder,
        "renew": "" if renewed_ago is None else stamp(renewed_ago),
        "duration": duration,
        "version": "7",
        "created": stamp(7200, micro=False),
        **fields,
    }
    for name, value in values.items():
        (leases / name).write_text(value + "\n", encoding="utf-8")


def free_lock_while_waiting(node: Path) -> None:
    """The other node releases the lock while this one waits (its first sleep)."""
    tool(node, "sleep", f'rm -f {node}/leases/[!l]*; echo "sleep $1" >> {node}/restarts')


def test_kubelet_restart_holds_the_pools_lock_until_the_kubelet_is_healthy(node):
    env = locked(node)
    result = tune(node, CONFIG, **env)
    assert result.returncode == 0, result.stdout
    assert lease_log(node) == ["create node-a", "delete node-a"]
    out = result.stdout
    assert (
        out.index("holding the kubelet restart lock")
        < out.index("restarting the kubelet")
        < out.index("released the kubelet restart lock")
    )
    assert restart_count(node) == 1


def test_the_lease_is_a_standard_one(node):
    """holderIdentity, renewTime and leaseDurationSeconds: what any Lease reader judges it by."""
    env = locked(node)
    tool(node, "sleep", "exit 0")
    tool(node, "wget", "exit 1")  # keeps the Lease for inspection
    tune(node, CONFIG, **env)
    leases = node / "leases"
    assert (leases / "holder").read_text(encoding="utf-8").strip() == "node-a"
    assert (leases / "duration").read_text(encoding="utf-8").strip() == "600"
    import re

    assert re.fullmatch(
        r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", (leases / "renew").read_text(encoding="utf-8").strip()
    )


def test_a_node_waits_while_another_node_of_the_pool_restarts_its_kubelet(node):
    env = locked(node)
    hold(node, "node-b", renewed_ago=30)
    free_lock_while_waiting(node)
    result = tune(node, CONFIG, **{**env, "LOCK_POLL_SECONDS": "10"})
    assert result.returncode == 0, result.stdout
    assert "held by node-b" in result.stdout
    assert (node / "restarts").read_text(encoding="utf-8").splitlines() == [
        "sleep 10",
        "restart",
    ]  # restarted after the wait
    assert lease_log(node) == ["create node-a", "delete node-a"]


@pytest.mark.parametrize(
    "holder,renewed_ago,fields,why",
    [
        ("node-b", 660, {}, "expired"),  # renewTime + leaseDurationSeconds has passed
        ("node-a", 0, {}, "its own"),
        # foreign Leases: an older version's (no renewTime: its creation counts), a hand-made one
        # without a duration (LOCK_SECONDS counts), and one released the client-go way
        ("node-b", None, {"annotations": "gpu-gitops.io/expires"}, "expired"),
        ("node-b", 700, {"duration": ""}, "expired"),
        ("", 0, {}, "released"),
    ],
    ids=["expired", "own", "older-version", "no-duration", "no-holder"],
)
def test_an_expired_foreign_released_or_own_lock_is_taken_over(node, holder, renewed_ago, fields, why):
    hold(node, holder, renewed_ago, **fields)
    result = tune(node, CONFIG, **locked(node))
    assert result.returncode == 0, result.stdout
    assert f"taken over from {holder or 'nobody'}: {why}" in result.stdout
    assert lease_log(node) == ["replace node-a", "delete node-a"]


def test_a_lock_renewed_within_its_duration_is_not_taken_over(node):
    env = locked(node)
    hold(node, "node-b", renewed_ago=540)  # 60 s left
    free_lock_while_waiting(node)
    result = tune(node, CONFIG, **env)
    assert "taken over" not in result.stdout and "held by node-b" in result.stdout
    assert lease_log(node) == ["create node-a", "delete node-a"]


def test_a_takeover_that_loses_the_race_waits(node):
    """Two nodes see the same expired lock: the second replace is at a stale resourceVersion."""
    env = locked(node)
    hold(node, "node-b", renewed_ago=3600)
    # node-c replaces the expired lock between node-a's read and node-a's replace
    (node / "bin" / "kubectl").rename(node / "bin" / "kubectl-store")
    tool(
        node,
        "kubectl",
        f"""if [ "$1" = replace ] && [ ! -f {node}/raced ]; then
  touch {node}/raced; echo node-c > {node}/leases/holder; echo 8 > {node}/leases/version
fi
exec {node}/bin/kubectl-store "$@\"""",
    )
    free_lock_while_waiting(node)
    result = tune(node, CONFIG, **env)
    assert result.returncode == 0, result.stdout
    assert "taken over" not in result.stdout
    assert "waiting for the kubelet restart lock" in result.stdout  # waited: node-c took it first
    assert lease_log(node) == ["create node-a", "delete node-a"]


def test_release_is_at_the_resource_version_read(node):
    """A Lease taken over between this node's read and its delete is not deleted."""
    env = locked(node)
    (node / "bin" / "kubectl").rename(node / "bin" / "kubectl-store")
    tool(
        node,
        "kubectl",
        f"""if [ "$1" = delete ]; then echo node-c > {node}/leases/holder; echo 9 > {node}/leases/version; fi
exec {node}/bin/kubectl-store "$@\"""",
    )
    result = tune(node, CONFIG, **env)
    assert "warning: the kubelet restart lock gpu-node-tuning/kubelet-restart-gpu is not released" in result.stdout
    assert lease_log(node) == ["create node-a"]  # node-c's Lease survives
    assert (node / "leases" / "holder").read_text(encoding="utf-8").strip() == "node-c"


def unhealthy_restart(node: Path) -> dict[str, str]:
    """node-a restarts its kubelet, which then does not answer its health check."""
    env = locked(node)
    tool(node, "wget", "exit 1")
    tool(node, "sleep", "exit 0")
    result = tune(node, CONFIG, **env)
    assert result.returncode == 1
    assert "does not answer" in result.stdout
    return env


def test_a_kubelet_that_does_not_come_back_holds_the_pool(node):
    env = unhealthy_restart(node)
    assert lease_log(node) == ["create node-a", "replace node-a held"]  # marked held, not released
    # long after LOCK_SECONDS, node-b still does not restart its kubelet
    (node / "leases" / "renew").write_text(stamp(3600) + "\n", encoding="utf-8")
    (node / "restarts").unlink()
    (node / "var/lib/gpu-gitops/kubelet-hugepages").unlink()  # node-b: not restarted yet
    tool(node, "sleep", "kill $PPID")  # stop node-b at its first wait
    result = tune(node, CONFIG, **{**env, "NODE_NAME": "node-b"})
    assert "held by node-a: its kubelet did not answer after its restart" in result.stdout
    assert "kubectl delete lease -n gpu-node-tuning kubelet-restart-gpu" in result.stdout
    assert "taken over" not in result.stdout
    assert restart_count(node) == 0
    assert lease_log(node)[-1] == "replace node-a held"


def test_a_held_pool_is_released_when_the_kubelet_comes_back(node):
    env = unhealthy_restart(node)
    tool(node, "wget", "exit 0")  # the kubelet is back and runs the tuning pod again
    result = tune(node, CONFIG, **env)
    assert result.returncode == 0, result.stdout
    assert "unchanged kubelet" in result.stdout  # not restarted a second time
    assert "released the kubelet restart lock" in result.stdout
    assert lease_log(node) == ["create node-a", "replace node-a held", "delete node-a"]
    assert restart_count(node) == 1


def test_without_kubelet_restarts_every_run_warns_that_allocatable_lacks_the_pages(node):
    for _ in range(2):
        result = tune(node, CONFIG)
        assert result.returncode == 0
        assert "warning: huge pages 2048kB=1024 are set at runtime" in result.stdout
        assert "tuning.restartKubelet is false" in result.stdout
    assert "warning" not in tune(node, "sysctl kernel.pid_max 65536\n").stdout


def test_boot_reserved_pages_are_only_checked(node):
    (node / "sys" / HUGE_1G).write_text("64\n", encoding="utf-8")
    result = tune(node, "reserved-hugepages 1048576 64\n")
    assert result.returncode == 0, result.stdout
    assert read(node, "sys/" + HUGE_1G) == "64"
    result = tune(node, "reserved-hugepages 1048576 128\n")
    assert result.returncode == 1
    assert read(node, "sys/" + HUGE_1G) == "64"
    assert "hugepagesz=1G hugepages=128" in result.stdout


def test_unknown_sysctl_fails_without_stopping_the_others(node):
    result = tune(node, "sysctl net.core.no_such_key 1\nsysctl kernel.pid_max 65536\n")
    assert result.returncode == 1
    assert "net.core.no_such_key" in result.stdout
    assert read(node, "proc/sys/kernel/pid_max") == "65536"


def test_whitespace_in_multi_value_settings_is_not_a_change(node):
    (node / "proc/sys/kernel/core_pattern").write_text("a\tb\n", encoding="utf-8")
    result = tune(node, "sysctl kernel.core_pattern a b\n")
    assert "unchanged kernel.core_pattern" in result.stdout
    assert read(node, "proc/sys/kernel/core_pattern") == "a\tb"


def test_config_rendered_for_an_example_pool_applies_cleanly(node):
    cm = next(
        o
        for o in objects(REPO, "aks-h100-training")["node-tuning"]
        if o["kind"] == "ConfigMap" and o["metadata"]["name"] == "tune-h100"
    )
    config = cm["data"]["tuning.conf"]
    assert tune(node, config).returncode == 0
    assert read(node, "proc/sys/net/core/rmem_max") == "268435456"
    assert read(node, "sys/" + HUGE_2M) == "4096"
    assert "0 changed" in tune(node, config).stdout


def _hashes(root: Path) -> dict[str, str]:
    return {
        o["metadata"]["name"]: o["spec"]["template"]["metadata"]["annotations"]["gpu-gitops.io/config-hash"]
        for o in objects(root, "aks-h100-training")["node-tuning"]
        if o["kind"] == "DaemonSet"
    }


def test_rendered_script_is_the_file():
    tuning = objects(REPO, "aks-h100-training")["node-tuning"]
    script_cm = next(o for o in tuning if o["kind"] == "ConfigMap" and "tune-node.sh" in o.get("data", {}))
    assert script_cm["data"]["tune-node.sh"] == SCRIPT.read_text(encoding="utf-8")


def test_config_change_rolls_only_that_pools_daemonset(project):
    before = _hashes(project)
    path = project / "clusters" / "aks-h100-training" / "cluster.yaml"
    path.write_text(
        path.read_text(encoding="utf-8").replace("kernel.pid_max: 4194304", "kernel.pid_max: 2097152"), encoding="utf-8"
    )
    after = _hashes(project)
    assert after["tune-h100"] != before["tune-h100"]
    assert after["tune-l40s"] == before["tune-l40s"]


# --- the startup taint ----------------------------------------------------------------------
# The startup taint of a pool whose kubelet restarts for huge pages, through the states a new
# node goes through: files/tune-node.sh run for real against a fake node and a fake API server.
#
# The node starts tainted (the provisioner's startupTaints); the kubelet reports runtime huge pages
# in status.allocatable only once it restarted after they were set (kubernetes/kubernetes#111757),
# and a restarted kubelet admits the pods bound to the node again against the smaller allocatable.
# The fake `kubectl` keeps the Node (taint keys, allocatable) in a JSON file and answers the two
# requests the script makes about it: get the Node, remove the taint; the fake kubelet restart sets
# allocatable as the kubelet does on start (or does not, for a kubelet that comes back without).

TAINT = "gpu-gitops.io/node-tuning"
PAGES = 1024

NODE_KUBECTL = r"""
import json, sys
path = sys.argv[1]
args = sys.argv[2:]
with open(path) as f:
    node = json.load(f)
if args[:3] == ["get", "node", "node-a"]:
    print(" ".join(node["taints"]) + "|" + json.dumps(node["allocatable"], separators=(",", ":")))
elif args[:3] == ["taint", "node", "node-a"] and args[3].endswith(":NoSchedule-"):
    key = args[3][: -len(":NoSchedule-")]
    if key not in node["taints"]:
        print(f'error: taint "{key}:NoSchedule" not found', file=sys.stderr)
        sys.exit(1)
    node["taints"].remove(key)
    node["events"].append("untainted")
    with open(path, "w") as f:
        json.dump(node, f)
else:
    print("unexpected kubectl call: " + " ".join(args), file=sys.stderr)
    sys.exit(3)
"""

# the kubelet's start: it reads the huge pages the kernel has and reports them as allocatable
KUBELET_START = r"""
import json, sys
path, pages_file, reports = sys.argv[1:4]
with open(path) as f:
    node = json.load(f)
pages = int(open(pages_file).read())
if reports == "true":
    node["allocatable"]["hugepages-2Mi"] = f"{pages * 2}Mi" if pages else "0"
node["events"].append("kubelet restarted")
with open(path, "w") as f:
    json.dump(node, f)
"""


@pytest.fixture
def new_node(node: Path) -> Path:
    """A new node: tainted, its kubelet started before any huge pages (allocatable 0)."""
    state = {"taints": [TAINT], "allocatable": {"cpu": "8", "hugepages-2Mi": "0", "memory": "32Gi"}, "events": []}
    (node / "node.json").write_text(json.dumps(state), encoding="utf-8")
    (node / "kubectl.py").write_text(NODE_KUBECTL, encoding="utf-8")
    (node / "kubelet.py").write_text(KUBELET_START, encoding="utf-8")
    return node


def tainting(node: Path, restart: str = "true", reports: str = "true") -> dict[str, str]:
    tool(node, "kubectl", f'exec {sys.executable} {node}/kubectl.py {node}/node.json "$@"')
    base = restarts(node, restart)
    kubelet = node / "restart-kubelet"
    kubelet.write_text(
        f"#!/bin/sh\n{restart} || exit 1\n"
        f"exec {sys.executable} {node}/kubelet.py {node}/node.json {node}/sys/{HUGE_2M} {reports}\n",
        encoding="utf-8",
    )
    kubelet.chmod(0o755)
    return {
        **base,
        "KUBELET_RESTART_COMMAND": str(kubelet),
        "KUBECTL": "kubectl",
        "NODE_NAME": "node-a",
        "STARTUP_TAINT": TAINT,
        "ALLOCATABLE_TRIES": "2",
        "ALLOCATABLE_POLL_SECONDS": "0",
    }


def state(node: Path) -> dict:
    return json.loads((node / "node.json").read_text(encoding="utf-8"))


PAGES_CONFIG = f"hugepages 2048 {PAGES}\n"


def test_the_taint_goes_only_after_the_restarted_kubelet_reports_the_pages(new_node):
    result = tune(new_node, PAGES_CONFIG, **tainting(new_node))
    assert result.returncode == 0, result.stdout + result.stderr
    assert read(new_node, "sys/" + HUGE_2M) == str(PAGES)
    after = state(new_node)
    assert after["events"] == ["kubelet restarted", "untainted"]
    assert after["taints"] == [] and after["allocatable"]["hugepages-2Mi"] == "2048Mi"
    assert f"removed the startup taint {TAINT}" in result.stdout


def test_a_kubelet_that_does_not_report_the_pages_keeps_the_node_tainted(new_node):
    result = tune(new_node, PAGES_CONFIG, **tainting(new_node, reports="false"))
    assert result.returncode != 0
    assert state(new_node)["taints"] == [TAINT]
    assert "node allocatable lacks hugepages-2Mi=0 (needs 1024 pages)" in result.stdout


def test_a_failed_restart_keeps_the_node_tainted_and_the_retry_releases_it(new_node):
    result = tune(new_node, PAGES_CONFIG, **tainting(new_node, restart="false"))
    assert result.returncode != 0
    assert state(new_node)["taints"] == [TAINT] and state(new_node)["events"] == []
    assert "keeping the startup taint" in result.stdout
    retry = tune(new_node, PAGES_CONFIG, **tainting(new_node))  # the pod restarts; this time the restart succeeds
    assert retry.returncode == 0, retry.stdout
    assert state(new_node)["events"] == ["kubelet restarted", "untainted"]


def test_a_node_without_the_taint_is_left_alone(new_node):
    fresh = state(new_node)
    fresh["taints"] = []
    (new_node / "node.json").write_text(json.dumps(fresh), encoding="utf-8")
    result = tune(new_node, PAGES_CONFIG, **tainting(new_node))
    assert result.returncode == 0, result.stdout
    assert state(new_node)["events"] == ["kubelet restarted"]
    assert f"no startup taint {TAINT}" in result.stdout


def test_a_later_run_with_the_restart_recorded_releases_a_taint_left_behind(new_node):
    first = tune(new_node, PAGES_CONFIG, **tainting(new_node))
    assert first.returncode == 0
    lost = state(new_node)
    lost["taints"] = [TAINT]  # the removal was lost (the pod died right after the restart)
    (new_node / "node.json").write_text(json.dumps(lost), encoding="utf-8")
    again = tune(new_node, PAGES_CONFIG, **tainting(new_node))
    assert again.returncode == 0, again.stdout
    assert state(new_node)["events"] == ["kubelet restarted", "untainted", "untainted"]  # no second restart
