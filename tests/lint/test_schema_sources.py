"""Where custom resource schemas come from: http(s) locations with a cache, and CRD import."""

from __future__ import annotations

import hashlib
import http.server
import json
import threading
from pathlib import Path

import pytest
from conftest import SHARED, needs_shared

from generator.errors import InputError
from generator.lint import lint_paths
from generator.lint.crdimport import import_files, indented_json, strict
from generator.lint.settings import Settings
from generator.validate.locations import SchemaLocation, fetch, find_schema_file

PEER = SHARED / "peer" / "kubeconform" / "fixtures"
SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "apiVersion": {"type": "string"},
        "kind": {"type": "string"},
        "metadata": {"type": "object"},
        "spec": {"type": "object", "additionalProperties": False, "properties": {"gpus": {"type": "integer"}}},
    },
}


@pytest.fixture
def server():
    """A loopback HTTP server serving SCHEMA at /example.com/trainingrun_v1.json and counting requests."""
    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's naming)
            hits.append(self.path)
            if self.path == "/example.com/trainingrun_v1.json":
                body = json.dumps(SCHEMA).encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            elif self.path.startswith("/portal/"):
                body = b"<html><body>Sign in to continue</body></html>"
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            else:
                self.send_error(404)

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", hits
    httpd.shutdown()
    httpd.server_close()


def test_http_location_is_downloaded_once_and_cached(server, tmp_path):
    base, hits = server
    template = base + "/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json"
    manifest = tmp_path / "run.yaml"
    manifest.write_text(
        "apiVersion: example.com/v1\nkind: TrainingRun\nmetadata: {name: r}\nspec:\n  gpus: two\n", encoding="utf-8"
    )
    settings = Settings(
        schema_locations=[base + "/missing/{{.ResourceKind}}.json", template], schema_cache=tmp_path / "cache"
    )
    findings = lint_paths([str(manifest)], settings).findings
    assert [(f.rule, f.line) for f in findings] == [("K8S003", 5)]
    assert hits == ["/missing/trainingrun.json", "/example.com/trainingrun_v1.json"]
    url = base + "/example.com/trainingrun_v1.json"
    # kubeconform's cache naming: the SHA-256 of the URL; a 404 is not cached
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == [hashlib.sha256(url.encode()).hexdigest()]
    lint_paths([str(manifest)], Settings(schema_locations=[template], schema_cache=tmp_path / "cache"))
    assert len(hits) == 2  # second run: served from the cache


RUN = "apiVersion: example.com/v1\nkind: TrainingRun\nmetadata: {name: r}\n"


@pytest.mark.parametrize("command", ["lint", "render"])
@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ("not json {", "schema file is not readable JSON"),
        ('{"type": 5}', "schema file is not a valid JSON Schema: /type: 5 is not valid"),
        ("[1, 2]", "schema file holds a JSON list, not a schema object"),
        ('{"$ref": "other.json"}', "schema file has a $ref that cannot be resolved: Unresolvable: other.json"),
    ],
)
def test_a_bad_schema_file_is_a_usage_error_naming_it(project, run, command, body, problem):
    """A schema location is configuration: lint and render both stop with exit 2 and name the file."""
    folder = project / "crds" / "example.com"
    folder.mkdir(parents=True)
    (folder / "trainingrun_v1.json").write_text(body, encoding="utf-8")
    location = str(project / "crds" / "{{.Group}}" / "{{.ResourceKind}}_{{.ResourceAPIVersion}}.json")
    if command == "lint":
        (project / "run.yaml").write_text(RUN, encoding="utf-8")
        result = run(project, "lint", "--schema-location", location, str(project / "run.yaml"))
    else:
        overrides = project / "clusters" / "aks-h100-training" / "overrides.libsonnet"
        overrides.write_text(
            "{ 'workload-isolation'+: { 'trainingrun_gpu-training_r': {apiVersion: 'example.com/v1', "
            "kind: 'TrainingRun', metadata: {name: 'r', namespace: 'gpu-training'}} } }\n",
            encoding="utf-8",
        )
        result = run(project, "render", "aks-h100-training", "--schema-location", location)
    assert result.exit_code == 2, result.output
    assert f"{folder / 'trainingrun_v1.json'}: error: {problem}" in result.stderr
    assert "Traceback" not in result.output


def test_a_non_json_http_response_is_an_error_and_not_cached(server, tmp_path):
    base, hits = server
    cache = tmp_path / "cache"
    for _ in range(2):
        with pytest.raises(InputError, match="not JSON") as caught:
            fetch(base + "/portal/trainingrun.json", cache)
        assert caught.value.location.path == base + "/portal/trainingrun.json"
    assert len(hits) == 2 and not (cache.exists() and any(cache.iterdir()))


