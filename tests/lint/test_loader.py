"""Parsing: documents keep their file lines, errors stay in their document, limits hold."""

from __future__ import annotations

import pytest
from conftest import record_position_reads
from ruamel.yaml import YAML

from generator import regex
from generator.lint import lint_paths, loader
from generator.lint.settings import Settings
from generator.yamlio import goyaml
from generator.yamlio import read as yamlread


def test_documents_keep_their_line_offsets_and_lists_expand(tmp_path):
    text = (
        "# leading comment\n---\napiVersion: v1\nkind: List\nitems:\n"
        "  - apiVersion: v1\n    kind: ConfigMap\n    metadata: {name: a}\n"
        "  - apiVersion: v1\n    kind: ConfigMap\n    metadata: {name: b}\n    dta: {}\n"
    )
    path = tmp_path / "list.yaml"
    path.write_text(text, encoding="utf-8")
    source = loader.read(str(path), "list.yaml")
    assert [r.name for r in source.resources] == ["a", "b"]
    findings = lint_paths([str(path)], Settings()).findings
    assert [(f.rule, f.line, f.col, f.ref.name) for f in findings] == [("K8S003", 12, 5, "b")]


def test_timestamps_stay_strings_and_json_files_load(tmp_path):
    yaml_path = tmp_path / "cm.yaml"
    yaml_path.write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  day: 2024-01-01\n", encoding="utf-8"
    )
    json_path = tmp_path / "cm.json"
    json_path.write_text(
        '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b"},\n "dta": 1}', encoding="utf-8"
    )
    findings = lint_paths([str(tmp_path)], Settings()).findings
    assert [(f.file.rsplit("/", 1)[1], f.rule, f.line) for f in findings] == [("cm.json", "K8S003", 2)]


def test_non_mapping_document_and_size_limit(tmp_path, monkeypatch):
    path = tmp_path / "scalar.yaml"
    path.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n# a list\n- 1\n- 2\n", encoding="utf-8")
    findings = lint_paths([str(path)], Settings()).findings
    assert [(f.rule, f.line) for f in findings] == [("K8S001", 6)]
    monkeypatch.setattr(yamlread, "MANIFESTS", yamlread.MANIFESTS.replace(document_bytes=10))
    findings = lint_paths([str(path)], Settings()).findings
    assert {f.rule for f in findings} == {"K8S001"} and "byte limit" in findings[0].message


def test_deep_nesting_is_an_error_not_a_crash(tmp_path):
    """The reader's depth bound, worded as the input reader words it, at the collection past it."""
    path = tmp_path / "deep.yaml"
    path.write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: " + "[" * 5000 + "]" * 5000 + "\n",
        encoding="utf-8",
    )
    [finding] = lint_paths([str(path)], Settings()).findings
    assert (finding.rule, finding.line, finding.col) == ("K8S001", 4, len("data: ") + yamlread.MANIFESTS.depth)
    assert (
        finding.message
        == f"error unmarshalling resource: YAML nesting is deeper than {yamlread.MANIFESTS.depth} levels"
    )
    assert finding.hint.startswith("flatten the document")


def test_separator_inside_text_splits_only_at_line_start():
    docs = list(loader.split_documents("a: '---'\n---\nb: 1\n--- # c\nc: 2"))
    assert [start for start, _ in docs] == [0, 1, 3]


def test_event_builder_gives_the_same_data_as_ruamel():
    """Every fixture document and a set of tricky scalars load alike through both paths."""
    from pathlib import Path

    yaml = goyaml.safe_loader()
    chunks = [
        chunk
        for path in sorted((Path(__file__).parent.parent / "fixtures").rglob("*.yaml"))
        for _, chunk in loader.split_documents(path.read_text(encoding="utf-8"))
    ]
    chunks.append(
        "a: 500m\nb: 1Gi\nc: 010\nd: 0x1F\ne: 1e3\nf: .5\ng: 2024-01-01\nh: yes\ni: ~\nj: '1'\n"
        "k: -7\nl: +3\nm: 1_000\nn: 12:30\no: .inf\np: |\n  text\nq: &x 1\nr: *x\ns: !!str 5\n"
    )
    fast = 0
    for chunk in chunks:
        try:
            expected = yaml.load(chunk)
        except Exception:  # noqa: BLE001 (syntax-error fixtures: the fallback reports them)
            continue
        try:
            assert yamlread.load(chunk) == expected
            fast += 1
        except yamlread.Fallback:
            pass
    assert fast > 50
    for text, value in (("a: 500m", "500m"), ("a: 7", 7), ("a: 2024-01-01", "2024-01-01"), ("a: yes", True)):
        assert yamlread.load(text) == {"a": value}


