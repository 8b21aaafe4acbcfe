"""Where ``helm template`` is not an install in the cluster: ``lookup`` finds nothing, generated
values change on every render, ``.Capabilities`` holds what the render passes. Each case on a
small chart made for it (``fixtures/<chart>/``), inflated with a real Helm."""

from __future__ import annotations

import tarfile
from pathlib import Path

import pytest
from conftest import needs_helm

from generator.charts import helm, inflate, lock, offline, releases, store
from generator.errors import InputError

FIXTURES = Path(__file__).resolve().parent / "fixtures"
FACTS = inflate.Facts("1.32", (), frozenset())


def _package(tmp_path: Path, name: str) -> bytes:
    target = tmp_path / f"{name}-1.0.0.tgz"
    with tarfile.open(target, "w:gz") as archive:
        archive.add(FIXTURES / name, arcname=name)
    return target.read_bytes()


def _locked(tmp_path: Path, name: str) -> lock.Entry:
    data = _package(tmp_path, name)
    store.add(data)
    return lock.Entry("https://charts.example.com", name, "1.0.0", store.digest(data))


def _release(name: str) -> releases.Release:
    return releases.Release(
        name,
        "team",
        "https://charts.example.com",
        name,
        "1.0.0",
        {},
        True,
        "flux",
        "c",
        f"HelmRelease flux-system/{name}",
    )


@pytest.fixture
def counted(monkeypatch) -> list:
    calls: list = []
    real = helm.template

    def template(*args):
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(helm, "template", template)
    return calls


# --- the scan -----------------------------------------------------------------------------------


def test_the_scan_finds_calls_in_actions_only_with_their_lines():
    text = (
        '{{/* lookup "v1" "Secret" in a comment */}}\n'
        'data: {{ "lookup genCA" }}\n'
        '{{- with lookup "v1" "Secret" .Release.Namespace "s" }}{{ end }}\n'
        "{{- if and .Values.x\n"
        '  (.Capabilities.APIVersions.Has "monitoring.coreos.com/v1") }}{{ end }}\n'
        '{{ semverCompare ">=1.30.2" .Capabilities.KubeVersion.Version }}\n'
        '{{ semverCompare ">=1.30-0" .Capabilities.KubeVersion.Version }}\n'
        '{{ now | date "2006" }} {{ .Capabilities.APIVersions.Has $api }}\n'
    )
    found = [(s.line, s.call, s.api) for s in offline.scan_text("c/templates/t.yaml", text)]
    assert found == [
        (3, "lookup", ""),
        (5, offline.HAS, "monitoring.coreos.com/v1"),
        (6, offline.KUBE_VERSION, ""),
        (8, "now", ""),
        (8, offline.HAS, ""),
    ]


def test_disarmed_keeps_every_column_and_leaves_strings_alone():
    text = '{{ with lookup "v1" "Secret" "ns" "lookup" }}x{{ end }}\n'
    out = offline.disarmed(text)
    assert out == '{{ with fail   "v1" "Secret" "ns" "lookup" }}x{{ end }}\n'
    assert len(out) == len(text)


# --- lookup -------------------------------------------------------------------------------------


@needs_helm()
def test_a_ca_kept_by_lookup_in_a_secret_is_deterministic_and_redacted(tmp_path, own_cache, counted):
    """Cilium's CA and Hubble certificates: ``genCA`` where ``lookup`` finds no Secret, new on
    every ``helm template``. Only a Secret holds them, whose values are never written: two
    inflations give the same objects, and no warning (the lookup reaches Secrets only)."""
    entry = _locked(tmp_path, "kept-ca")
    (secret,) = inflate.inflate(_release("kept-ca"), entry, FACTS)
    assert secret["data"] == {"ca.crt": inflate.REDACTED_B64}
    assert inflate.notes(inflate.inflate(_release("kept-ca"), entry, FACTS)) == ()
    # the run and the determinism run; the lookup probe renders without the Secret-only template
    assert len(counted) == 3


