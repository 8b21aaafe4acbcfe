"""Mutated cluster inputs through ``gpu-gitops render``, in-process.

The property: exit 0 or 2, never a traceback; nothing printed carries a raw control
character; on exit 2 every error is located (``path:line:col: error:``, or ``path: error:``
for a problem of the whole file) and has a ``hint:``, and the tree rendered before is
byte-identical afterwards.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import EXAMPLES, REPO
from hypothesis import given
from hypothesis import strategies as st

from generator.cli import cli
from tests.fuzz.budget import fuzz_settings
from tests.fuzz.known import raw_control, skip_known, skip_known_message
from tests.fuzz.mutations import mutated_yaml

LOCATED = re.compile(r"^\S.*?:(?P<line>[1-9]\d*):[1-9]\d*: error: \S")
FILE_LEVEL = re.compile(r"^\S.*?: error: \S")
# Problems of the whole file, which no line or column can point at.
WHOLE_FILE = ("larger than the", "not a regular file", "cannot read file", "expands to more than")


def snapshot(folder: Path) -> dict[str, bytes | None]:
    """Every path under ``folder`` → its bytes (None for a folder)."""
    return {str(p.relative_to(folder)): None if p.is_dir() else p.read_bytes() for p in sorted(folder.rglob("*"))}


@pytest.fixture(scope="module")
def fuzz_project(tmp_path_factory) -> Path:
    """A project with the examples' inputs, library and committed rendered trees."""
    root = tmp_path_factory.mktemp("fuzz") / "proj"
    root.mkdir()
    for name in ("clusters", "libsonnet", "schemas", "rendered"):
        shutil.copytree(REPO / name, root / name)
    return root


def check_error_output(stderr: str, data: bytes) -> None:
    """Every ``error:`` line is located inside the input (or is about the whole file) and
    is followed by a hint."""
    # every line break YAML knows, and a few more: a bound, not an exact count
    line_count = len(data.decode("utf-8", "replace").splitlines()) + 1
    lines = stderr.split("\n")
    errors = [i for i, line in enumerate(lines) if " error: " in line or line.startswith("error: ")]
    assert errors, f"exit 2 without an error line:\n{stderr}"
    for i in errors:
        line = lines[i]
        at_line = LOCATED.match(line)
        located = at_line or (FILE_LEVEL.match(line) and any(w in line for w in WHOLE_FILE))
        hinted = i + 1 < len(lines) and lines[i + 1].startswith("  hint: ")
        if not (located and hinted):
            skip_known_message(line)
        assert located, f"error without line and column:\n{line}"
        assert hinted, f"error without a hint:\n{line}"
        if at_line:
            assert int(at_line["line"]) <= line_count, f"error past the end of the {line_count}-line input:\n{line}"


# Keys ``explain-input`` is asked about: a top-level scalar, nested mappings, a list item.
EXPLAINED = ("kubernetesVersion", "gitops.engine", "gpu", "nodePools[0].gpu.perNode", "network.cilium.mtu")


def explain_mutated(root: Path, cluster: str, key: str, data: bytes) -> None:
    """``explain-input`` on the mutated input: the same property as render (it reads the input
    and its bases the same way, at a fraction of render's cost)."""
    with skip_known():
        result = CliRunner().invoke(
            cli, ["--root", str(root), "--color", "never", "explain-input", cluster, key], catch_exceptions=False
        )
    assert result.exit_code in (0, 2), f"explain-input: exit {result.exit_code}:\n{result.output}"
    raw = raw_control(result.stdout + result.stderr)
    assert raw is None, f"raw {raw!r} printed by explain-input:\n{result.output!r}"
    if result.exit_code == 2 and not result.stderr.startswith("error: no key "):  # the key, not the input
        check_error_output(result.stderr, data)


def render_mutated(root: Path, cluster: str, data: bytes, explained: str | None = None) -> None:
    """Write ``data`` as the cluster's input, render it (and explain ``explained`` in it), check
    the property, restore the project."""
    input_file = root / "clusters" / cluster / "cluster.yaml"
    tree = root / "rendered" / cluster
    before = snapshot(tree)
    input_file.write_bytes(data)
    try:
        if explained is not None:
            explain_mutated(root, cluster, explained, data)
        with skip_known():
            result = CliRunner().invoke(
                cli, ["--root", str(root), "--color", "never", "render", cluster], catch_exceptions=False
            )
        assert result.exit_code in (0, 2), f"exit {result.exit_code}:\n{result.output}"
        raw = raw_control(result.stdout + result.stderr)
        assert raw is None, f"raw {raw!r} printed:\n{result.output!r}"
        if result.exit_code == 2:
            check_error_output(result.stderr, data)
            assert snapshot(tree) == before, "a failed render changed the rendered tree"
            leftovers = [p.name for p in (root / "rendered").iterdir() if p.name.startswith((".tmp.", ".old."))]
            assert not leftovers, f"a failed render left {leftovers}"
    finally:
        shutil.copyfile(REPO / "clusters" / cluster / "cluster.yaml", input_file)
        if snapshot(tree) != before:
            shutil.rmtree(tree)
            shutil.copytree(REPO / "rendered" / cluster, tree)


@st.composite
def mutated_cluster(draw) -> tuple[str, bytes]:
    cluster = draw(st.sampled_from(EXAMPLES))
    text = (REPO / "clusters" / cluster / "cluster.yaml").read_text(encoding="utf-8")
    return cluster, draw(mutated_yaml(text))


@pytest.mark.slow
@fuzz_settings()
@given(case=mutated_cluster(), explained=st.sampled_from(EXPLAINED))
def test_render_survives_mutated_inputs(fuzz_project, case, explained):
    cluster, data = case
    render_mutated(fuzz_project, cluster, data, explained)