# go-yaml v2 resolve.go (sigs.k8s.io/yaml, which kubectl and the API server read YAML with)
@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("yes", True),
        ("Y", True),
        ("on", True),
        ("ON", True),
        ("n", False),
        ("No", False),
        ("off", False),
        ("true", True),
        ("FALSE", False),
        ("~", None),
        ("", None),
        ("0777", 511),
        ("0x1F", 31),
        ("0o17", 15),
        ("0b101", 5),
        ("1_000", 1000),
        ("+3", 3),
        ("09", 9.0),
        ("1e3", 1000.0),
        (".5", 0.5),
        ("1.20", 1.2),
        ("500m", "500m"),
        ("1Gi", "1Gi"),
        ("2024-01-01", "2024-01-01"),
        ("12:30", "12:30"),
        ("v1.2", "v1.2"),
        ("yess", "yess"),
        ("18446744073709551615", 18446744073709551615),
        ("1e400", "1e400"),
        ("1" * 5001, "1" * 5001),  # past float64's range: a string, as in go-yaml
        # the decimal integers read without the patterns, and where that reading stops
        ("0", 0),
        ("-0", 0),
        ("+0", 0),
        ("1_", 1),
        ("0_1", 1),
        ("999999999999999999", 999999999999999999),
        ("-999999999999999999", -999999999999999999),
        ("9223372036854775807", 9223372036854775807),
        ("9223372036854775808", 9223372036854775808),  # ParseUint's
        ("-9223372036854775809", -9.223372036854775809e18),  # neither: ParseFloat's
        ("+", "+"),
        ("-_", "-_"),
        ("١٢", "١٢"),  # Unicode digits: none of Go's
        ("12\u0663", "12\u0663"),
        ("1.5Gi", "1.5Gi"),
    ],
)
def test_plain_scalars_resolve_as_kubernetes_reads_them(text, value):
    resolved = yamlread.resolve_plain(text)
    assert resolved == value and type(resolved) is type(value)
    assert goyaml.safe_loader().load(f"a: !!str x\nb: {text}\n")["b"] == resolved  # the ruamel path agrees


def test_decimal_integers_and_quantities_resolve_without_compiling_a_pattern(monkeypatch):
    """A manifest's plain scalars that start with a digit are mostly decimal integers (ports,
    replicas) or no number at all (``500m``, ``1Gi``): neither compiles the resolver's patterns,
    which a lint after an edit would otherwise compile for nothing."""
    patterns = {name: regex.compile(getattr(yamlread, name).pattern) for name in ("_GO_INT", "_GO_UINT", "_YAML_FLOAT")}
    for name, pattern in patterns.items():
        monkeypatch.setattr(yamlread, name, pattern)
    yamlread._resolve_hinted.cache_clear()
    try:
        resolved = [yamlread.resolve_plain(text) for text in ("8080", "-3", "0", "500m", "1Gi", "2Ti", "30s")]
        assert resolved == [8080, -3, 0, "500m", "1Gi", "2Ti", "30s"]
        assert all(not vars(pattern).keys() - {"_source"} for pattern in patterns.values())  # none compiled
        assert yamlread.resolve_plain("0x1F") == 31 and "fullmatch" in vars(patterns["_GO_INT"])
    finally:
        yamlread._resolve_hinted.cache_clear()  # nothing resolved through the test's patterns stays