@needs_helm()
def test_an_object_a_lookup_decides_is_a_warning_naming_the_template_and_line(tmp_path, own_cache):
    entry = _locked(tmp_path, "first-install")
    (config,) = inflate.inflate(_release("first-install"), entry, FACTS)
    assert config["data"] == {"mode": "initial"}  # a first install's: lookup finds nothing offline
    (note,) = inflate.notes(inflate.inflate(_release("first-install"), entry, FACTS))
    assert "first-install/templates/settings.yaml reaches lookup (first-install/templates/settings.yaml:6)" in note
    assert "first install" in note and "/ConfigMap" in note


@needs_helm()
def test_the_warning_is_kept_with_the_cached_inflation(tmp_path, own_cache, monkeypatch):
    entry = _locked(tmp_path, "first-install")
    for memo in ("_SEEN", "_NOTES"):  # this process's earlier inflations: this one goes to this cache
        monkeypatch.setattr(inflate, memo, {})
    first = inflate.notes(inflate.inflate(_release("first-install"), entry, FACTS))
    for memo in ("_SEEN", "_NOTES"):  # as a new process finds it: only the cache
        monkeypatch.setattr(inflate, memo, {})
    monkeypatch.setattr(helm, "template", lambda *a: pytest.fail("inflated again"))
    assert inflate.notes(inflate.inflate(_release("first-install"), entry, FACTS)) == first != ()


@needs_helm()
def test_a_chart_that_fails_without_the_cluster_is_refused_naming_its_lookup(tmp_path, own_cache):
    entry = _locked(tmp_path, "needs-cluster")
    with pytest.raises(InputError) as caught:
        inflate.inflate(_release("needs-cluster"), entry, FACTS)
    assert "cluster-info not found" in caught.value.message
    assert "lookup at needs-cluster/templates/_helpers.tpl:2" in caught.value.diagnostic.hint


@needs_helm()
def test_a_generated_ca_outside_a_secret_is_refused_naming_the_template(tmp_path, own_cache):
    entry = _locked(tmp_path, "webhook-ca")
    with pytest.raises(InputError, match="renders differently each time") as caught:
        inflate.inflate(_release("webhook-ca"), entry, FACTS)
    assert "ValidatingWebhookConfiguration demo" in caught.value.message
    assert "genCA at webhook-ca/templates/webhook.yaml:1" in caught.value.message


# --- .Capabilities ------------------------------------------------------------------------------


@needs_helm()
def test_an_api_the_render_does_not_pass_that_changes_the_objects_is_a_warning(tmp_path, own_cache, counted):
    entry = _locked(tmp_path, "monitored")
    objects = inflate.inflate(_release("monitored"), entry, FACTS)
    assert [o["kind"] for o in objects] == ["Service"]  # as rendered: no ServiceMonitor served
    notes = inflate.notes(objects)
    assert any(
        "Has 'monitoring.coreos.com/v1/ServiceMonitor' at monitored/templates/monitor.yaml:1" in n
        and "ServiceMonitor team/demo" in n
        for n in notes
    )
    assert len(counted) == 3  # the second run passed the API; a third told a dependence from chance


@needs_helm()
def test_an_api_the_render_passes_needs_no_warning_and_no_third_run(tmp_path, own_cache, counted):
    entry = _locked(tmp_path, "monitored")
    facts = inflate.Facts("1.32", ("monitoring.coreos.com/v1", "monitoring.coreos.com/v1/ServiceMonitor"), frozenset())
    objects = inflate.inflate(_release("monitored"), entry, facts)
    assert sorted(o["kind"] for o in objects) == ["Service", "ServiceMonitor"]
    assert not any("ServiceMonitor" in n for n in inflate.notes(objects))
    assert len(counted) == 2


@needs_helm()
def test_a_patch_level_version_test_is_a_warning(tmp_path, own_cache):
    entry = _locked(tmp_path, "monitored")
    notes = inflate.notes(inflate.inflate(_release("monitored"), entry, FACTS))
    assert any("patch level (.Capabilities.KubeVersion at monitored/templates/service.yaml:9)" in n for n in notes)
    assert any("for 1.32.0" in n for n in notes)
