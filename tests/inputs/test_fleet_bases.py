"""A 200-cluster fleet made of three bases is the same fleet as the one written out in full:
the same complete input for every cluster, the same rendered bytes."""

from __future__ import annotations

import pytest
from fleet_inputs import make

from generator.inputs.load import load_cluster
from generator.paths import Project
from generator.render import pipeline
from generator.tree import fingerprint

COUNT = 200


@pytest.fixture(scope="module")
def fleets(tmp_path_factory) -> tuple[Project, Project, list[str]]:
    layered, full = tmp_path_factory.mktemp("layered"), tmp_path_factory.mktemp("full")
    names = make(layered, COUNT, layered=True)
    assert make(full, COUNT, layered=False) == names
    return Project(layered), Project(full), names


# The fleet's clusters vary with their index modulo 2, 3, 4 and 5 (tests/fleet_inputs.py): any
# 60 in a row hold every combination of what a cluster sets beside its base.
PERIOD = 60


def test_every_cluster_has_the_input_written_out_in_full(fleets):
    """Every kind of cluster the fleet holds: a period of its variations, the first 60 (each a
    different combination of base, removed key, merged pool size and branch), and the last."""
    layered, full, names = fleets
    assert len(names) == COUNT
    sample = [f"{'aks' if i % 2 == 0 else 'ocp'}-{i:03d}" for i in [*range(PERIOD), COUNT - 1]]
    assert set(sample) <= set(names)
    for name in sample:
        assert load_cluster(layered, name).spec == load_cluster(full, name).spec, name


def test_clusters_of_each_base_render_byte_identically(fleets):
    layered, full, names = fleets
    sample = ["aks-000", "aks-002", "ocp-001", "ocp-199"]  # a removed key, a merged pool, two branches
    trees = {}
    for project in (layered, full):
        outcomes = pipeline.render_many(project, sample, pipeline.Options())
        assert all(o.rendered and not o.rendered.errors for o in outcomes), [o.error for o in outcomes]
        trees[project] = {o.name: o.rendered.tree.files for o in outcomes if o.rendered}
    for name in sample:
        mine, theirs = dict(trees[layered][name]), dict(trees[full][name])
        sums = mine.pop(fingerprint.SUM_FILE), theirs.pop(fingerprint.SUM_FILE)
        assert mine == theirs, name
        assert b"  clusters/_bases/fleet.yaml\n" in sums[0] and b"_bases" not in sums[1]
