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


@pytest.mark.slow
def test_every_cluster_has_the_input_written_out_in_full(fleets):
    layered, full, names = fleets
    assert len(names) == COUNT
    for name in names:
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
