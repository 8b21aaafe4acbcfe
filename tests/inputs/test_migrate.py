"""The versioned input contract and ``gpu-gitops migrate``: the header of every input file,
old versions refused by render with the migrate hint, and every key removed or renamed since
the first release migrated, the file kept as written otherwise, and rendered."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import REPO

from generator.inputs.contract import CURRENT, OLDER
from generator.inputs.migrations import MIGRATIONS

# An input of the first release: no header, `localNvme.devicePattern` (kernel names).
OLD = """\
# yaml-language-server: $schema=../../schemas/cluster.schema.json
# An EKS cluster written for gpu-gitops' first input contract.
name: {name}
kubernetesVersion: "1.32"
provider: {provider}
gitops:
  engine: flux
  repository: https://git.example.com/platform/gitops.git   # the fleet's repository
network:
  cilium:
    enabled: false
nodePools:
  - name: gpu
    nodeSelector: {{pool: gpu}}
    gpu: {{vendor: nvidia, model: H100-80GB, perNode: 8, nodes: 2}}
    localNvme:
      # the instance-store disks
      devicePattern: "{pattern}"
      mode: Block          # raw devices
      storageClass: local-nvme
      prepare: {{enabled: true}}
"""


def _write(root: Path, name: str, provider: str = "eks", pattern: str = "/dev/nvme[1-8]n1", header: str = "") -> Path:
    path = root / "clusters" / name / "cluster.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(header + OLD.format(name=name, provider=provider, pattern=pattern), encoding="utf-8")
    return path


def test_every_key_removed_or_renamed_since_the_first_release_has_a_migration():
    """The keys of the first release's input schema that the current one lacks, each with a migration."""
    first = subprocess.run(
        ["git", "log", "--first-parent", "--reverse", "--format=%H", "--", "schemas/cluster.schema.json"],
        cwd=REPO,
        capture_output=True,
        encoding="utf-8",
        check=False,
    ).stdout.split()
    if not first:
        pytest.skip("no git history here")
    import json

    def keys(schema: dict) -> set[str]:
        found: set[str] = set()

        def walk(node: dict, at: str, depth: int = 0) -> None:
            if depth > 20:
                return
            if "$ref" in node:
                target = schema
                for part in node["$ref"][2:].split("/"):
                    target = target[part]
                node = target
            for key, sub in node.get("properties", {}).items():
                found.add(f"{at}.{key}" if at else key)
                walk(sub, f"{at}.{key}" if at else key, depth + 1)
            if isinstance(node.get("items"), dict):
                walk(node["items"], f"{at}[]", depth + 1)

        walk(schema, "")
        return found

    shown = subprocess.run(
        ["git", "show", f"{first[0]}:schemas/cluster.schema.json"],
        cwd=REPO,
        capture_output=True,
        encoding="utf-8",
        check=True,
    )
    now = keys(json.loads((REPO / "schemas" / "cluster.schema.json").read_text(encoding="utf-8")))
    gone = keys(json.loads(shown.stdout)) - now
    migrated = {f"{m.where}.{m.key}" for m in MIGRATIONS}
    assert gone <= migrated, f"keys removed without a migration: {sorted(gone - migrated)}"
    assert "nodePools[].localNvme.devicePattern" in migrated


def test_an_input_without_a_header_renders_with_a_located_warning(project: Path, run):
    path = project / "clusters" / "ocp-a100-tuned" / "cluster.yaml"
    path.write_text(
        path.read_text(encoding="utf-8").replace(f"apiVersion: {CURRENT}\nkind: Cluster\n", ""), encoding="utf-8"
    )
    result = run(project, "render", "ocp-a100-tuned")
    assert result.exit_code == 0, result.output
    assert (
        f"clusters/ocp-a100-tuned/cluster.yaml:1:1: warning: no apiVersion and kind: read as {CURRENT}" in result.stderr
    )
    assert f"add these two lines at the top: `apiVersion: {CURRENT}` and `kind: Cluster`" in result.stderr


def test_render_refuses_an_older_version_with_the_migrate_command(tmp_path: Path, run):
    _write(tmp_path, "old", header=f"apiVersion: {OLDER[0]}\nkind: Cluster\n")
    result = run(tmp_path, "render")
    assert result.exit_code == 2
    assert f"clusters/old/cluster.yaml:1:13: error: written for {OLDER[0]}, an older version" in result.stderr
    assert "hint: run `gpu-gitops migrate old` to rewrite it" in result.stderr