def test_unreachable_location_is_an_error_not_a_missing_schema(tmp_path, project, run):
    """An offline CI run must not pass with the kinds it could not check."""
    with pytest.raises(InputError, match="cannot reach schema location") as caught:
        find_schema_file([SchemaLocation("http://127.0.0.1:9/{{.ResourceKind}}.json")], {"ResourceKind": "x"}, tmp_path)
    assert caught.value.location.path == "http://127.0.0.1:9/x.json"
    (project / "run.yaml").write_text(RUN, encoding="utf-8")
    result = run(
        project,
        "lint",
        "--ignore-missing-schemas",
        "--schema-location",
        "http://127.0.0.1:9/{{.ResourceKind}}.json",
        str(project / "run.yaml"),
    )
    assert result.exit_code == 2 and "cannot reach schema location" in result.stderr, result.output


def test_a_404_means_no_schema_at_that_location(server, tmp_path):
    base, _ = server
    assert fetch(base + "/nothing.json", tmp_path) is None


@needs_shared(PEER / "cache", "kubeconform's schema cache fixtures")
def test_kubeconform_cache_folder_is_reused(tmp_path):
    """kubeconform's own cache (named by URL hash) answers the 'default' location offline."""
    from generator.validate.locations import template_variables

    variables = template_variables("v1", "ReplicationController", "1.35.0")
    variables.update(NormalizedKubernetesVersion="master", StrictSuffix="")  # as kubeconform ran without -strict
    found = find_schema_file([SchemaLocation("default")], variables, PEER / "cache")
    assert found is not None and json.loads(Path(found).read_text(encoding="utf-8"))["type"] == "object"


CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: trainingruns.example.com
spec:
  group: example.com
  names: {kind: TrainingRun, plural: trainingruns}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                gpus: {type: integer}
                port: {x-kubernetes-int-or-string: true}
                note: {type: string, nullable: true}
                extra: {type: object, x-kubernetes-preserve-unknown-fields: true}
    - name: v1alpha1
      served: false
      storage: false
      schema:
        openAPIV3Schema: {type: object}
"""


def test_import_writes_strict_schemas_for_served_versions(tmp_path):
    crd = tmp_path / "crd.yaml"
    crd.write_text(CRD, encoding="utf-8")
    written = import_files([crd], tmp_path / "out", str)
    assert [p.relative_to(tmp_path / "out").as_posix() for p in written] == ["example.com/trainingrun_v1.json"]
    loc = str(tmp_path / "out" / "{{.Group}}" / "{{.ResourceKind}}_{{.ResourceAPIVersion}}.json")
    run = tmp_path / "run.yaml"
    run.write_text(
        "apiVersion: example.com/v1\nkind: TrainingRun\nmetadata: {name: r}\nspec:\n  gpus: 2\n"
        "  port: http\n  note: null\n  extra: {anything: 1}\n",
        encoding="utf-8",
    )
    assert lint_paths([str(run)], Settings(schema_locations=[loc])).findings == []
    run.write_text(
        "apiVersion: example.com/v1\nkind: TrainingRun\nmetadata: {name: r}\nspec:\n  gpus: 2\n  port: 8080\n  gpu: 1\n",
        encoding="utf-8",
    )
    findings = lint_paths([str(run)], Settings(schema_locations=[loc])).findings
    assert [(f.rule, f.line, f.message) for f in findings] == [
        ("K8S003", 7, 'strict decoding error: unknown field "spec.gpu"')
    ]


@pytest.mark.parametrize(
    "value",
    [
        {"b": [1, 2.5, -0.0, 1e300, True, False, None], "a": {}, "c": [], "d": {"z": 'é\n"\\\u2028', "y": [[], [{}]]}},
        [],
        {},
        "x",
        3,
        None,
        {"x": float("nan"), "y": float("inf")},
        {2: "int keys", 1: "json turns them into strings"},
        {"t": ("a", "tuple")},
    ],
)
def test_schema_files_are_written_as_json_indents_them(value):
    """The imported schemas' bytes are ``json.dumps(indent=2, sort_keys=True)``'s."""
    assert indented_json(value) == json.dumps(value, indent=2, sort_keys=True)


def test_strict_leaves_value_constraints_in_any_of_open():
    """Cilium's policy spec: anyOf branches name one field each; the object's others stay allowed."""
    out = strict(
        {
            "type": "object",
            "properties": {"egress": {"type": "array"}, "ingress": {"type": "array"}},
            "anyOf": [
                {"properties": {"ingress": {}}, "required": ["ingress"]},
                {"properties": {"egress": {}}, "required": ["egress"]},
            ],
        }
    )
    assert out["additionalProperties"] is False
    assert all("additionalProperties" not in branch for branch in out["anyOf"])


def test_strict_keeps_preserved_objects_open():
    out = strict(
        {
            "type": "object",
            "properties": {
                "a": {
                    "type": "object",
                    "properties": {"b": {"type": "string"}},
                    "x-kubernetes-preserve-unknown-fields": True,
                }
            },
        }
    )
    assert out["additionalProperties"] is False and "additionalProperties" not in out["properties"]["a"]


@needs_shared(PEER / "registry", "kubeconform's schema registry fixtures")
def test_import_of_kubeconform_sagemaker_crd_validates_its_example(tmp_path, run, project, monkeypatch):
    monkeypatch.chdir(project)
    result = run(
        project,
        "schemas",
        "import",
        "--output-dir",
        str(tmp_path / "out"),
        str(PEER / "registry" / "sagemaker.aws.amazon.com_trainingjobs.yaml"),
    )
    assert result.exit_code == 0, result.output
    assert (tmp_path / "out" / "sagemaker.aws.amazon.com" / "trainingjob_v1.json").is_file()
    loc = str(tmp_path / "out" / "{{.Group}}" / "{{.ResourceKind}}_{{.ResourceAPIVersion}}.json")
    result = run(project, "lint", "--schema-location", loc, str(PEER / "test_crd.yaml"))
    assert result.exit_code == 0, result.output


def test_import_of_a_file_without_crds_is_an_input_error(tmp_path, run, project):
    path = tmp_path / "cm.yaml"
    path.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n", encoding="utf-8")
    result = run(project, "schemas", "import", str(path))
    assert result.exit_code == 2 and "no CustomResourceDefinition" in result.stderr


NAMED_CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {{name: runs.example.com}}
spec:
  group: {group}
  names: {{kind: {kind}, plural: runs}}
  scope: Namespaced
  versions:
    - name: {version}
      served: true
      storage: true
      schema: {{openAPIV3Schema: {{type: object}}}}
"""


