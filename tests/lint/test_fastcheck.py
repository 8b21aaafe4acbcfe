"""The compiled schema check agrees with jsonschema: on real objects and on broken copies."""

from __future__ import annotations

import copy
import os
from pathlib import Path

import pytest

from generator.lint.loader import read
from generator.validate import SchemaValidator, fastcheck

ROOT = Path(__file__).resolve().parents[2]
PEER = Path(os.environ.get("GPU_GITOPS_SHARED", ROOT.parent / "shared")) / "peer" / "kubeconform" / "fixtures"
_WRONG = ("text", 7, 1.5, True, None, [], {})


def _objects():
    files = sorted((ROOT / "tests" / "fixtures").rglob("*.yaml")) + sorted((ROOT / "rendered").rglob("*.yaml"))
    files += sorted(PEER.glob("*.yaml")) if PEER.is_dir() else []
    for path in files:
        for res in read(str(path), str(path)).resources:
            if isinstance(res.obj.get("apiVersion"), str) and isinstance(res.obj.get("kind"), str):
                yield res.obj


def _mutations(obj, limit=60):
    """Copies of ``obj`` with one leaf replaced by a value of each other type, or one key added."""
    paths = []

    def walk(node, path):
        if isinstance(node, dict):
            paths.append((path, "extra"))
            for key, value in node.items():
                walk(value, path + (key,))
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, path + (i,))
        else:
            paths.append((path, "leaf"))

    walk(obj, ())
    for path, what in paths[:limit]:
        for wrong in _WRONG if what == "leaf" else ("unknownField",):
            mutated = copy.deepcopy(obj)
            node = mutated
            for part in path[:-1] if what == "leaf" else path:
                node = node[part]
            if what == "leaf":
                if path[-1] in ("apiVersion", "kind") and len(path) == 1:
                    continue
                node[path[-1]] = wrong
            else:
                node[wrong] = 1
            yield mutated


def test_compiled_check_matches_jsonschema():
    validator = SchemaValidator("1.32")
    compared, mutated_kinds = 0, set()
    for obj in _objects():
        if not validator.has_schema(obj["apiVersion"], obj["kind"]):
            continue
        compiled = validator._validator_for(obj["apiVersion"], obj["kind"])
        fast = compiled.fast
        if fast is None:
            continue
        slow = compiled.full()
        key = (obj["apiVersion"], obj["kind"])
        # broken copies of the first object of each kind; the others as they are
        candidates = [obj] if key in mutated_kinds else [obj, *_mutations(obj)]
        mutated_kinds.add(key)
        for candidate in candidates:
            assert fast(candidate) == slow.is_valid(candidate), (obj["kind"], candidate)
            compared += 1
    assert compared > 1000


def test_unsupported_keywords_are_refused():
    compiler = fastcheck.Compiler({}, ())
    with pytest.raises(fastcheck.Unsupported):
        compiler.compile({"type": "string", "pattern": "^a"})
    with pytest.raises(fastcheck.Unsupported):
        compiler.compile({"$ref": "https://elsewhere/x.json"})
    assert compiler.compile({"type": ["integer", "null"], "x-kubernetes-int-or-string": True})(None)
