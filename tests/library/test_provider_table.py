"""One provider table (libsonnet/providers.json), read by Jsonnet and Python alike: every
provider has every fact with its source, the components branch on facts instead of names,
and a fact changed in the table changes both the defaults and the rendered objects."""

from __future__ import annotations

import json
import re

import pytest
from conftest import REPO

from generator.inputs.load import load_cluster
from generator.library import providers
from generator.paths import Project
from generator.render import evaluation

TABLE = json.loads((REPO / "libsonnet" / "providers.json").read_text(encoding="utf-8"))


def _schema_providers(name: str) -> set[str]:
    schema = json.loads((REPO / "schemas" / name).read_text(encoding="utf-8"))
    found = set()

    def walk(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "provider" and isinstance(value, dict) and "enum" in value:
                    found.update(value["enum"])
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    assert found, name
    return found


@pytest.mark.parametrize("schema", ["cluster.schema.json", "config.schema.json"])
def test_every_provider_the_schemas_accept_has_a_row(schema):
    assert _schema_providers(schema) <= set(TABLE["providers"])


def test_every_row_has_every_fact_and_its_source():
    facts = set(TABLE["facts"])
    assert len(facts) >= 15
    for name, row in TABLE["providers"].items():
        assert set(row["facts"]) == facts, name
        assert set(row["sources"]) == facts, name
        assert all(isinstance(s, str) and s.strip() for s in row["sources"].values()), name
    assert set(providers.load(REPO / "libsonnet")) == set(TABLE["providers"])


def test_a_row_missing_a_fact_is_an_input_error(tmp_path):
    from generator.errors import InputError

    broken = json.loads(json.dumps(TABLE))
    del broken["providers"]["eks"]["facts"]["clusterDns"]
    (tmp_path / "providers.json").write_text(json.dumps(broken), encoding="utf-8")
    with pytest.raises(InputError, match="provider eks has facts"):
        providers.load(tmp_path)


def test_no_component_compares_provider_names():
    """Components (and their helpers) get their provider's facts (providerFacts), never its
    name; only main.libsonnet looks the row up."""
    paths = [p for p in (REPO / "libsonnet").rglob("*.libsonnet") if p.name != "main.libsonnet"]
    assert len(paths) > 16
    for path in sorted(paths):
        code = "\n".join(line.split("//")[0] for line in path.read_text(encoding="utf-8").splitlines())
        assert not re.search(r"\bprovider\b", code), path
        assert not re.search(r"[!=]=\s*'(aks|eks|gke|openshift|generic)'", code), path


def test_no_python_module_compares_provider_names():
    """Only the table's reader looks a provider up; everything else asks it for facts."""
    for path in sorted((REPO / "generator").rglob("*.py")):
        if path == REPO / "generator" / "library" / "providers.py":
            continue
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"provider\"?\]?\s*(==|!=|not in|in)\s", text), path
        assert not re.search(r"(==|!=)\s*\"(aks|eks|gke|openshift)\"", text), path


def _copy(tmp_path, patch, provider="generic") -> Project:
    """A project whose own library has the provider's row patched."""
    import shutil

    root = tmp_path / "proj"
    for name in ("clusters", "libsonnet", "schemas"):
        shutil.copytree(REPO / name, root / name)
    table = json.loads(json.dumps(TABLE))
    patch(table["providers"][provider]["facts"])
    (root / "libsonnet" / "providers.json").write_text(json.dumps(table), encoding="utf-8")
    return Project(root)


def test_the_checks_read_the_projects_table(tmp_path):
    from generator.errors import InputErrors

    project = _copy(tmp_path, lambda facts: facts.update(nodeTuningOperator=False), "openshift")
    with pytest.raises(InputErrors, match="needs the Node Tuning Operator, which openshift does not run"):
        load_cluster(project, "ocp-a100-tuned")


def test_a_provider_without_a_row_is_an_input_error(tmp_path):
    from generator.errors import InputError

    table = json.loads(json.dumps(TABLE))
    del table["providers"]["gke"]
    (tmp_path / "providers.json").write_text(json.dumps(table), encoding="utf-8")
    with pytest.raises(InputError, match="provider 'gke' has no row in the provider table"):
        providers.facts("gke", tmp_path)


def test_the_table_drives_python_defaults_and_jsonnet_output(tmp_path):
    def patch(facts):
        facts["nfdDeploy"] = "external"
        facts["clusterDns"] = {"namespace": "dns-system", "pods": {"app": "coredns"}, "ports": [53, 1053]}

    project = _copy(tmp_path, patch)
    cluster = load_cluster(project, "onprem-mi300x-operator")
    assert cluster.spec["provider"] == "generic"
    assert cluster.spec["nodeFeatureDiscovery"]["deploy"] == "external"
    policies = [o for o in evaluation.evaluate(project, cluster)["workload-isolation"] if o["kind"] == "NetworkPolicy"]
    dns = json.dumps(policies)
    assert '"dns-system"' in dns and "1053" in dns and '"coredns"' in dns


def test_providers_md_shows_every_fact_of_every_provider_with_its_source():
    from generator import docs

    text = docs.providers_markdown(TABLE)
    for fact in TABLE["facts"]:
        section = text.split(f"## `{fact}`", 1)[1].split("\n## ", 1)[0]
        for name, row in TABLE["providers"].items():
            assert f"| `{name}` |" in section, (fact, name)
            assert row["sources"][fact].replace("|", "\\|") in section, (fact, name)


def test_a_changed_table_is_read_again(tmp_path):
    """Read once per version of the file: an in-process caller (the Python API, a watcher)
    sees an edit."""
    path = tmp_path / "providers.json"
    path.write_text(json.dumps(TABLE), encoding="utf-8")
    assert providers.facts("gke", tmp_path)["gpuTaintValue"] == "present"
    changed = json.loads(json.dumps(TABLE))
    changed["providers"]["gke"]["facts"]["gpuTaintValue"] = "true"
    path.write_text(json.dumps(changed), encoding="utf-8")
    assert providers.facts("gke", tmp_path)["gpuTaintValue"] == "true"
