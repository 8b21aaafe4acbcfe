"""Schema lookup and validation: bundled Kubernetes schemas and kubeconform-style locations."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from generator.errors import InputError
from generator.validate import SchemaValidator, kubernetes
from generator.validate.locations import SchemaLocation, template_variables


def _deployment(**spec):
    base = {
        "selector": {"matchLabels": {"a": "b"}},
        "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}},
    }
    base.update(spec)
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": base}


def test_valid_core_object_has_no_problems():
    assert SchemaValidator("1.32").check(_deployment()) == []


def test_wrong_type_and_unknown_field_are_located_by_json_path():
    problems = SchemaValidator("1.32").check(_deployment(replicas="3", bogus=True))
    # an unknown field is located at the key itself, worded as the API server's strict decoding
    assert [(p.kind, p.path) for p in problems] == [("invalid", ("spec", "bogus")), ("invalid", ("spec", "replicas"))]
    assert problems[0].message == 'unknown field "spec.bogus"'


def test_version_picks_the_newest_bundled_schema_not_newer_than_asked():
    assert SchemaValidator("1.32.7").version == (1, 32)
    with pytest.raises(InputError, match="no bundled Kubernetes schemas for 1.99"):
        SchemaValidator("1.99")
    with pytest.raises(InputError, match="invalid Kubernetes version"):
        kubernetes.parse_version("latest")


def test_a_package_is_found_as_importlib_finds_it(monkeypatch):
    """The bundled schemas' package is found without ``importlib.util``, with its answer: a
    loaded module's spec, an installed package's, a finder put first on the import path, none."""
    import importlib.util
    import sys
    from importlib.machinery import ModuleSpec

    for name in ("kubernetes_validate", "json", "generator", "no_such_package_here"):
        found, expected = kubernetes._find_spec(name), importlib.util.find_spec(name)
        assert (found and found.origin) == (expected and expected.origin), name

    class Finder:
        def find_spec(self, name, path=None, target=None):
            return ModuleSpec(name, None, origin="elsewhere") if name == "placed_first" else None

    monkeypatch.setattr(sys, "meta_path", [Finder(), *sys.meta_path])
    assert kubernetes._find_spec("placed_first").origin == importlib.util.find_spec("placed_first").origin


# The readings of names ``kubernetes`` writes by hand, each held equal to the pattern it replaces
# on strings of the characters that matter to it (no newline: ``$`` would also match before one).
_NAME_PIECES = st.sampled_from(["a", "z", "k", "0", "9", "-", ".", "/", "A", "_", "v1", "apps", "١", "x" * 62])
_VERSION_PIECES = st.sampled_from(["v", "1", "32", "0", ".", "-local-strict", ".0-local-strict", "٣", "²", " ", "x"])


@given(st.lists(_NAME_PIECES, max_size=12).map("".join))
def test_the_names_a_schema_can_have_are_read_as_their_patterns(text):
    """A kind (lowercased) and a version are DNS-1035 labels, a group a DNS-1123 subdomain."""
    label = r"[a-z]([-a-z0-9]{0,61}[a-z0-9])?"
    subdomain = r"(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
    assert kubernetes.nameable("v1", text) == bool(re.fullmatch(label, text.lower()))
    assert kubernetes.nameable(f"g/{text}", "Kind") == bool(re.fullmatch(label, text))
    if text:  # "/v1" names the core group
        assert kubernetes.nameable(f"{text}/v1", "Kind") == bool(re.fullmatch(subdomain, text))


@given(st.lists(_VERSION_PIECES, max_size=8).map("".join))
def test_versions_and_version_folders_are_read_as_their_patterns(text):
    match = re.fullmatch(r"v?(\d+)\.(\d+)(?:\.\d+)?", text.strip())
    expected = (int(match[1]), int(match[2])) if match else None
    try:
        assert kubernetes.parse_version(text) == expected
    except InputError:
        assert expected is None
    folder = re.fullmatch(r"v(\d+)\.(\d+)\.0-local-strict", text)
    prefix, suffix = kubernetes._VERSION_DIR
    inner = text[len(prefix) : -len(suffix)] if text.startswith(prefix) and text.endswith(suffix) else None
    read = kubernetes._numbers(inner, 2) if inner is not None else None
    assert read == ((int(folder[1]), int(folder[2])) if folder else None)


def test_a_schema_file_is_named_by_the_groups_first_label():
    for api_version, kind, name in (
        ("rbac.authorization.k8s.io/v1", "Role", "role-rbac-v1.json"),
        ("v1", "Pod", "pod-v1.json"),
        ("apps/v1", "Deployment", "deployment-apps-v1.json"),
    ):
        found = kubernetes.builtin_schema((1, 32), api_version, kind)
        assert found is not None and os.path.basename(found) == name


def test_api_removed_in_a_version_has_no_schema_there():
    cronjob = {"apiVersion": "batch/v1beta1", "kind": "CronJob", "metadata": {"name": "c"}, "spec": {}}
    assert SchemaValidator("1.25").check(cronjob)[0].kind == "missing-schema"


def test_template_variables_match_kubeconform():
    v = template_variables("apps/v1", "Deployment", "1.32.0")
    assert v["KindSuffix"] == "-apps-v1" and v["ResourceKind"] == "deployment" and v["Group"] == "apps"
    core = template_variables("v1", "Service", "1.32.0")
    assert core["KindSuffix"] == "-v1" and core["Group"] == "v1" and core["ResourceAPIVersion"] == "v1"
    crd = template_variables("keda.sh/v1alpha1", "ScaledObject", "1.32.0")
    assert (crd["Group"], crd["ResourceKind"], crd["ResourceAPIVersion"]) == ("keda.sh", "scaledobject", "v1alpha1")


def test_first_location_with_the_file_wins(tmp_path):
    for folder, enum in (("a", ["from-a"]), ("b", ["from-b"])):
        (tmp_path / folder / "example.com").mkdir(parents=True)
        schema = {"type": "object", "properties": {"spec": {"properties": {"x": {"enum": enum}}}}}
        (tmp_path / folder / "example.com" / "widget_v1.json").write_text(json.dumps(schema), encoding="utf-8")
    only_b = tmp_path / "b" / "example.com" / "gadget_v1.json"
    only_b.write_text(json.dumps({"type": "object", "properties": {"spec": {"type": "object"}}}), encoding="utf-8")
    locations = [
        SchemaLocation(str(tmp_path / d / "{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json"))
        for d in ("a", "b")
    ]
    validator = SchemaValidator("1.32", locations)
    widget = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"x": "from-a"}}
    assert validator.check(widget) == []
    gadget = {"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g"}, "spec": "nope"}
    assert validator.check(gadget)[0].path == ("spec",)
    assert validator.schema_source("example.com/v1", "Gadget") == str(only_b)


def test_missing_apiversion_and_kind_use_kubeconform_wording():
    validator = SchemaValidator("1.32")
    assert validator.check({"kind": "X"})[0].message == "missing 'apiVersion' key"
    assert validator.check({"apiVersion": "v1", "kind": ""})[0].message == "missing 'kind' key"


def test_a_schema_files_passed_metaschema_check_is_remembered_by_its_bytes(tmp_path, monkeypatch):
    """The metaschema check (seconds on the largest CRDs) runs once per file content: a file
    whose bytes changed is checked again, and a refusal is never remembered."""
    from generator.validate import metaschema
    from generator.validate.validator import load_schema

    calls = []
    checked = metaschema.check

    def counting(cls, schema):
        calls.append(schema.get("description"))
        return checked(cls, schema)

    monkeypatch.setattr(metaschema, "check", counting)
    source = tmp_path / "run.json"
    source.write_text('{"type": "object", "description": "v1"}', encoding="utf-8")
    for _ in range(3):
        assert load_schema(source)["description"] == "v1"
    assert calls == ["v1"]
    source.write_text('{"type": "object", "description": "v2"}', encoding="utf-8")
    load_schema(source)
    assert calls == ["v1", "v2"]
    source.write_text('{"type": 5, "description": "bad"}', encoding="utf-8")
    for _ in range(2):
        with pytest.raises(InputError, match="not a valid JSON Schema"):
            load_schema(source)
    assert calls == ["v1", "v2", "bad", "bad"]


def test_the_remembered_check_is_named_by_the_installed_jsonschema_as_importlib_metadata_says():
    from importlib.metadata import version

    from generator.validate.validator import installed_version

    assert installed_version("jsonschema") == version("jsonschema")
    assert installed_version("click") == version("click")


def test_the_installed_version_without_a_dist_info_folder_is_asked_of_importlib_metadata(monkeypatch, tmp_path):
    from generator.validate import validator

    monkeypatch.setattr(sys, "path", [str(tmp_path), str(tmp_path / "missing")])
    monkeypatch.setattr("importlib.metadata.version", lambda name: f"asked-{name}")
    assert validator.installed_version("jsonschema") == "asked-jsonschema"
    (tmp_path / "jsonschema-9.8.7.dist-info").mkdir()
    assert validator.installed_version("jsonschema") == "9.8.7"


def test_a_remembered_metaschema_check_imports_neither_jsonschema_nor_importlib_metadata(tmp_path):
    """A render with schema locations looks up each custom schema's remembered check: that
    costs no import of importlib.metadata (~30 ms, a tenth of a one-cluster render's own work)."""
    source = tmp_path / "gadget.json"
    source.write_text('{"type": "object"}', encoding="utf-8")
    code = (
        "import sys; from pathlib import Path; from generator.validate.validator import load_schema; "
        f"load_schema(Path({str(source)!r})); "
        "print(sorted(m for m in ('importlib.metadata', 'jsonschema') if m in sys.modules))"
    )
    env = {**os.environ, "GPU_GITOPS_CACHE_DIR": str(tmp_path / "cache")}
    first = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert first.stdout.strip() == "['jsonschema']"  # checked once, then remembered
    again = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert again.stdout.strip() == "[]"


def test_an_unwritable_cache_only_means_checking_again(tmp_path, monkeypatch):
    from generator.validate import metaschema
    from generator.validate.validator import load_schema

    calls = []
    checked = metaschema.check
    monkeypatch.setattr(metaschema, "check", lambda cls, schema: calls.append(1) or checked(cls, schema))
    (tmp_path / "cache").write_text("a file where the cache folder should be", encoding="utf-8")
    monkeypatch.setenv("GPU_GITOPS_CACHE_DIR", str(tmp_path / "cache"))
    source = tmp_path / "run.json"
    source.write_text('{"type": "object"}', encoding="utf-8")
    for _ in range(2):
        assert load_schema(source) == {"type": "object"}
    assert calls == [1, 1]


_URI_PIECES = st.sampled_from(
    ["http://", "https://", "HTTP://", "json-schema.org", "/draft-07", "/schema", "#", "?", "#x", " ", "\t"]
    + [":80", "//", "@", "[", "]", "%20", "a", "/", ":", ".", "é"]
)


@given(st.lists(_URI_PIECES, max_size=6).map("".join))
def test_a_drafts_uri_is_normalised_as_urlsplit_does(uri):
    """The bundled schemas' ``$schema`` is looked up without importing ``urllib.parse``; every
    URI gets the key ``urlsplit(uri).geturl()`` gives (what jsonschema's URIDict uses)."""
    from urllib.parse import urlsplit

    from generator.validate.validator import _normalised

    try:
        expected = urlsplit(uri).geturl()
    except ValueError:
        return  # urlsplit refuses it (an unclosed "["): so does the lookup, through urlsplit
    assert _normalised(uri) == expected
