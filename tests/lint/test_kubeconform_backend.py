"""The kubeconform backend, against a stub that replays recorded output of both JSON dialects.

No kubeconform binary can be installed here; the stub records the command line it got and
prints what kubeconform printed for the same input. When a real kubeconform is on PATH the
last test runs it too.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest

INVALID = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: fine
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: "3"
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: "nginx:1.27"
"""

# kubeconform 0.6+/0.7: statusInvalid with validationErrors (JSON pointers)
NEW_DIALECT = {
    "resources": [
        {
            "filename": "app.yaml",
            "kind": "Deployment",
            "name": "web",
            "version": "apps/v1",
            "status": "statusInvalid",
            "msg": "problem validating schema. Check JSON formatting: jsonschema: '/spec/replicas' does not validate "
            "with https://example/deployment-apps-v1.json#/properties/spec/properties/replicas/type: "
            "expected integer or null, but got string",
            "validationErrors": [{"path": "/spec/replicas", "msg": "expected integer or null, but got string"}],
        }
    ],
    "summary": {"valid": 1, "invalid": 1, "errors": 0, "skipped": 0},
}
# older releases (Readme example): upper-case status, no name, no validationErrors
OLD_DIALECT = {
    "resources": [
        {
            "filename": "app.yaml",
            "kind": "Deployment",
            "version": "apps/v1",
            "status": "INVALID",
            "msg": "For field spec.replicas: Invalid type. Expected: [integer,null], given: string",
        },
        {
            "filename": "app.yaml",
            "kind": "TrainingRun",
            "version": "example.com/v1",
            "status": "ERROR",
            "msg": "could not find schema for TrainingRun",
        },
    ],
    "summary": {"valid": 1, "invalid": 1, "errors": 1, "skipped": 0},
}


def _stub(folder: Path, output: dict) -> Path:
    folder.mkdir(exist_ok=True)
    (folder / "recorded.json").write_text(json.dumps(output), encoding="utf-8")
    script = folder / "kubeconform"
    script.write_text(
        f'#!/bin/sh\nprintf "%s\\n" "$@" > "{folder}/args"\ncat "{folder}/recorded.json"\nexit 1\n', encoding="utf-8"
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


@pytest.fixture
def app(project, monkeypatch):
    monkeypatch.chdir(project)
    (project / "app.yaml").write_text(INVALID, encoding="utf-8")
    return project


def _findings(result) -> list[dict]:
    return json.loads(result.stdout)["findings"]


def test_new_dialect_is_mapped_to_lines_and_deduplicated(app, run, monkeypatch, tmp_path):
    stub = _stub(tmp_path / "bin", NEW_DIALECT)
    monkeypatch.setenv("PATH", f"{stub.parent}:{__import__('os').environ['PATH']}")
    result = run(app, "lint", "--format", "json", "--kubeconform", "--kubernetes-version", "1.32", "app.yaml")
    assert result.exit_code == 1
    args = (stub.parent / "args").read_text(encoding="utf-8").split("\n")
    assert args[:8] == [
        "-strict",
        "-summary",
        "-output",
        "json",
        "-kubernetes-version",
        "1.32.0",
        "-schema-location",
        "default",
    ]
    assert args[8:] == ["app.yaml", ""]  # the file, then printf's final newline
    schema = [(f["rule"], f["line"], f["message"]) for f in _findings(result) if f["rule"] == "K8S003"]
    # ours and kubeconform's point at the same line: one finding, ours
    assert len(schema) == 1 and schema[0][1] == 11 and not schema[0][2].startswith("kubeconform:")


def test_old_dialect_without_names_or_pointers(app, run, monkeypatch, tmp_path):
    stub = _stub(tmp_path / "bin", OLD_DIALECT)
    monkeypatch.setenv("PATH", f"{stub.parent}:{__import__('os').environ['PATH']}")
    result = run(app, "lint", "--format", "json", "--kubeconform", str(stub), "app.yaml")
    theirs = [(f["rule"], f["line"]) for f in _findings(result) if f["message"].startswith("kubeconform:")]
    # the Deployment's result carries no pointer: it lands on the object's first line; the
    # TrainingRun is not in our set, so it lands on line 1 of the file
    assert theirs == [("K8S004", 1), ("K8S003", 6)]


def test_missing_binary_is_a_usage_error(app, run):
    result = run(app, "lint", "--kubeconform", "/nonexistent/kubeconform", "app.yaml")
    assert result.exit_code == 2 and "kubeconform binary" in result.stderr and "hint:" in result.stderr


def test_unreadable_output_is_a_usage_error(app, run, tmp_path):
    folder = tmp_path / "bad"
    folder.mkdir()
    script = folder / "kubeconform"
    script.write_text("#!/bin/sh\necho 'flag provided but not defined: -strict' >&2\nexit 1\n", encoding="utf-8")
    script.chmod(0o755)
    result = run(app, "lint", "--kubeconform", str(script), "app.yaml")
    assert result.exit_code == 2 and "flag provided but not defined" in result.stderr


@pytest.mark.skipif(shutil.which("kubeconform") is None, reason="no kubeconform binary on PATH")
@pytest.mark.skipif(
    not os.environ.get("KUBECONFORM_SCHEMAS"),
    reason="no offline core schemas for kubeconform (KUBECONFORM_SCHEMAS, a location template: bench/build_kubeconform.sh)",
)
def test_real_kubeconform_agrees(app, run):
    # kubeconform's default location is on the network; the machine's offline copy instead
    location = os.environ["KUBECONFORM_SCHEMAS"]
    result = run(
        app,
        "lint",
        "--format",
        "json",
        "--kubeconform",
        "--kubernetes-version",
        "1.32",
        "--schema-location",
        location,
        "app.yaml",
    )
    assert result.exit_code == 1
    assert any(f["rule"] == "K8S003" and f["line"] == 11 for f in _findings(result))


def test_large_trees_are_passed_in_batches(app, run, monkeypatch, tmp_path):
    from generator.lint import kubeconform

    folder = app / "many"
    folder.mkdir()
    for i in range(30):
        (folder / f"cm-{i:02}.yaml").write_text(
            f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c{i}}}\n", encoding="utf-8"
        )
    stub = tmp_path / "bin" / "kubeconform"
    stub.parent.mkdir()
    # one line per run: the file arguments it got (the options end with "default")
    stub.write_text(
        f'#!/bin/sh\nwhile [ "$1" != default ]; do shift; done; shift\necho "$@" >> "{stub}.runs"\n'
        'echo \'{"resources": [], "summary": {"valid": 1}}\'\n',
        encoding="utf-8",
    )
    stub.chmod(0o755)
    monkeypatch.setattr(kubeconform, "MAX_ARGUMENT_BYTES", 200)
    result = run(app, "lint", "--kubeconform", str(stub), "many")
    assert result.exit_code == 0, result.output
    runs = [line.split() for line in Path(f"{stub}.runs").read_text(encoding="utf-8").splitlines()]
    assert len(runs) > 1 and all(sum(len(a) + 1 for a in r) <= 200 for r in runs)
    assert sorted(a for r in runs for a in r) == sorted(f"many/cm-{i:02}.yaml" for i in range(30))