@pytest.mark.parametrize(
    ("fields", "where", "message"),
    [
        ({"kind": "5"}, "crd.yaml:4:1", "CustomResourceDefinition without spec.group or spec.names.kind"),
        ({"group": "../../../etc"}, "crd.yaml:5:10", "spec.group '../../../etc' is not a DNS subdomain"),
        ({"kind": "../Run"}, "crd.yaml:6:17", "spec.names.kind '../Run' is not a valid kind"),
        ({"version": "../../x"}, "crd.yaml:9:13", "version '../../x' is not a valid version name"),
    ],
)
def test_import_rejects_names_that_are_not_names(project, run, fields, where, message):
    values = {"group": "example.com", "kind": "Run", "version": "v1", **fields}
    (project / "crd.yaml").write_text(NAMED_CRD.format(**values), encoding="utf-8")
    result = run(project, "schemas", "import", "--output-dir", "out", str(project / "crd.yaml"))
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"{where}: error: {message}")
    assert not (project / "out").exists() and not (project.parent / "x.json").exists()


def test_import_of_a_crd_whose_spec_is_a_list_is_an_input_error(project, run):
    (project / "crd.yaml").write_text(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: a}\nspec: [1]\n",
        encoding="utf-8",
    )
    result = run(project, "schemas", "import", str(project / "crd.yaml"))
    assert result.exit_code == 2 and result.stderr.startswith("crd.yaml:4:1: error: CustomResourceDefinition without")


def test_a_report_that_cannot_be_written_is_a_usage_error(project, run):
    (project / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n", encoding="utf-8")
    result = run(project, "lint", "--output-file", "/nonexistent/dir/out.txt", str(project / "cm.yaml"))
    assert result.exit_code == 2
    assert "\n/nonexistent/dir/out.txt: error: cannot write the report: No such file" in "\n" + result.stderr


@pytest.mark.parametrize(
    "schema",
    [
        "{properties: [1]}",
        "{properties: {a: {oneOf: 5, x-kubernetes-int-or-string: true}}}",
        "{type: object, properties: {apiVersion: 5}}",
    ],
)
def test_import_of_a_malformed_openapi_schema_is_an_input_error(project, run, schema):
    text = NAMED_CRD.format(group="example.com", kind="Run", version="v1").replace("{type: object}", schema)
    (project / "crd.yaml").write_text(text, encoding="utf-8")
    result = run(project, "schemas", "import", "--output-dir", "out", str(project / "crd.yaml"))
    assert result.exit_code == 2
    assert result.stderr.startswith("crd.yaml:12:33: error: the openAPIV3Schema of version 'v1' is not a valid schema")
