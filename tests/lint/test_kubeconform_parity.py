"""Same verdicts as kubeconform on its own fixture corpus (the offline rows of EXPECTED.md).

Each row of ../shared/peer/kubeconform/EXPECTED.md names a fixture, kubeconform flags and
the verdict. The flags are translated to ours; the worst verdict (valid / invalid / error)
and the exit code must match (our usage errors, exit 2, count as kubeconform's exit-1 errors).
Rows that test kubeconform's own command-line features, need the network, or whose
fixture is missing are listed in SKIP with the reason.
"""

from __future__ import annotations

import re
import shlex

import pytest
from click.testing import CliRunner
from conftest import SHARED, needs_shared

from generator.cli import cli

PEER = SHARED / "peer" / "kubeconform"
EXPECTED = PEER / "EXPECTED.md"

SKIP = {
    "A1": "kubeconform's -h",
    "A2": "kubeconform's flag parsing",
    "A38/A39": "no fixture (empty stdin)",
    "A32": "kubeconform requires X.Y.Z; we accept X.Y",
    "A40": "-skip is not a lint option",
    "A41": "-skip is not a lint option",
    "A42": "-skip is not a lint option",
    "A43": "-reject is not a lint option",
    "A44": "-ignore-filename-pattern: lint uses lint.exclude globs",
    "A47": "kubeconform's -cache folder check",
    "A49": "TAP output",
    "A59": "JUnit output is tested in test_reports",
    "A56": "proxy environment",
    "A30": "bundled core schemas always apply; kubeconform drops its default when -schema-location is given",
    "A29": "would resolve a host name",
    "N1": "needs a build without schemas",
    # `key: value` has no apiVersion, kind or metadata: lint passes it by as no manifest (a values or
    # tool file beside the manifests; nonmanifests.Objects), where kubeconform reports the missing
    # kind; A19 (`kind:` empty) is still an error in both
    "A17": "a file with no object-like document is no manifest",
}
# Rules that judge what kubeconform does not (the API server's checks beyond the schema), off for
# the comparison: its fixtures' DaemonSets select labels their templates lack (K8S006).
BEYOND_SCHEMA = ("K8S006", "K8S007", "K8S008", "K8S009", "K8S010")


def _rows():
    rows, previous = [], ""
    for line in EXPECTED.read_text(encoding="utf-8").splitlines() if EXPECTED.is_file() else []:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 7 or not re.match(r"^[AN]\d", cells[1]):
            continue
        fixture, test, flags, outcome, code, _net, offline = cells
        outcome = previous if outcome.startswith("same") else outcome  # "same, ..." repeats the row above
        previous = outcome
        if test in SKIP or offline.startswith(("n/a", "no ", "fixture missing")) or "<" in flags:
            continue
        rows.append(pytest.param(fixture, flags.strip("`"), outcome, int(code), id=f"{test}-{fixture}"))
    return rows


def _verdict(outcome: str) -> str:
    text = outcome.lower()
    if text.startswith("error") or " error" in text or "failed" in text:
        return "error"
    return "invalid" if "invalid" in text else "valid"


def _translate(flags: str) -> list[str]:
    args, words = [], shlex.split(flags.replace("(none)", ""))
    strict = "-strict" in words
    i = 0
    while i < len(words):
        word = words[i]
        if word == "-kubernetes-version":
            args += ["--kubernetes-version", "1.32" if words[i + 1] == "1.20.0" else words[i + 1]]
            i += 1
        elif word == "-schema-location":
            args += ["--schema-location", words[i + 1]]
            i += 1
        elif word == "-cache":
            args += ["--schema-cache", words[i + 1]]
            i += 1
        elif word == "-ignore-missing-schemas":
            args.append("--ignore-missing-schemas")
        i += 1
    # kubeconform fails on a missing schema unless told to skip it: our --require-schemas
    missing = [] if "--ignore-missing-schemas" in args else ["--require-schemas"]
    return args + missing + ([] if strict else ["--no-strict"])


@needs_shared(EXPECTED, "kubeconform's expected verdicts")
@pytest.mark.parametrize(("fixture", "flags", "outcome", "code"), _rows())
def test_same_verdict_as_kubeconform(fixture, flags, outcome, code, monkeypatch, tmp_path):
    monkeypatch.chdir(PEER)
    monkeypatch.setenv("GPU_GITOPS_SCHEMA_CACHE", str(tmp_path / "cache"))
    stdin = None
    name = fixture.split()[0]
    if "(stdin)" in fixture:
        stdin, targets = (PEER / "fixtures" / name).read_text(encoding="utf-8"), ["-"]
    elif "," in fixture and "(" not in fixture:
        targets = [f"fixtures/{n.strip()}" for n in fixture.split(",")]
    else:
        targets = [f"fixtures/{name.rstrip('/')}"]
    (tmp_path / ".gpu-gitops.yaml").write_text(
        "lint:\n  rules:\n" + "".join(f"    {rule}: off\n" for rule in BEYOND_SCHEMA), encoding="utf-8"
    )
    result = CliRunner().invoke(
        cli,
        ["--root", str(tmp_path), "--color", "never", "lint", "--format", "json", *_translate(flags), *targets],
        input=stdin,
        catch_exceptions=False,
    )
    expected = _verdict(outcome)
    if result.exit_code == 2:
        ours = "error"
    else:
        import json

        rules = {f["rule"] for f in json.loads(result.stdout)["findings"] if f["severity"] == "error"}
        ours = "error" if rules & {"K8S001", "K8S002", "K8S004", "API001"} else ("invalid" if rules else "valid")
    assert ours == expected, result.output
    assert min(result.exit_code, 1) == code
