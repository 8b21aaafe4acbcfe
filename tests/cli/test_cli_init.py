"""`gpu-gitops init`: the modeline of a new cluster input resolves, in this repository and in
a fleet repository that uses an installed gpu-gitops, and stays current across upgrades."""

from __future__ import annotations

import re
from pathlib import Path

from generator.inputs.scaffold import EDITOR_SCHEMA
from generator.paths import _bundled

MODELINE = re.compile(r"^# yaml-language-server: \$schema=(\S+)$", re.M)


def _schema_of(cluster_yaml: Path) -> Path:
    found = MODELINE.search(cluster_yaml.read_text(encoding="utf-8"))
    assert found, "no yaml-language-server modeline"
    return (cluster_yaml.parent / found.group(1)).resolve()


def test_init_in_a_fleet_repository_writes_a_modeline_that_resolves(tmp_path, run):
    fleet = tmp_path / "fleet"
    (fleet / "clusters").mkdir(parents=True)
    assert run(fleet, "init", "gpu-a").exit_code == 0
    schema = _schema_of(fleet / "clusters" / "gpu-a" / "cluster.yaml")
    assert schema == (fleet / EDITOR_SCHEMA).resolve()
    assert schema.read_bytes() == Path(_bundled("schemas"), "cluster.schema.json").read_bytes()
    assert not (fleet / "schemas" / "cluster.schema.json").exists()  # the project still uses the tool's own


def test_init_in_a_project_with_its_own_schema_points_at_it(project, run):
    assert run(project, "init", "gpu-a").exit_code == 0
    assert (
        _schema_of(project / "clusters" / "gpu-a" / "cluster.yaml")
        == (project / "schemas" / "cluster.schema.json").resolve()
    )
    assert not (project / EDITOR_SCHEMA).exists()


def test_after_an_upgrade_check_reports_the_copy_stale_and_render_updates_it(tmp_path, run):
    fleet = tmp_path / "fleet"
    (fleet / "clusters").mkdir(parents=True)
    assert run(fleet, "init", "gpu-a").exit_code == 0
    assert run(fleet, "render").exit_code == 0
    assert run(fleet, "check").exit_code == 0
    copy = fleet / EDITOR_SCHEMA
    copy.write_text(
        copy.read_text(encoding="utf-8").replace('"description"', '"x-old"', 1), encoding="utf-8"
    )  # written by an older release
    stale = run(fleet, "check")
    assert stale.exit_code == 1
    assert "schemas/gpu-gitops/cluster.schema.json: stale: not the input schema of this gpu-gitops" in stale.stderr
    rendered = run(fleet, "render")
    assert "updated schemas/gpu-gitops/cluster.schema.json" in rendered.stdout
    assert copy.read_bytes() == Path(_bundled("schemas"), "cluster.schema.json").read_bytes()
    assert run(fleet, "check").exit_code == 0


def test_render_does_not_add_a_copy_to_a_project_that_has_none(tmp_path, run):
    fleet = tmp_path / "fleet"
    (fleet / "clusters").mkdir(parents=True)
    assert run(fleet, "init", "gpu-a").exit_code == 0
    (fleet / EDITOR_SCHEMA).unlink()
    assert run(fleet, "render").exit_code == 0
    assert not (fleet / EDITOR_SCHEMA).exists()