@pytest.mark.parametrize(
    ("header", "message"),
    [
        ("apiVersion: gpu-gitops.io/v9\nkind: Cluster\n", "apiVersion 'gpu-gitops.io/v9' is not a version"),
        (f"apiVersion: {CURRENT}\nkind: ClusterBase\n", "kind 'ClusterBase' in a file read as a Cluster"),
        ("kind: Cluster\n", f"no apiVersion: expected {CURRENT}"),
        (f"apiVersion: {CURRENT}\n", "no kind: expected Cluster"),
    ],
)
def test_an_unknown_version_or_the_wrong_kind_is_an_error(tmp_path: Path, run, header: str, message: str):
    _write(tmp_path, "c", header=header)
    result = run(tmp_path, "render")
    assert result.exit_code == 2 and message in result.stderr


def test_an_unversioned_input_with_a_removed_key_points_at_migrate(tmp_path: Path, run):
    _write(tmp_path, "old")
    result = run(tmp_path, "render")
    assert result.exit_code == 2
    assert "clusters/old/cluster.yaml:18:7: error: nodePools[0].localNvme.devicePattern was removed" in result.stderr
    assert "`gpu-gitops migrate` rewrites it" in result.stderr


def test_migrate_rewrites_an_old_input_keeping_the_rest_and_it_renders(tmp_path: Path, run):
    path = _write(tmp_path, "old")
    before = path.read_text(encoding="utf-8")
    dry = run(tmp_path, "migrate", "--dry-run")
    assert dry.exit_code == 1 and path.read_text(encoding="utf-8") == before
    result = run(tmp_path, "migrate")
    assert result.exit_code == 0, result.output
    assert f"clusters/old/cluster.yaml: added apiVersion: {CURRENT} and kind: Cluster" in result.stdout
    assert "nodePools[0].localNvme: removed devicePattern '/dev/nvme[1-8]n1': diskIdPattern defaults" in result.stdout
    after = path.read_text(encoding="utf-8")
    # exactly the header added after the leading comments, the key and its line removed: nothing else moves
    expected = before.replace("name: old\n", f"apiVersion: {CURRENT}\nkind: Cluster\nname: old\n")
    expected = expected.replace('      devicePattern: "/dev/nvme[1-8]n1"\n', "")
    assert after == expected
    rendered = run(tmp_path, "render")
    assert rendered.exit_code == 0, rendered.output
    assert "nvme-Amazon_EC2_NVMe_Instance_Storage_*" in "".join(
        p.read_text(encoding="utf-8") for p in (tmp_path / "rendered" / "old").rglob("*.yaml")
    )
    again = run(tmp_path, "migrate")
    assert again.exit_code == 0 and "nothing to migrate" in again.stdout


def test_migrate_carries_a_by_id_pattern_over_in_place(tmp_path: Path, run):
    path = _write(tmp_path, "metal", provider="generic", pattern="/dev/disk/by-id/nvme-SAMSUNG_MZ*")
    assert run(tmp_path, "migrate").exit_code == 0
    assert '      diskIdPattern: "nvme-SAMSUNG_MZ*"\n      mode: Block          # raw devices\n' in path.read_text(
        encoding="utf-8"
    )
    assert run(tmp_path, "render").exit_code == 0


def test_migrate_stops_where_it_cannot_tell_the_disks_and_writes_nothing(tmp_path: Path, run):
    stuck = _write(tmp_path, "metal", provider="generic")
    fine = _write(tmp_path, "cloud")
    before = stuck.read_text(encoding="utf-8"), fine.read_text(encoding="utf-8")
    result = run(tmp_path, "migrate")
    assert result.exit_code == 2
    assert "clusters/metal/cluster.yaml:18:1: error: nodePools[0].localNvme: localNvme.devicePattern" in result.stderr
    assert "ls /dev/disk/by-id" in result.stderr
    assert (stuck.read_text(encoding="utf-8"), fine.read_text(encoding="utf-8")) == before  # all files or none


