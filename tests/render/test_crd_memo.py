"""The CRDs a fleet installs alike are converted to document schemas once, and the clusters that
install them share one validator with them; both memos are bounded."""

from __future__ import annotations

import copy

import pytest

from generator.render import charts, cluster
from generator.validate import SchemaValidator


def _crd(kind: str = "Widget", field_type: str = "string") -> dict:
    schema = {
        "type": "object",
        "properties": {"spec": {"type": "object", "properties": {"size": {"type": field_type}}}},
    }
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{kind.lower()}s.example.com"},
        "spec": {
            "group": "example.com",
            "names": {"kind": kind, "plural": f"{kind.lower()}s"},
            "scope": "Namespaced",
            "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": schema}}],
        },
    }


@pytest.fixture(autouse=True)
def empty_memos(monkeypatch):
    monkeypatch.setattr(charts, "_SCHEMAS", {})
    monkeypatch.setattr(cluster, "_OVERLAYS", {})


def test_a_crd_each_cluster_renders_anew_is_converted_once_and_shares_one_validator(monkeypatch):
    converted: list[str] = []
    from generator.lint import crdimport

    real = crdimport.document_schema
    monkeypatch.setattr(crdimport, "document_schema", lambda crd, *a: converted.append(crd) or real(crd, *a))
    first = charts.crd_schemas(charts.Previews(), [_crd()])
    second = charts.crd_schemas(charts.Previews(), [copy.deepcopy(_crd())])  # another cluster's own copy
    assert len(converted) == 1
    assert first[("example.com/v1", "Widget")] is second[("example.com/v1", "Widget")]
    base = SchemaValidator("1.32")
    assert cluster._with_chart_crds(base, first) is cluster._with_chart_crds(base, second)


def test_a_crd_that_differs_is_converted_on_its_own():
    first = charts.crd_schemas(charts.Previews(), [_crd()])
    other = charts.crd_schemas(charts.Previews(), [_crd(field_type="integer")])
    size = ("properties", "spec", "properties", "size", "type")
    schema_a, schema_b = first[("example.com/v1", "Widget")], other[("example.com/v1", "Widget")]
    for key in size:
        schema_a, schema_b = schema_a[key], schema_b[key]
    assert (schema_a, schema_b) == ("string", "integer")


def test_the_memos_are_bounded(monkeypatch):
    monkeypatch.setattr(charts, "_SCHEMAS_MAX", 3)
    monkeypatch.setattr(cluster, "_OVERLAYS_MAX", 3)
    base = SchemaValidator("1.32")
    for i in range(10):
        cluster._with_chart_crds(base, charts.crd_schemas(charts.Previews(), [_crd(f"Kind{i}")]))
    assert len(charts._SCHEMAS) <= 3
    assert len(cluster._OVERLAYS) <= 3
