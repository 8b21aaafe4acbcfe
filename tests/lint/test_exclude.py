"""``lint.exclude`` and ``lint.ignore[].path`` read their patterns as a .gitignore file does."""

from __future__ import annotations

import os

import pytest

from generator.lint import lint_paths
from generator.lint.settings import Settings
from generator.pathmatch import matches

GPU_POD = (
    "apiVersion: v1\nkind: Pod\nmetadata: {name: train, namespace: gpu-training}\nspec:\n  containers:\n"
    "    - name: main\n      image: nvcr.io/nvidia/pytorch:24.05-py3\n"
    "      resources: {requests: {nvidia.com/gpu: 1}}\n"
)


@pytest.mark.parametrize(
    ("patterns", "path", "matched"),
    [
        (["vendor/"], "vendor/a.yaml", True),  # a folder pattern matches everything in it
        (["vendor/"], "apps/vendor/a.yaml", True),  # ... at any depth
        (["vendor/"], "vendor.yaml", False),
        (["/vendor/"], "apps/vendor/a.yaml", False),  # a leading slash anchors at the root
        (["deploy/testdata"], "deploy/testdata/bad.yaml", True),  # so does a slash in the middle
        (["deploy/testdata"], "x/deploy/testdata/bad.yaml", False),
        (["*.tmpl.yaml"], "a/b/pod.tmpl.yaml", True),  # no slash: any depth
        (["vendor/*", "!vendor/keep.yaml"], "vendor/keep.yaml", False),  # negation takes it back
        (["vendor/*", "!vendor/keep.yaml"], "vendor/drop.yaml", True),
        (["vendor/", "!vendor/keep.yaml"], "vendor/keep.yaml", True),  # not inside an excluded folder (git)
        (["**/charts/**"], "a/b/charts/x/t.yaml", True),
        (["vendor/unsupported/**"], "vendor/unsupported/a/b.yaml", True),
        ([], "a.yaml", False),
    ],
)
def test_gitignore_semantics(patterns, path, matched):
    assert matches(path, patterns) is matched


def _tree(root):
    for rel in ("apps/pod.yaml", "vendor/pod.yaml", "vendor/keep.yaml", "apps/vendor/pod.yaml"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(GPU_POD, encoding="utf-8")


def _linted(root, lint: dict) -> set[str]:
    settings = Settings.from_config({"lint": lint})
    result = lint_paths([str(root)], settings, lambda p: os.path.relpath(p, root))
    return {f.file for f in result.findings if f.rule == "GPU001"}


def test_exclude_skips_files_as_gitignore_would(tmp_path):
    _tree(tmp_path)
    assert _linted(tmp_path, {"exclude": ["/vendor/*", "!/vendor/keep.yaml"]}) == {
        "apps/pod.yaml",
        "apps/vendor/pod.yaml",
        "vendor/keep.yaml",
    }
    assert _linted(tmp_path, {"exclude": ["vendor/"]}) == {"apps/pod.yaml"}


def test_ignore_path_is_a_gitignore_pattern(tmp_path):
    _tree(tmp_path)
    ignore = {"rules": ["GPU001"], "path": "/vendor/", "reason": "vendored chart, reviewed"}
    assert _linted(tmp_path, {"ignore": [ignore]}) == {"apps/pod.yaml", "apps/vendor/pod.yaml"}