def test_migrate_rewrites_a_base_by_the_providers_of_its_clusters(tmp_path: Path, run):
    base = tmp_path / "clusters" / "_bases" / "pools.yaml"
    base.parent.mkdir(parents=True)
    old = OLD.format(name="x", provider="eks", pattern="/dev/nvme[1-8]n1")
    base.write_text(old[old.index("nodePools:") :], encoding="utf-8")
    cluster = _write(tmp_path, "c")
    text = cluster.read_text(encoding="utf-8")
    cluster.write_text("bases: [pools]\n" + text[: text.index("nodePools:")], encoding="utf-8")
    result = run(tmp_path, "migrate")
    assert result.exit_code == 0, result.output
    assert f"clusters/_bases/pools.yaml: added apiVersion: {CURRENT} and kind: ClusterBase" in result.stdout
    assert "devicePattern" not in base.read_text(encoding="utf-8")
    assert run(tmp_path, "render").exit_code == 0


def test_the_upgrading_guide_names_every_version_and_migration():
    guide = (REPO / "docs" / "upgrading-gpu-gitops.md").read_text(encoding="utf-8")
    for version in (*OLDER, CURRENT):
        assert f"`{version}`" in guide
    for migration in MIGRATIONS:
        assert f"`{migration.where}.{migration.key}`" in guide


def test_the_schema_is_the_current_version_s():
    import json

    schema = json.loads((REPO / "schemas" / "cluster.schema.json").read_text(encoding="utf-8"))
    assert schema["properties"]["apiVersion"]["const"] == CURRENT
    assert schema["$id"].endswith(f"/{CURRENT.rsplit('/', 1)[1]}/cluster.schema.json")  # one schema per version


def test_migrate_removes_enforce_gpu_limits_and_the_input_renders(tmp_path: Path, run):
    path = _write(tmp_path, "old")
    path.write_text(
        path.read_text(encoding="utf-8")
        + "admission:\n  enforceGpuLimits: true   # one of the first release's rules\n  action: Warn\n",
        encoding="utf-8",
    )
    refused = run(tmp_path, "render")
    assert refused.exit_code == 2 and "admission.enforceGpuLimits was removed" in refused.stderr
    result = run(tmp_path, "migrate")
    assert result.exit_code == 0, result.output
    assert "clusters/old/cluster.yaml: admission: removed enforceGpuLimits true" in result.stdout
    assert path.read_text(encoding="utf-8").endswith("admission:\n  action: Warn\n")
    assert run(tmp_path, "render").exit_code == 0


def test_migrate_rewrites_a_removed_key_whatever_the_header_says_keeping_every_comment(tmp_path: Path, run):
    """A file that already carries the current apiVersion but still holds a removed key (written by
    hand after an upgrade) is migrated as render's hint says, and no comment is lost: neither the
    inline ones around the removed key nor those of the keys after it."""
    path = _write(tmp_path, "old", header=f"apiVersion: {CURRENT}   # the contract\nkind: Cluster\n")
    path.write_text(
        path.read_text(encoding="utf-8")
        + "admission:\n"
        + "  enabled: true   # guardrails on\n"
        + "  enforceGpuLimits: true   # one of the first release's rules\n"
        + "  # Warn first, Deny once the teams are ready\n"
        + "  action: Warn   # for now\n",
        encoding="utf-8",
    )
    before = path.read_text(encoding="utf-8")
    result = run(tmp_path, "migrate")
    assert result.exit_code == 0, result.output
    assert "admission: removed enforceGpuLimits true" in result.stdout
    after = path.read_text(encoding="utf-8")
    assert after == before.replace("  enforceGpuLimits: true   # one of the first release's rules\n", "").replace(
        '      devicePattern: "/dev/nvme[1-8]n1"\n', ""
    )
    assert run(tmp_path, "render").exit_code == 0


def test_migrate_keeps_the_comment_below_a_removed_first_key(tmp_path: Path, run):
    path = _write(tmp_path, "old")
    path.write_text(
        path.read_text(encoding="utf-8")
        + "admission:\n  enforceGpuLimits: true   # removed\n  # Warn first\n  action: Warn   # for now\n",
        encoding="utf-8",
    )
    assert run(tmp_path, "migrate").exit_code == 0
    assert path.read_text(encoding="utf-8").endswith("admission:\n  # Warn first\n  action: Warn   # for now\n")
