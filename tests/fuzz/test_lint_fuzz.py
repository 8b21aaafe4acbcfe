"""Mutated manifests through ``gpu-gitops lint``, in-process, as YAML and as JSON.

Seeds are the repository's rendered files and, when ../shared is here, a few upstream
manifests (read in place, never copied). The property: exit 0, 1 or 2, never a traceback;
every finding has a line and a column; the machine-readable reports parse.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st
from ruamel.yaml import YAML

from generator.cli import cli
from generator.report import FORMATS
from tests.conftest import CRD_SCHEMAS, REPO
from tests.fuzz.budget import fuzz_settings
from tests.fuzz.known import skip_known, skip_known_message
from tests.fuzz.mutations import huge_ints, mutated_yaml, unlimited_int_digits, values

# Rendered files and upstream manifests are drawn equally often, though there are far more
# of the first.
SEED_GROUPS = [
    group
    for group in (
        sorted((REPO / "rendered").rglob("*.yaml")),
        sorted(p for p in (CRD_SCHEMAS.parent / "upstream-examples").rglob("*") if p.suffix in (".yaml", ".yml")),
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
    shape = draw(st.integers(0, 7))
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
    return suffix, draw(mutated_yaml(seed.read_text()))


def check_report(fmt: str, text: str) -> None:
    """The machine-readable formats parse; JSON findings all have a line and a column."""
    if fmt == "json":
        for finding in json.loads(text)["findings"]:
            assert finding["line"] >= 1 and finding["column"] >= 1, f"finding without a position: {finding}"
    elif fmt == "sarif":
        json.loads(text)
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
        if result.exit_code != 2:
            check_report(chosen, result.stdout)
