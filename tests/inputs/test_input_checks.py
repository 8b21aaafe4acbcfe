"""Every input check against its fixtures and its docstring's examples, through the real
loading path (``load_cluster``: read, schema, defaults, conventions, the checks).

A fixture is a whole ``cluster.yaml`` under ``tests/fixtures/<ID>/{pass,fail}/``. A failing
one marks each line where its check must report with ``# <- IN123``; the test compares the set
of (line, ID) pairs, so a finding on the wrong line fails as much as a missing one. A passing
fixture, and a PASS example, must load with no error at all (a schema error would stop the
load before any check ran and pass for the wrong reason); a FAIL example gives exactly one
finding of its check and no error of another. An input whose first line is
``# gpu-gitops-project: git`` is loaded in a project at the top of a git work tree (IN111).
"""

from __future__ import annotations

import re
import subprocess
from importlib import import_module
from pathlib import Path

import pytest
from conftest import REPO

from generator import ruledoc
from generator.diagnostic import Diagnostic
from generator.errors import InputError, InputErrors
from generator.inputs import consistency
from generator.inputs.load import load_cluster
from generator.paths import Project

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
_MARK = re.compile(r"#\s*<-\s*([A-Z][A-Z0-9]*[0-9]{3})")
_NAME = re.compile(r"^name:\s*(\S+)\s*$", re.M)


_IN_GIT = "# gpu-gitops-project: git\n"


def _new_project(root: Path) -> Path:
    """A project of the repository's library and schemas, and no clusters yet."""
    for part in ("libsonnet", "schemas"):
        (root / part).symlink_to(REPO / part)
    (root / "clusters").mkdir()
    return root


@pytest.fixture(scope="module")
def projects(tmp_path_factory) -> dict[bool, Path]:
    """Two projects: outside any git work tree (False) and at the top of one (True)."""
    in_git = _new_project(tmp_path_factory.mktemp("in-git"))
    subprocess.run(["git", "init", "-q", str(in_git)], check=True, capture_output=True)
    return {False: _new_project(tmp_path_factory.mktemp("project")), True: in_git}


@pytest.fixture(scope="module")
def project(projects) -> Path:
    return projects[False]


def _load(projects: dict[bool, Path], text: str) -> list[Diagnostic]:
    """Every diagnostic (errors and warnings) of loading ``text`` as a cluster's input."""
    project = projects[text.startswith(_IN_GIT)]
    name = _NAME.search(text)
    assert name, "the input names its cluster"
    folder = project / "clusters" / name[1]
    folder.mkdir(exist_ok=True)
    (folder / "cluster.yaml").write_text(text, encoding="utf-8")
    try:
        cluster = load_cluster(Project(project), name[1])
    except InputErrors as exc:
        return [d for e in exc.errors for d in e.diagnostics]
    except InputError as exc:
        return list(exc.diagnostics)
    return [d for w in cluster.warnings for d in w.diagnostics]


def _cases(verdict: str):
    ids = set(consistency.BY_ID)
    return sorted(
        (p.parent.parent.name, p) for p in FIXTURES.glob(f"*/{verdict}/*.yaml") if p.parent.parent.name in ids
    )


@pytest.mark.parametrize(("check_id", "path"), _cases("fail"), ids=lambda v: getattr(v, "name", v))
def test_failing_fixture_reports_marked_lines(projects, check_id, path):
    text = path.read_text(encoding="utf-8")
    expected = {(n, m[1]) for n, line in enumerate(text.splitlines(), 1) for m in _MARK.finditer(line)}
    assert expected, f"{path} marks no line"
    found = _load(projects, text)
    assert {(d.line, d.rule) for d in found if d.rule == check_id} == expected, [
        f"{d.location}: {d.message}" for d in found
    ]
    assert {d.severity for d in found if d.rule == check_id} == {consistency.BY_ID[check_id].meta.severity}


@pytest.mark.parametrize(("check_id", "path"), _cases("pass"), ids=lambda v: getattr(v, "name", v))
def test_passing_fixture_loads_clean(projects, check_id, path):
    assert [d.message for d in _load(projects, path.read_text(encoding="utf-8"))] == []


def _examples():
    return [
        pytest.param(check.meta, example, id=f"{check.meta.id}-{example.verdict}-{n}")
        for check in consistency.REGISTRY
        for n, example in enumerate(ruledoc.split(check.meta.doc)[1], 1)
    ]


@pytest.mark.parametrize(("meta", "example"), _examples())
def test_docstring_examples_do_what_they_say(projects, meta, example):
    found = _load(projects, example.text)
    if example.verdict == "PASS":
        assert [d.message for d in found] == []
    else:
        assert [d.rule for d in found if d.severity == "error" or d.rule == meta.id] == [meta.id], found


def test_every_check_has_an_id_docs_examples_and_fixtures():
    assert consistency.REGISTRY, "the registry lists the checks"
    for name in consistency._MODULES:
        module = import_module(f"{consistency.__name__}.{name}")
        meta = module.CHECK.meta
        assert meta is module.META and meta.doc == module.__doc__, name
        assert re.fullmatch(r"IN[1-5][0-9]{2}", meta.id), meta.id
        assert meta.severity in ("error", "warning") and meta.summary and meta.name, meta.id
        assert name.startswith(meta.id.lower() + "_"), (meta.id, name)
        description, rationale, fix = ruledoc.sections(meta.doc)
        assert description and rationale and fix, meta.id
        assert {e.verdict for e in ruledoc.split(meta.doc)[1]} == {"PASS", "FAIL"}, meta.id
        assert list((FIXTURES / meta.id / "fail").glob("*.yaml")), meta.id
        assert list((FIXTURES / meta.id / "pass").glob("*.yaml")), meta.id
    assert len(consistency.BY_ID) == len(consistency.REGISTRY), "IDs are unique"


def test_an_input_checks_id_is_in_the_message_and_explain_knows_it(project, run):
    check = consistency.REGISTRY[0].meta
    [fail] = sorted((FIXTURES / check.id / "fail").glob("*.yaml"))[:1]
    text = fail.read_text(encoding="utf-8")
    name = _NAME.search(text)[1]
    (project / "clusters" / name).mkdir(exist_ok=True)
    (project / "clusters" / name / "cluster.yaml").write_text(text, encoding="utf-8")
    result = run(project, "render", name)
    assert result.exit_code == 2
    assert re.search(rf"clusters/{name}/cluster\.yaml:\d+:\d+: error: .* \[{check.id}\]$", result.stderr, re.M)
    explained = run(project, "explain", check.id.lower())
    assert explained.exit_code == 0, explained.stderr
    assert explained.stdout.startswith(f"{check.id} {check.name} ({check.severity}, input check)")
    assert "Why:" in explained.stdout and "--- fail\n" in explained.stdout and "--- pass\n" in explained.stdout


def test_a_pod_cidr_that_is_no_cidr_is_reported_once(projects):
    """IN101 words it; the Cilium checks pass over what they cannot parse."""
    text = (FIXTURES / "IN335" / "pass" / "example.yaml").read_text(encoding="utf-8")
    found = _load(projects, text.replace("podCIDRs: [10.244.0.0/16]", "podCIDRs: [10.244.0.0/33]"))
    assert [d.rule for d in found] == ["IN101"], found