def test_map_keys_become_json_strings_and_null_or_complex_keys_are_located():
    [doc] = loader.parse_text("a:\n  1: x\n  yes: why\n  1.5: z\n", "k.yaml")
    assert doc.data == {"a": {"1": "x", "true": "why", "1.5": "z"}}
    for text, line, col in (("a: 1\n~: 2\n", 2, 1), ("a: 1\n? [x]\n: 2\n", 2, 3), ("a: {[x]: 1}\n", 1, 5)):
        [doc] = loader.parse_text(text, "k.yaml")
        assert "map key" in doc.error.message and (doc.error_line, doc.error_col) == (line, col), text


_CONFIGMAP_YAML11 = (
    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: flags}\ndata:\n"
    "  enabled: yes\n  quoted: \"on\"\n  mode: '0644'\n"
)


def test_yaml11_booleans_in_configmap_data_are_what_the_api_server_rejects(tmp_path):
    path = tmp_path / "cm.yaml"
    path.write_text(_CONFIGMAP_YAML11, encoding="utf-8")
    findings = lint_paths([str(path)], Settings()).findings
    assert [(f.rule, f.line) for f in findings] == [("K8S003", 5)]
    path.write_text(_CONFIGMAP_YAML11.replace("enabled: yes", 'enabled: "yes"'), encoding="utf-8")
    assert lint_paths([str(path)], Settings()).findings == []


# a KEDA ScaledObject trigger and an env list as upstream docs write them: flow mappings with URLs
_FLOW_URLS = """apiVersion: v1
kind: Pod
metadata: {name: exporter}
spec:
  containers:
    - name: app
      image: registry.k8s.io/pause:3.9
      env:
        - {name: PROM_URL, value: http://prometheus:9090}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: keda, labels: {app: x}}
data: {serverAddress: http://prom:9090, query: 'sum(rate(x[1m]))'}
dta: 1
"""


def test_flow_mappings_with_urls_parse_and_the_rest_is_checked(tmp_path):
    path = tmp_path / "flow.yaml"
    path.write_text(_FLOW_URLS, encoding="utf-8")
    [pod, cm] = loader.read(str(path), "flow.yaml").documents
    assert pod.data["spec"]["containers"][0]["env"] == [{"name": "PROM_URL", "value": "http://prometheus:9090"}]
    assert cm.data["data"]["serverAddress"] == "http://prom:9090"
    findings = lint_paths([str(path)], Settings()).findings
    assert [(f.rule, f.line) for f in findings if f.rule.startswith("K8S")] == [("K8S003", 15)]  # still checked
    path.write_text(
        "a: {url: http://x:1, b: [c}\n", encoding="utf-8"
    )  # the real error in such a document is the one named
    [finding] = lint_paths([str(path)], Settings()).findings
    assert finding.rule == "K8S001" and "expected ',' or ']'" in finding.message


@pytest.mark.parametrize(
    ("text", "line", "col", "words"),
    [
        ("apiVersion: v1\nkind: ConfigMap\ndata:\n  a: x\x01y\n", 4, 7, "control character U+0001"),
        ("apiVersion: v1\nkind: ConfigMap\n\tdata: {}\n", 3, 1, "tab"),
        ("apiVersion: v1\nkind: ConfigMap\ndata: [1,\n", 3, 10, "did not find expected node content"),
    ],
)
def test_yaml_errors_are_located_with_hints(tmp_path, text, line, col, words):
    path = tmp_path / "bad.yaml"
    path.write_text(text, encoding="utf-8")
    [finding] = lint_paths([str(path)], Settings()).findings
    assert (finding.rule, finding.line, finding.col) == ("K8S001", line, col)
    assert words in finding.message + finding.hint and finding.hint


def test_non_utf8_bytes_are_located(tmp_path):
    path = tmp_path / "latin1.yaml"
    path.write_bytes(b"apiVersion: v1\nkind: ConfigMap\ndata:\n  a: caf\xe9\n")
    [finding] = lint_paths([str(path)], Settings()).findings
    assert (finding.line, finding.col) == (4, 9) and "0xE9" in finding.message


