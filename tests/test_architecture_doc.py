"""docs/architecture.md's module map names every module of generator/ and every file of libsonnet/."""

from __future__ import annotations

import re

from conftest import REPO

DOC = REPO / "docs" / "architecture.md"
RULES = "generator/lint/rules"
RULE_ROW = f"{RULES}/<id>_<name>.py"  # the one row that stands for every rule module (docs/rules.md lists them)
CHECKS = "generator/inputs/consistency"
CHECK_ROW = f"{CHECKS}/<id>_<name>.py"  # the same for the input checks (docs/input-checks.md)


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
        is_check = rel.startswith(CHECKS + "/in") and path.suffix == ".py"
        expected.add(RULE_ROW if in_rules else CHECK_ROW if is_check else rel)
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
    assert RULE_ROW in _expected_rows() and CHECK_ROW in _expected_rows()


def test_readme_links_the_architecture_doc():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "(docs/architecture.md)" in readme


# Where a path of the project may be named in prose: comments and docstrings of the package and
# the library, the docs and the README. A path that no longer exists sends a reader nowhere.
_PROSE = ["README.md", "CONTRIBUTING.md", "docs", "generator", "libsonnet", "bench"]
_PATH = re.compile(r"(?<![\w./-])((?:generator|libsonnet|bench)/[\w./-]*\w)")
_MODULE = re.compile(r"(?<![\w.])(generator(?:\.\w+)+)")


def _prose_files():
    for name in _PROSE:
        top = REPO / name
        files = [top] if top.is_file() else sorted(top.rglob("*")) if top.is_dir() else []
        for path in files:
            if path.is_file() and path.suffix in (".py", ".md", ".libsonnet", ".jsonnet", ".json", ".sh", ".c"):
                if "__pycache__" not in path.parts and "_data" not in path.parts:
                    yield path


def _is_module(parts: list[str]) -> bool:
    base = REPO / "/".join(parts)
    return base.is_dir() or base.with_suffix(".py").is_file() or base.with_suffix(".c").is_file()


def _dangling(text: str) -> list[str]:
    found = []
    for path in _PATH.findall(text):
        if "<" in path or "*" in path:
            continue
        if not any((REPO / candidate).exists() for candidate in (path, path + ".py")):
            found.append(path)
    for dotted in _MODULE.findall(text):
        parts = dotted.split(".")
        depth = max((n for n in range(1, len(parts) + 1) if _is_module(parts[:n])), default=0)
        if depth < len(parts) - 1 or depth == 0:
            found.append(dotted)  # more than one name past the deepest module: no such module
    return found


def test_every_path_named_in_prose_exists():
    """Every ``generator/…``, ``libsonnet/…``, ``bench/…`` path and ``generator.x``
    module named in comments, docstrings and docs exists (an attribute may follow the module)."""
    dangling = {
        path.relative_to(REPO).as_posix(): found
        for path in _prose_files()
        if (found := _dangling(path.read_text(encoding="utf-8", errors="replace")))
    }
    assert not dangling, f"name the module where it lives now: {dangling}"


def test_dangling_path_check_sees_a_moved_module():
    assert _dangling("see generator/consistency/gpu.py and generator.tree.nothing.here") == [
        "generator/consistency/gpu.py",
        "generator.tree.nothing.here",
    ]
    assert (
        _dangling("see generator/inputs/consistency/in212_mig_layout_invalid.py and generator.tree.write.read_tree")
        == []
    )