def test_a_binary_that_cannot_run_is_a_usage_error(app, run, tmp_path):
    binary = tmp_path / "kubeconform"
    binary.write_bytes(b"\x7fELF\x02garbage")
    binary.chmod(0o755)
    result = run(app, "lint", "--kubeconform", str(binary), "app.yaml")
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: cannot run kubeconform '{binary}': Exec format error")
    assert "\n  hint: " in result.stderr


# kubeconform 0.7 offline with its default location first: the download fails before any
# local location is tried (pkg/registry/http.go: "failed downloading schema at %s: %s")
OFFLINE = {
    "resources": [
        {
            "filename": "app.yaml",
            "kind": "Deployment",
            "name": "web",
            "version": "apps/v1",
            "status": "statusError",
            "msg": "failed downloading schema at https://raw.githubusercontent.com/yannh/kubernetes-json-schema/master/"
            'v1.32.0-standalone-strict/deployment-apps-v1.json: Get "https://raw.githubusercontent.com/yannh/'
            'kubernetes-json-schema/master/v1.32.0-standalone-strict/deployment-apps-v1.json": dial tcp: '
            "lookup raw.githubusercontent.com: no such host",
        }
    ],
    "summary": {"valid": 0, "invalid": 0, "errors": 1, "skipped": 0},
}
ERRORS = {
    "resources": [
        {
            "filename": "app.yaml",
            "kind": "",
            "name": "",
            "version": "v1",
            "status": "statusError",
            "msg": "missing 'kind' key",
        },
        {
            "filename": "app.yaml",
            "kind": "TrainingRun",
            "name": "r",
            "version": "example.com/v1",
            "status": "statusError",
            "msg": "could not find schema for TrainingRun",
        },
        {
            "filename": "app.yaml",
            "kind": "",
            "name": "",
            "version": "",
            "status": "statusError",
            "msg": "error unmarshalling resource: error converting YAML to JSON: yaml: line 3: mapping values are "
            "not allowed in this context",
        },
    ],
    "summary": {"valid": 0, "invalid": 0, "errors": 3, "skipped": 0},
}


def test_user_locations_are_passed_as_given_without_default_first(app, run, tmp_path):
    stub = _stub(tmp_path / "bin", {"resources": [], "summary": {}})
    local = "schemas/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json"
    run(app, "lint", "--kubeconform", str(stub), "--schema-location", local, "app.yaml")
    args = (stub.parent / "args").read_text(encoding="utf-8").split("\n")
    assert [args[i + 1] for i, a in enumerate(args) if a == "-schema-location"] == [local]


