"""docs/architecture.md's module map names every module of generator/ and every file of libsonnet/."""

from __future__ import annotations

import re

from conftest import REPO

DOC = REPO / "docs" / "architecture.md"
RULES = "generator/lint/rules"
RULE_ROW = f"{RULES}/<id>_<name>.py"  # the one row that stands for every rule module (docs/rules.md lists them)


def _map_rows(text: str) -> set[str]:
    """The paths in the first column of the tables under "## Module map"."""
    section = text.split("\n## Module map", 1)[1]
    return set(re.findall(r"^\| `([^`]+)` \|", section, flags=re.M))


def _expected_rows() -> set[str]:
    expected = set()
    for path in sorted((REPO / "generator").rglob("*")):
        rel = path.relative_to(REPO).as_posix()
        built = path.suffix == ".so"  # the compiled path, built from its .c at install
        if "__pycache__" in rel or "/_data/" in rel or path.is_dir() or path.name == "py.typed" or built:
            continue
        in_rules = rel.startswith(RULES + "/") and path.name != "__init__.py"
        expected.add(RULE_ROW if in_rules else rel)
    expected.add("generator/_data/")
    for path in sorted((REPO / "libsonnet").rglob("*")):
        if path.is_file():
            expected.add(path.relative_to(REPO).as_posix())
    return expected


def test_module_map_names_every_module():
    rows = _map_rows(DOC.read_text(encoding="utf-8"))
    missing = sorted(_expected_rows() - rows)
    assert not missing, f"add a row with its one job to the module map of docs/architecture.md: {missing}"


def test_module_map_check_sees_a_missing_module():
    text = DOC.read_text(encoding="utf-8")
    assert "| `generator/tree/write.py` |" in text
    rows = _map_rows(text.replace("| `generator/tree/write.py` |", "| tree |"))
    assert "generator/tree/write.py" in _expected_rows() - rows
    assert RULE_ROW in _expected_rows()


def test_readme_links_the_architecture_doc():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "(docs/architecture.md)" in readme
