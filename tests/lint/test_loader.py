"""Parsing: documents keep their file lines, errors stay in their document, limits hold."""

from __future__ import annotations

from generator.lint import lint_paths, loader
from generator.lint.settings import Settings


def test_documents_keep_their_line_offsets_and_lists_expand(tmp_path):
    text = ("# leading comment\n---\napiVersion: v1\nkind: List\nitems:\n"
            "  - apiVersion: v1\n    kind: ConfigMap\n    metadata: {name: a}\n"
            "  - apiVersion: v1\n    kind: ConfigMap\n    metadata: {name: b}\n    dta: {}\n")
    path = tmp_path / "list.yaml"
    path.write_text(text)
    source = loader.read(str(path), "list.yaml")
    assert [r.name for r in source.resources] == ["a", "b"]
    findings = lint_paths([str(path)], Settings()).findings
    assert [(f.rule, f.line, f.col, f.ref.name) for f in findings] == [("K8S003", 12, 5, "b")]


def test_timestamps_stay_strings_and_json_files_load(tmp_path):
    yaml_path = tmp_path / "cm.yaml"
    yaml_path.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  day: 2024-01-01\n")
    json_path = tmp_path / "cm.json"
    json_path.write_text('{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b"},\n "dta": 1}')
    findings = lint_paths([str(tmp_path)], Settings()).findings
    assert [(f.file.rsplit("/", 1)[1], f.rule, f.line) for f in findings] == [("cm.json", "K8S003", 2)]


def test_non_mapping_document_and_size_limit(tmp_path, monkeypatch):
    path = tmp_path / "scalar.yaml"
    path.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n# a list\n- 1\n- 2\n")
    findings = lint_paths([str(path)], Settings()).findings
    assert [(f.rule, f.line) for f in findings] == [("K8S001", 6)]
    monkeypatch.setattr(loader, "MAX_DOCUMENT_BYTES", 10)
    findings = lint_paths([str(path)], Settings()).findings
    assert {f.rule for f in findings} == {"K8S001"} and "byte limit" in findings[0].message


def test_deep_nesting_is_an_error_not_a_crash(tmp_path):
    path = tmp_path / "deep.yaml"
    path.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: " + "[" * 5000 + "]" * 5000 + "\n")
    findings = lint_paths([str(path)], Settings()).findings
    assert findings and findings[0].rule == "K8S001"


def test_separator_inside_text_splits_only_at_line_start():
    docs = list(loader.split_documents("a: '---'\n---\nb: 1\n--- # c\nc: 2"))
    assert [start for start, _ in docs] == [0, 1, 3]


def test_event_builder_gives_the_same_data_as_ruamel():
    """Every fixture document and a set of tricky scalars load alike through both paths."""
    from pathlib import Path

    from generator.lint import fastyaml

    yaml = loader._yaml()
    chunks = [chunk for path in sorted((Path(__file__).parent.parent / "fixtures").rglob("*.yaml"))
              for _, chunk in loader.split_documents(path.read_text())]
    chunks.append("a: 500m\nb: 1Gi\nc: 010\nd: 0x1F\ne: 1e3\nf: .5\ng: 2024-01-01\nh: yes\ni: ~\nj: '1'\n"
                  "k: -7\nl: +3\nm: 1_000\nn: 12:30\no: .inf\np: |\n  text\nq: &x 1\nr: *x\ns: !!str 5\n")
    fast = 0
    for chunk in chunks:
        try:
            expected = yaml.load(chunk)
        except Exception:  # noqa: BLE001 (syntax-error fixtures: the fallback reports them)
            continue
        try:
            assert fastyaml.load(chunk) == expected
            fast += 1
        except fastyaml.Fallback:
            pass
    assert fast > 50
    for text, value in (("a: 500m", "500m"), ("a: 7", 7), ("a: 2024-01-01", "2024-01-01"), ("a: yes", "yes")):
        assert fastyaml.load(text) == {"a": value}
