"""ruamel's error texts as users read them."""

from generator.lint import lint_paths
from generator.lint.settings import Settings
from generator.yamlio.messages import duplicate_key


def test_duplicate_key_keeps_only_the_key():
    assert duplicate_key('found duplicate key "name" with value "b" (original value: "a")') == "duplicate key 'name'"
    assert duplicate_key("found duplicate key") == "found duplicate key"


def test_lint_reports_a_duplicate_key_at_the_second_one(tmp_path):
    path = tmp_path / "cm.yaml"
    path.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  name: b\n", encoding="utf-8")
    [finding] = lint_paths([str(path)], Settings()).findings
    assert (finding.rule, finding.line, finding.col) == ("K8S001", 5, 3)
    assert finding.message.startswith("duplicate key 'name': kubectl apply keeps the last value")
    assert "kubeconform -strict rejects" in finding.message


def test_a_duplicate_key_leaves_the_rest_of_the_document_checked_with_the_last_value(tmp_path):
    """kubectl reads the later value (go-yaml v2); the document's other problems are still found,
    every repeat is named, and --no-strict lets repeats pass as kubectl does."""
    path = tmp_path / "cm.yaml"
    path.write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  name: b\ndata:\n  k: v\n  k: w\nbinaryData: 3\n",
        encoding="utf-8",
    )
    findings = lint_paths([str(path)], Settings()).findings
    assert [(f.rule, f.line) for f in findings] == [("K8S001", 5), ("K8S001", 8), ("K8S003", 9)]
    assert findings[0].ref is None or findings[2].ref.name == "b"
    loose = lint_paths([str(path)], Settings(strict=False)).findings
    assert [(f.rule, f.line) for f in loose] == [("K8S003", 9)]