def test_a_json_array_is_a_finding_like_a_yaml_sequence(tmp_path):
    for name, text in (("list.json", '[{"apiVersion": "v1"}]'), ("list.yaml", "- apiVersion: v1\n")):
        (tmp_path / name).write_text(text, encoding="utf-8")
    findings = lint_paths([str(tmp_path)], Settings()).findings
    assert [(f.rule, f.line, f.message) for f in findings] == 2 * [
        ("K8S001", 1, "error unmarshalling resource: a document must be a mapping (a Kubernetes object)")
    ]


def test_a_5001_digit_number_says_what_it_is(tmp_path):
    """go-yaml keeps a plain number past float64 a string; a tag on it cannot be honoured."""
    path = tmp_path / "big.yaml"
    path.write_text(
        "apiVersion: v1\nkind: Service\nmetadata: {name: a}\nspec:\n  ports:\n"
        f"    - port: {'1' * 5001}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: b}}\n"
        f"data:\n  n: !!int {'2' * 5001}\n",
        encoding="utf-8",
    )
    findings = [f for f in lint_paths([str(path)], Settings()).findings if f.rule.startswith("K8S")]
    assert [(f.rule, f.line, f.col) for f in findings] == [("K8S003", 6, 7), ("K8S001", 12, 6)]
    schema, tagged = findings
    assert "(5001 characters)" in schema.message and len(schema.message) < 200
    assert schema.hint == "a 5001-digit number, beyond 64-bit integers and floats: Kubernetes reads it as a string"
    assert "a 5001-digit number" in tagged.message and "as a !!int" in tagged.message and len(tagged.message) < 200


def test_lint_and_the_input_checker_give_the_same_hint_for_a_tab(tmp_path):
    from generator.errors import InputError
    from generator.yamlio.positions import load_text

    text = "apiVersion: v1\nkind: ConfigMap\n\tdata: {}\n"
    with pytest.raises(InputError) as raised:
        load_text(text, "cluster.yaml")
    path = tmp_path / "tab.yaml"
    path.write_text(text, encoding="utf-8")
    [finding] = lint_paths([str(path)], Settings()).findings
    assert raised.value.hint == finding.hint and "tab" in finding.hint


def test_findings_are_located_from_the_event_map_without_composing_the_document(monkeypatch):
    """The fast parse's event map gives the same line and column as composing the document,
    for keys, values and list items, and the document is not composed."""
    from generator.lint import model

    text = (
        "# head\napiVersion: v1\nkind: Pod\nmetadata: {name: a, labels: {x: 'y'}}\nspec:\n"
        "  containers:\n    - name: main\n      image: busybox\n      ports:\n        - containerPort: 80\n"
    )
    [doc] = loader.parse_text(text, "p.yaml")
    assert doc.where is not None
    composed = model.Document(doc.file, doc.text, doc.first_line, doc.data)  # no event map: composes
    paths = [
        (),
        ("metadata",),
        ("metadata", "labels", "x"),
        ("spec", "containers", 0, "image"),
        ("spec", "containers", 0, "ports", 0, "containerPort"),
        ("spec", "missing", "deeper"),
        ("spec", "containers", 5),
    ]
    expected = {(p, v): composed.position(p, v) for p in paths for v in (False, True)}
    expected_plain = [composed.plain_scalar(p) for p in paths]
    monkeypatch.setattr(YAML, "compose", lambda *a, **k: pytest.fail("composed again"))  # model composes with it
    assert {(p, v): doc.position(p, v) for p in paths for v in (False, True)} == expected
    assert [doc.plain_scalar(p) for p in paths] == expected_plain
    assert doc.plain_scalar(("metadata", "labels", "x")) is None  # quoted
    assert doc.plain_scalar(("spec", "containers", 0, "image")) == "busybox"


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("kind: Pod\n", 0),
        ("# head\n\n---\n  # indented\n\t\nkind: Pod\n# tail\n", 5),
        ("---\r\n# c\r\nkind: Pod\r\n", 2),
        ("# c\n----\n", 1),  # not a marker: content
        ("#\n---\n", 0),  # no content: the document's first line
        ("", 0),
        ("\n\nkind: Pod", 2),  # no newline at the end
    ],
)
def test_an_object_starts_at_its_first_line_that_is_not_blank_a_comment_or_a_marker(text, line):
    from generator.lint.model import first_content_line

    assert first_content_line(text) == line


