"""A cluster whose charts template CRDs is inflated once on a cold inflation cache where the
APIs those CRDs served last time (by chart digest) are still what they install; a hint never
changes what is rendered."""

from __future__ import annotations

import tarfile
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import helm_repository, needs_helm, widget_crd

from generator.charts import helm, lock, store
from generator.paths import Project
from generator.render.charts import previews

FIXTURES = Path(__file__).resolve().parent / "fixtures"
REPOSITORY = helm_repository()
WIDGETS = widget_crd()


@pytest.fixture
def project(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.setenv("GPU_GITOPS_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "proj"
    (root / "clusters").mkdir(parents=True)
    entries = {}
    for name in ("gadgets", "self-made", "with-sub"):
        target = tmp_path / f"{name}-1.0.0.tgz"
        with tarfile.open(target, "w:gz") as archive:
            archive.add(FIXTURES / name, arcname=name)
        data = target.read_bytes()
        store.add(data)
        entry = lock.Entry("https://charts.example.com", name, "1.0.0", store.digest(data))
        entries[entry.key] = entry
    lock.write(root / "clusters" / "charts.lock", entries)
    return root


@pytest.fixture
def counted(monkeypatch) -> list:
    calls: list = []
    real = helm.template
    monkeypatch.setattr(helm, "template", lambda *a: calls.append(a) or real(*a))
    return calls


def _release(chart: str, values: dict) -> dict:
    return {
        "apiVersion": "helm.toolkit.fluxcd.io/v2",
        "kind": "HelmRelease",
        "metadata": {"name": chart, "namespace": "flux-system"},
        "spec": {
            "targetNamespace": "team",
            "releaseName": chart,
            "values": values,
            "chart": {
                "spec": {"chart": chart, "version": "1.0.0", "sourceRef": {"kind": "HelmRepository", "name": "r"}}
            },
        },
    }


def _previews(root: Path, *objects: dict):
    cluster = SimpleNamespace(spec={"kubernetesVersion": "1.32"}, folder=root / "clusters" / "c")
    return previews(Project(root), cluster, {"demo": [REPOSITORY, *objects]})


@needs_helm()
def test_a_chart_templating_crds_is_inflated_once_where_its_apis_are_known(project, counted):
    first = _previews(project, _release("gadgets", {"name": "a"})).folders["charts/gadgets"]
    assert len(counted) == 4  # cold: two rounds (the second with the Gadget API), two runs each
    assert "namespace" not in next(o for o in first if o["kind"] == "Gadget")["metadata"]  # cluster-scoped
    counted.clear()
    other = _previews(project, _release("gadgets", {"name": "b"})).folders["charts/gadgets"]
    assert len(counted) == 2  # other values, a cold inflation: one round, from the APIs kept last time
    assert "namespace" not in next(o for o in other if o["kind"] == "Gadget")["metadata"]


@needs_helm()
def test_an_api_a_chart_tests_is_never_hinted(project, counted):
    """The chart renders its CRD only where its own API is served: with the tree's Widget CRD it
    does (and its API is kept), without it it must not, whatever was kept."""
    with_tree = _previews(project, WIDGETS, _release("self-made", {})).folders["charts/self-made"]
    assert [o["kind"] for o in with_tree] == ["CustomResourceDefinition"]
    alone = _previews(project, _release("self-made", {"x": 1})).folders["charts/self-made"]
    assert alone == []


@needs_helm()
def test_the_crds_of_a_disabled_subchart_cost_a_round_only_once(project, counted):
    """A package's ``crds/`` include its subcharts' (the Network Operator's SR-IOV and maintenance
    operators); Helm installs none of a disabled subchart's, which the first round learns."""
    _previews(project, _release("with-sub", {"v": "1"}))
    assert len(counted) == 4  # the first round gave the Thing API, which nothing installs
    counted.clear()
    objects = _previews(project, _release("with-sub", {"v": "2"})).folders["charts/with-sub"]
    assert len(counted) == 2
    assert [o["kind"] for o in objects] == ["ConfigMap"]
