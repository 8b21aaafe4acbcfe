"""ruamel's error texts as users read them."""

from generator.lint import lint_paths
from generator.lint.settings import Settings
from generator.yamlio.messages import duplicate_key


def test_duplicate_key_keeps_only_the_key():
    assert duplicate_key('found duplicate key "name" with value "b" (original value: "a")') == "duplicate key 'name'"
    assert duplicate_key("found duplicate key") == "found duplicate key"


def test_lint_reports_a_duplicate_key_at_the_second_one(tmp_path):
    path = tmp_path / "cm.yaml"
    path.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  name: b\n")
    [finding] = lint_paths([str(path)], Settings()).findings
    assert (finding.rule, finding.line, finding.col) == ("K8S001", 5, 3)
    assert finding.message == "error unmarshalling resource: duplicate key 'name'"