def test_synced_set_is_passed_after_the_users_locations(app, run, tmp_path, monkeypatch):
    from generator import paths
    from generator.validate import schemaset

    folder = paths.cache_root() / "crd-schemas"
    folder.mkdir(parents=True)
    (folder / schemaset.SET_FILE).write_text('{"version": "t", "kinds": 0}', encoding="utf-8")
    stub = _stub(tmp_path / "bin", {"resources": [], "summary": {}})
    run(app, "lint", "--kubeconform", str(stub), "app.yaml")
    args = (stub.parent / "args").read_text(encoding="utf-8").split("\n")
    assert [args[i + 1] for i, a in enumerate(args) if a == "-schema-location"] == [
        "default",
        str(folder / schemaset.LAYOUT),
    ]


def test_a_failed_schema_download_is_a_usage_error_not_a_yaml_error(app, run, tmp_path):
    stub = _stub(tmp_path / "bin", OFFLINE)
    result = run(app, "lint", "--kubeconform", str(stub), "app.yaml")
    assert result.exit_code == 2, result.output
    assert "kubeconform could not download a schema: failed downloading schema at" in result.stderr
    assert "K8S001" not in result.output and "hint:" in result.stderr


def test_errors_are_filed_under_their_rule(app, run, tmp_path):
    stub = _stub(tmp_path / "bin", ERRORS)
    result = run(app, "lint", "--format", "json", "--kubeconform", str(stub), "app.yaml")
    theirs = [
        (f["rule"], f["message"].split(": ", 1)[1][:20])
        for f in _findings(result)
        if f["message"].startswith("kubeconform:")
    ]
    assert sorted(theirs) == [
        ("K8S001", "error unmarshalling "),
        ("K8S002", "missing 'kind' key"),
        ("K8S004", "could not find schem"),
    ]


# kubeconform 0.7 on its own fixture extra_property.yaml (acceptance test A23, EXPECTED.md), the
# Deployment's container index and a label key made of digits added: pointers into a list and a map
EXTRA_PROPERTY = """\
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: nginx-ds
  labels:
    "0": zero
spec:
  replicas: 2
  selector:
    matchLabels:
      k8s-app: nginx-ds
  template:
    spec:
      containers:
      - image: nginx
        name: nginx
"""
POINTERS = {
    "resources": [
        {
            "filename": "ds.yaml",
            "kind": "DaemonSet",
            "name": "nginx-ds",
            "version": "apps/v1",
            "status": "statusInvalid",
            "msg": "problem validating schema. Check JSON formatting: jsonschema: '/spec' does not validate with "
            "https://example/daemonset-apps-v1.json#/properties/spec/additionalProperties: additionalProperties "
            "'replicas' not allowed",
            "validationErrors": [
                {"path": "/spec", "msg": "additionalProperties 'replicas' not allowed"},
                {"path": "/spec/template/spec/containers/0", "msg": "missing properties: 'ports'"},
                {"path": "/metadata/labels/0", "msg": "expected string, but got number"},
            ],
        }
    ],
    "summary": {"valid": 0, "invalid": 1, "errors": 0, "skipped": 0},
}
OLD_POINTER = {"resources": [{**POINTERS["resources"][0], "status": "INVALID", "validationErrors": None}]}


def _theirs(result) -> list[tuple]:
    return [(f["line"], f["message"]) for f in _findings(result) if f["message"].startswith("kubeconform:")]


def test_pointers_print_as_dotted_paths_like_our_findings(app, run, tmp_path):
    (app / "ds.yaml").write_text(EXTRA_PROPERTY, encoding="utf-8")
    stub = _stub(tmp_path / "bin", POINTERS)
    result = run(app, "lint", "--format", "json", "--kubeconform", str(stub), "ds.yaml")
    assert _theirs(result) == [
        (6, "kubeconform: metadata.labels.0: expected string, but got number"),
        (7, "kubeconform: spec: additionalProperties 'replicas' not allowed"),
        (15, "kubeconform: spec.template.spec.containers[0]: missing properties: 'ports'"),
    ]
    ours = [
        (f["line"], f["message"])
        for f in _findings(result)
        if f["rule"] == "K8S003" and not f["message"].startswith("kubeconform:")
    ]
    assert ours == [(8, 'strict decoding error: unknown field "spec.replicas"')]  # the same spelling of paths


def test_a_pointer_inside_a_message_is_dotted_too(app, run, tmp_path):
    (app / "ds.yaml").write_text(EXTRA_PROPERTY, encoding="utf-8")
    stub = _stub(tmp_path / "bin", OLD_POINTER)
    result = run(app, "lint", "--format", "json", "--kubeconform", str(stub), "ds.yaml")
    [(line, message)] = _theirs(result)
    assert "jsonschema: 'spec' does not validate with" in message and "'/spec'" not in message