def test_only_documents_with_a_finding_are_read_again_for_positions(tmp_path, monkeypatch):
    """The first parse keeps no events; a document is parsed again for a position (by the
    compiled reader for the path alone, or for its event map) only when a finding in it needs one."""
    located = record_position_reads(monkeypatch)
    path = tmp_path / "two.yaml"
    path.write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: good}\n---\n"
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bad}\ndta: {}\n",
        encoding="utf-8",
    )
    [finding] = lint_paths([str(path)], Settings()).findings
    assert (finding.rule, finding.line, finding.col) == ("K8S003", 8, 1)
    assert len(located) == 1 and "name: bad" in located[0]


def test_an_object_with_several_findings_is_read_once_for_their_positions(tmp_path, monkeypatch):
    located = record_position_reads(monkeypatch)
    path = tmp_path / "pod.yaml"
    path.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: team}\nspec:\n"
        "  hostNetwork: true\n  containers:\n  - name: c\n    image: busybox\n"
        "    securityContext: {privileged: true}\n    resources: {requests: {cpu: 2}, limits: {cpu: 1}}\n",
        encoding="utf-8",
    )
    findings = lint_paths([str(path)], Settings()).findings
    assert len({(f.line, f.col) for f in findings}) >= 3 and len(located) == 1
    assert {(f.rule, f.line) for f in findings} >= {("SEC001", 9), ("SEC003", 5), ("K8S009", 10)}


def test_a_file_that_grows_while_it_is_read_is_read_to_its_end(tmp_path, monkeypatch):
    """The read is sized by the file's measured size; bytes written after the measure are read too."""
    path = tmp_path / "cm.yaml"
    path.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n", encoding="utf-8")
    real_stat = loader.os.stat

    class Shrunk:
        def __init__(self, info):
            self.st_mode, self.st_size = info.st_mode, 5

    monkeypatch.setattr(loader.os, "stat", lambda p: Shrunk(real_stat(p)))
    assert loader.raw(str(path)) == path.read_bytes()


def test_documents_of_a_file_are_checked_one_at_a_time():
    """``Engine.check_file`` drops each document before it takes the next: a file of many
    documents never has them all in memory."""
    import gc
    import weakref

    from generator.lint.engine import Engine

    text = "\n---\n".join(f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c{i}}}" for i in range(50))
    alive: list[weakref.ref] = []

    def documents():
        for doc in loader.iter_text(text, "many.yaml"):
            gc.collect()
            # the one just checked may still be the consumer's loop variable; no other
            assert sum(1 for ref in alive if ref() is not None) <= 1, "earlier documents are still held"
            alive.append(weakref.ref(doc))
            yield doc

    gc.freeze()  # what the process held before is not the subject: each collect scans only the new
    try:
        result = Engine(Settings(), None).check_file("many.yaml", documents())
    finally:
        gc.unfreeze()
    assert len(alive) == 50 and result.objects == 50 and [r.name for r in result.refs][-1] == "c49"


def test_split_documents_counts_lines_like_the_file():
    text = "a: 1\n---\nb: 2\n\n--- # x\nc: 3\n---\n"
    docs = list(loader.split_documents(text))
    assert [start for start, _ in docs] == [0, 1, 4, 6]
    lines = text.split("\n")
    for start, chunk in docs:
        assert chunk.split("\n")[0] == lines[start]


# A manifest templated for CloudFormation-style tooling, applied as is: local tags on values
_LOCAL_TAGS = """apiVersion: v1
kind: ConfigMap
metadata: {name: aws-env}
data:
  region: !Ref AWS::Region
  bucket: !Sub "${AWS::StackName}-models"
---
apiVersion: v1
kind: Service
metadata: {name: triton}
spec:
  ports:
    - port: !Ref 8000
  selector: !labels {app: triton}
"""


