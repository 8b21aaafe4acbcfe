"""lib/helm.libsonnet: one pinned chart, as the objects of either GitOps engine, valid upstream."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import rjsonnet
from conftest import CRD_LOCATIONS, needs_crd_schemas

from generator.validate.locations import SchemaLocation
from generator.validate.validator import SchemaValidator

LIB = Path(__file__).resolve().parents[2] / "libsonnet" / "lib"


def release(engine: str, repo_url: str = "https://charts.example.com", **options) -> list[dict]:
    args = "".join(f", {key}={json.dumps(value)}" for key, value in options.items())
    code = (
        f"(import 'helm.libsonnet').release({{gitops: {{engine: '{engine}', project: 'gpu'}}}}, "
        f"'op', 'op-system', '{repo_url}', 'op-chart', '1.2.3', {{a: {{b: 1}}}}{args})"
    )
    return json.loads(rjsonnet.evaluate_snippet("test", code, jpathdir=str(LIB)))


def test_flux_release_points_at_its_repository_and_pins_the_version():
    repo, rel = release("flux", dependsOn=["node-feature-discovery"])
    assert (repo["kind"], rel["kind"]) == ("HelmRepository", "HelmRelease")
    assert "type" not in repo["spec"]
    chart = rel["spec"]["chart"]["spec"]
    assert (chart["chart"], chart["version"]) == ("op-chart", "1.2.3")
    assert chart["sourceRef"] == {"kind": "HelmRepository", "name": "op", "namespace": "flux-system"}
    assert rel["spec"]["targetNamespace"] == "op-system"
    assert rel["spec"]["values"] == {"a": {"b": 1}}
    assert rel["spec"]["dependsOn"] == [{"name": "node-feature-discovery", "namespace": "flux-system"}]


def test_flux_oci_repository_and_shared_repository_name():
    repo, rel = release("flux", "oci://ghcr.io/charts", repoName="vendor")
    assert repo["spec"] == {"interval": "1h", "url": "oci://ghcr.io/charts", "type": "oci"}
    assert repo["metadata"]["name"] == rel["spec"]["chart"]["spec"]["sourceRef"]["name"] == "vendor"


def test_argocd_application_with_a_helm_source():
    (app,) = release("argocd", "oci://ghcr.io/charts", syncWave=-5, createNamespace=False)
    # kept when it leaves Git: an Argo CD prune would uninstall the chart (k.keepOnRemoval)
    assert app["metadata"]["annotations"] == {
        "argocd.argoproj.io/sync-wave": "-5",
        "argocd.argoproj.io/sync-options": "Prune=false,Delete=false",
    }
    assert app["spec"]["project"] == "gpu"
    assert app["spec"]["source"] == {
        "repoURL": "ghcr.io/charts",
        "chart": "op-chart",
        "targetRevision": "1.2.3",
        "helm": {"releaseName": "op", "valuesObject": {"a": {"b": 1}}},
    }
    assert app["spec"]["destination"]["namespace"] == "op-system"
    assert "CreateNamespace=true" not in app["spec"]["syncPolicy"]["syncOptions"]


@needs_crd_schemas()
@pytest.mark.parametrize("engine", ["flux", "argocd"])
def test_objects_validate_against_the_engines_crds(engine):
    validator = SchemaValidator("1.32", [SchemaLocation(loc) for loc in CRD_LOCATIONS])
    for obj in release(engine, dependsOn=["x"], syncWave=1):
        assert validator.has_schema(obj["apiVersion"], obj["kind"])
        assert validator.check(obj) == []
