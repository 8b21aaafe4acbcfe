"""Mutated manifests through ``gpu-gitops lint``, in-process, as YAML and as JSON.

Seeds are the repository's rendered files and, when ../shared is here, a few upstream
manifests (read in place, never copied). The property: exit 0, 1 or 2, never a traceback
(nor a signal: deep nesting is tried in a process of its own); every finding has a line, a
column and a hint; nothing printed carries a raw control character, nor does a message or
hint of the JSON and SARIF reports; the machine-readable reports parse.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import REPO, SHARED
from hypothesis import given
from hypothesis import strategies as st
from ruamel.yaml import YAML

from generator.cli import cli
from generator.report import FORMATS
from tests.fuzz.budget import fuzz_settings
from tests.fuzz.known import raw_control, skip_known, skip_known_message
from tests.fuzz.mutations import deep_json, huge_ints, mutated_yaml, unlimited_int_digits, values

# Rendered files and upstream manifests are drawn equally often, though there are far more
# of the first.
SEED_GROUPS = [
    group
    for group in (
        sorted((REPO / "rendered").rglob("*.yaml")),
        sorted(p for p in (SHARED / "upstream-examples").rglob("*") if p.suffix in (".yaml", ".yml")),
    )
    if group
]

# Top levels that are not an object, in JSON: what a script writes by mistake.
JSON_TOPS = st.one_of(
    st.lists(values, max_size=3),
    st.text(max_size=8),
    st.integers(),
    huge_ints,
    st.floats(),
    st.booleans(),
    st.none(),
    st.just([]),
    st.just({}),
)


@st.composite
def seed_object(draw) -> dict:
    seed = draw(st.sampled_from(draw(st.sampled_from(SEED_GROUPS))))
    documents = [d for d in YAML(typ="safe").load_all(seed.read_text(encoding="utf-8")) if isinstance(d, dict)]
    return json.loads(json.dumps(draw(st.sampled_from(documents)), default=str))  # seeds may hold several


@st.composite
def manifest(draw) -> tuple[str, bytes]:
    """(file suffix, content): a mutated seed, as YAML or JSON, or a JSON document of any shape."""
    suffix = draw(st.sampled_from([".yaml", ".yml", ".json"]))
    shape = draw(st.integers(0, 8))
    if shape == 8:
        return ".json", draw(deep_json())
    if shape <= 1:
        if shape == 0:
            top = draw(JSON_TOPS)
        else:  # real objects in an array, or in a v1 List as kubectl writes them
            objects = [draw(seed_object()) for _ in range(draw(st.integers(1, 3)))]
            top = draw(st.sampled_from([objects, {"apiVersion": "v1", "kind": "List", "items": objects}]))
        with unlimited_int_digits():
            text = json.dumps(top, ensure_ascii=draw(st.booleans()), default=str)
        return suffix, text.encode("utf-8", "surrogatepass")
    seed = draw(st.sampled_from(draw(st.sampled_from(SEED_GROUPS))))
    return suffix, draw(mutated_yaml(seed.read_text(encoding="utf-8")))


def check_report(fmt: str, text: str) -> None:
    """The machine-readable formats parse; JSON findings all have a line, a column and a
    hint; no message carries a raw control character."""
    if fmt == "json":
        for finding in json.loads(text)["findings"]:
            assert finding["line"] >= 1 and finding["column"] >= 1, f"finding without a position: {finding}"
            assert finding.get("hint"), f"finding without a hint: {finding}"
            raw = raw_control(finding["message"] + finding["hint"])
            assert raw is None, f"raw {raw!r} in {finding}"
    elif fmt == "sarif":
        for run in json.loads(text)["runs"]:
            for result in run["results"]:
                raw = raw_control(result["message"]["text"])
                assert raw is None, f"raw {raw!r} in {result['message']}"
    elif fmt == "junit":
        try:
            ElementTree.fromstring(text)
        except ElementTree.ParseError as exc:
            subject = f"junit report is not XML: {exc}"
            skip_known_message(subject)
            raise AssertionError(subject) from None


@pytest.fixture(scope="module")
def lint_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("lintfuzz")


@pytest.mark.slow
@fuzz_settings(default=100)
@given(case=manifest(), fmt=st.sampled_from(FORMATS), stdin=st.booleans())
def test_lint_survives_mutated_manifests(lint_dir, case, fmt, stdin):
    suffix, data = case
    path = lint_dir / f"manifest{suffix}"
    path.write_bytes(data)
    for chosen in dict.fromkeys(["json", fmt]):  # json always: it carries every finding's position
        args = ["--root", str(lint_dir), "--color", "never", "lint", "-o", chosen, "-" if stdin else str(path)]
        with skip_known():
            result = CliRunner().invoke(cli, args, input=data if stdin else None, catch_exceptions=False)
        assert result.exit_code in (0, 1, 2), f"exit {result.exit_code}:\n{result.output}"
        printed = result.stderr + ("" if chosen in ("json", "sarif") else result.stdout)
        raw = raw_control(printed)
        assert raw is None, f"raw {raw!r} printed:\n{printed!r}"
        if result.exit_code != 2:
            check_report(chosen, result.stdout)