def test_a_local_tag_is_read_as_go_yaml_reads_it(tmp_path):
    """go-yaml v2 (sigs.k8s.io/yaml) cannot resolve `!Ref`, so the value is its text, even `8000`
    (a string the Service schema rejects, as the API server does); collections ignore their tag."""
    path = tmp_path / "tagged.yaml"
    path.write_text(_LOCAL_TAGS, encoding="utf-8")
    [cm, svc] = loader.read(str(path), "tagged.yaml").documents
    assert cm.data["data"] == {"region": "AWS::Region", "bucket": "${AWS::StackName}-models"}
    assert svc.data["spec"] == {"ports": [{"port": "8000"}], "selector": {"app": "triton"}}
    findings = [f for f in lint_paths([str(path)], Settings()).findings if f.rule.startswith("K8S")]
    assert [(f.rule, f.line) for f in findings] == [("K8S003", 13)]
    assert "spec.ports[0].port" in findings[0].message


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("a: !!python/name:os.system x\n", {"a": "x"}),
        ("a: !!map x\n", {"a": "x"}),
        ("a: !!str [1, yes]\n", {"a": [1, True]}),
        ("a: !foo\n  - yes\n", {"a": [True]}),
        ("!foo a: b\n", {"a": "b"}),
        ("a: !!set {x, z}\n", {"a": {"x": None, "z": None}}),
        ("a: !!omap [x: 1]\n", {"a": [{"x": 1}]}),
    ],
)
def test_tags_go_yaml_cannot_resolve_keep_the_node_kind(text, value):
    [doc] = loader.parse_text(text, "k.yaml")
    assert doc.error is None and doc.data == value


def test_gpu_gitops_inputs_are_not_linted_as_kubernetes_objects():
    """A project's own inputs carry the input contract's apiVersion: lint of the whole repository
    (clusters/ included) neither schema-checks them as Kubernetes objects nor warns they lack a schema."""
    from conftest import REPO

    from generator.inputs import contract
    from generator.lint import engine

    assert f"{contract.GROUP}/" in engine._NOT_CLUSTER_GROUPS
    result = lint_paths([str(REPO / "clusters")], Settings())
    assert result.findings == []
    assert len(result.sources) >= 7 and sum(source.objects for source in result.sources) == 0


CR_ONLY = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: two\n"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (CR_ONLY, []),
        (CR_ONLY.replace("\n", "\r\n"), []),  # kubectl trims a CR before the LF
        # kubectl reads the whole file as one document and applies `one` alone
        # (`kubectl label --local -f` prints configmap/one)
        (CR_ONLY.replace("\n", "\r"), [(5, "kubectl applies nothing from this document")]),
        # one CR-only line end is enough: the separator after it is unseen
        (CR_ONLY.replace("one\n", "one\r"), [(5, "kubectl applies nothing from this document")]),
        # kubectl's first line is all of the file: "invalid Yaml document separator"
        ("---\r" + CR_ONLY.replace("\n", "\r"), [(1, "kubectl refuses this file"), (6, "kubectl applies nothing")]),
        ("--- # c\r\n" + CR_ONLY, []),
    ],
)
def test_a_separator_kubectl_does_not_split_on_is_a_warning(tmp_path, text, expected):
    """kubectl splits documents at LF line ends only; both documents are still linted here."""
    path = tmp_path / "cr.yaml"
    path.write_bytes(text.encode("utf-8"))
    assert [r.name for r in loader.read(str(path), "cr.yaml").resources] == ["one", "two"]
    findings = lint_paths([str(path)], Settings()).findings
    got = [(f.rule, f.severity, f.line, f.message) for f in findings]
    assert len(got) == len(expected), got
    for (rule, severity, line, message), (want_line, want) in zip(got, expected, strict=True):
        assert (rule, severity, line) == ("K8S001", "warning", want_line) and message.startswith(want), got
