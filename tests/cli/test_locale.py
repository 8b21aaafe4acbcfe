"""The commands under a locale whose encoding is not UTF-8 (``LC_ALL=C`` without Python's UTF-8
mode): every file is read and written as UTF-8 whatever the locale says, and what is printed
reaches the terminal without an encoding error."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

C_LOCALE = {"PYTHONUTF8": "0", "LC_ALL": "C", "LANG": "C", "PYTHONIOENCODING": ""}


def gpu_gitops(root: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, **C_LOCALE}
    command = [sys.executable, "-c", "from generator.cli import main; main()", "--root", str(root), "--color", "never"]
    return subprocess.run([*command, *args], capture_output=True, env=env, check=False)


# each run as `gpu-gitops` runs it (its entry point, its exit code), one after another in one
# process: a report format's write is what differs between them, not the start-up
_RUNS = """
import json, sys
from generator.cli import main
codes = []
for args in json.loads(sys.argv[1]):
    sys.argv = ["gpu-gitops", *args]
    try:
        main(in_process=True)
    except SystemExit as exit:
        codes.append(exit.code)
print(json.dumps(codes))
"""


def gpu_gitops_runs(root: Path, runs: list[list[str]]) -> subprocess.CompletedProcess:
    """``gpu_gitops(root, *args)`` for each of ``runs`` in one process under the C locale; the
    last line printed is the list of their exit codes."""
    env = {**os.environ, **C_LOCALE}
    options = ["--root", str(root), "--color", "never"]
    command = [sys.executable, "-c", _RUNS, json.dumps([[*options, *args] for args in runs])]
    return subprocess.run(command, capture_output=True, env=env, check=False)


@pytest.fixture
def c_project(tmp_path: Path) -> Path:
    """A copy of the project whose inputs, library and config hold text that is not ASCII."""
    root = tmp_path / "proj"
    root.mkdir()
    for name in ("clusters", "libsonnet", "schemas", "rendered"):
        shutil.copytree(REPO / name, root / name)
    cluster = root / "clusters" / "aks-h100-training" / "cluster.yaml"
    cluster.write_text("# Équipe « entraînement »\n" + cluster.read_text(encoding="utf-8"), encoding="utf-8")
    (root / ".gpu-gitops.yaml").write_text("# réglages\nlint: {}\n", encoding="utf-8")
    return root


def test_the_python_under_test_has_an_ascii_locale():
    env = {**os.environ, **C_LOCALE}
    code = "import locale, sys; print(locale.getpreferredencoding(False), sys.flags.utf8_mode)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, env=env, check=True)
    assert done.stdout.split() == [b"ANSI_X3.4-1968", b"0"]


@pytest.mark.slow
def test_render_check_and_lint_under_the_c_locale(c_project):
    """The cluster whose input holds text that is not ASCII is rendered and checked: no other
    input, library file or rendered file holds any (``test_no_other_text_than_ascii_is_left_out``),
    so the rest of the fleet would take the same reads and writes with ASCII only."""
    rendered = gpu_gitops(c_project, "render", "aks-h100-training")
    assert rendered.returncode == 0, rendered.stderr.decode("utf-8", "replace")
    checked = gpu_gitops(c_project, "check", "aks-h100-training")
    assert checked.returncode == 0, checked.stderr.decode("utf-8", "replace")
    (c_project / "odd.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: café}\ndata: {clé: 1}\n", encoding="utf-8"
    )
    formats = ("text", "json", "sarif", "junit", "github", "markdown")
    runs = [
        ["lint", "-o", fmt, "--output-file", str(c_project / f"out.{fmt}"), str(c_project / "odd.yaml")]
        for fmt in formats
    ]
    linted = gpu_gitops_runs(c_project, runs)
    assert json.loads(linted.stdout.splitlines()[-1]) == [1] * len(formats), linted.stderr.decode("utf-8", "replace")
    assert b"Traceback" not in linted.stderr
    for fmt in formats:
        assert "clé" in (c_project / f"out.{fmt}").read_text(encoding="utf-8") or fmt in ("json", "sarif")


def test_no_other_text_than_ascii_is_left_out():
    """What the C-locale render leaves out holds only ASCII: were a library file, an input or a
    rendered file of another cluster to hold more, it would have to be rendered there too."""
    found = [
        str(path.relative_to(REPO))
        for folder in ("clusters", "libsonnet", "rendered")
        for path in sorted((REPO / folder).rglob("*"))
        if path.is_file() and not path.read_bytes().isascii()
    ]
    assert found == []


def test_an_input_error_quoting_text_that_is_not_ascii_is_printed(c_project):
    cluster = c_project / "clusters" / "aks-h100-training" / "cluster.yaml"
    cluster.write_text(cluster.read_text(encoding="utf-8").replace("provider: aks", "provider: akś"), encoding="utf-8")
    done = gpu_gitops(c_project, "render", "aks-h100-training")
    assert done.returncode == 2 and b"Traceback" not in done.stderr
    assert "provider: 'akś' is not allowed" in done.stderr.decode("utf-8")


def test_docs_and_init_under_the_c_locale(c_project):
    shutil.copytree(REPO / "docs", c_project / "docs")
    shutil.copy(REPO / "README.md", c_project / "README.md")
    done = gpu_gitops(c_project, "docs", "--check")
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    done = gpu_gitops(c_project, "init", "new-cluster")
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")


def _text_io_without_encoding(source: str) -> list[int]:
    """Lines of ``read_text()``, ``write_text(text)`` and text-mode ``open(...)`` calls that leave
    the encoding to the locale."""
    import ast

    lines: list[int] = []
    if not any(call in source for call in ("read_text(", "write_text(", "open(")):
        return lines  # no such call to look at: the file is not parsed (half the sources)
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or any(k.arg == "encoding" for k in node.keywords):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        mode = node.args[1].value if len(node.args) > 1 and isinstance(node.args[1], ast.Constant) else "r"
        if (
            (name == "read_text" and not node.args)
            or (name == "write_text" and len(node.args) == 1)
            or (name == "open" and isinstance(func, ast.Name) and "b" not in str(mode))
        ):
            lines.append(node.lineno)
    return lines


def test_every_text_read_and_write_names_its_encoding():
    found = {
        str(path.relative_to(REPO)): lines
        for folder in ("generator", "tests", "bench")
        for path in sorted((REPO / folder).rglob("*.py"))
        if (lines := _text_io_without_encoding(path.read_text(encoding="utf-8")))
    }
    assert not found, f"name encoding='utf-8' (the locale's may not be UTF-8): {found}"


def test_the_encoding_check_sees_a_locale_dependent_read():
    assert _text_io_without_encoding("p.read_text()\nopen(f)\nopen(f, 'rb')\np.write_text(t, encoding='utf-8')\n") == [
        1,
        2,
    ]
