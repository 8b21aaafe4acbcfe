"""Input messages a newcomer meets: the value as written, the supported version range, and no
second error that only repeats the first."""

from __future__ import annotations

import re

import pytest

from generator.validate.kubernetes import bundled_versions

LOCATED = re.compile(r"^\S+:\d+:\d+: error: ", re.M)


def _render_with(project, run, cluster: str, old: str, new: str):
    path = project / "clusters" / cluster / "cluster.yaml"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    result = run(project, "render", cluster)
    assert result.exit_code == 2, result.output
    return result.stderr


@pytest.mark.parametrize("written", ["1.30", "1.30   # the cluster's minor", "1.3"])
def test_an_unquoted_version_is_hinted_as_written(project, run, written):
    err = _render_with(project, run, "aks-h100-training", 'kubernetesVersion: "1.32"', f"kubernetesVersion: {written}")
    value = written.split()[0]
    assert f'hint: quote it: "{value}"' in err


@pytest.mark.parametrize("version", ["1.38", "1.19", "2.0"])
def test_a_well_formed_version_outside_the_shipped_schemas_is_not_supported(project, run, version):
    err = _render_with(
        project, run, "aks-h100-training", 'kubernetesVersion: "1.32"', f'kubernetesVersion: "{version}"'
    )
    lo, hi = bundled_versions()[0], bundled_versions()[-1]
    assert f'kubernetesVersion: "{version}" is not supported ({lo[0]}.{lo[1]}\u2013{hi[0]}.{hi[1]})' in err
    assert "wrong format" not in err


def test_a_malformed_version_is_still_the_wrong_format(project, run):
    err = _render_with(project, run, "aks-h100-training", 'kubernetesVersion: "1.32"', 'kubernetesVersion: "1.32.x"')
    assert "has the wrong format" in err


def test_a_bad_mig_profile_is_not_repeated_as_a_quota_error(project, run):
    err = _render_with(project, run, "eks-mi300x-inference", "1g.5gb: 2}", "1g.6gb: 2}")
    assert "MIG profile '1g.6gb' does not exist on A100-40GB" in err
    assert len(LOCATED.findall(err)) == 1, err
    assert "quota asks for" not in err


def test_a_quota_beyond_valid_layouts_is_still_an_error(project, run):
    err = _render_with(project, run, "eks-mi300x-inference", "mig: {1g.5gb: 16,", "mig: {1g.5gb: 64,")
    assert "quota asks for 64 x 1g.5gb MIG slices; the mig.strategy mixed pools have 32" in err
