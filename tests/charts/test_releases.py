"""Values given as YAML text (Argo CD's ``helm.values``, a ``valuesFrom`` key) are read through
the YAML reader's hand-over, as Helm reads them; text that is not values is one error."""

from __future__ import annotations

import pytest

from generator.charts import releases
from generator.errors import InputError


def _app(values: str) -> dict:
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {"name": "app", "namespace": "argocd"},
        "spec": {
            "source": {
                "repoURL": "https://c.example.com",
                "chart": "app",
                "targetRevision": "1.0.0",
                "helm": {"values": values},
            },
            "destination": {"namespace": "team"},
        },
    }


def test_values_with_an_anchor_are_read_as_helm_reads_them():
    (found,) = releases.find({"c": [_app("a: &x {b: 1}\nc: *x\n")]})
    assert found.values == {"a": {"b": 1}, "c": {"b": 1}}


@pytest.mark.parametrize("text", ["a: [1\n", "- 1\n- 2\n"])
def test_values_that_are_not_a_mapping_of_yaml_are_one_error(text):
    with pytest.raises(InputError, match=r"Application argocd/app: spec.source.helm.values is not"):
        releases.find({"c": [_app(text)]})
