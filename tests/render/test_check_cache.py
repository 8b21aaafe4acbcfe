"""A render's schema verdicts and rule results are kept between runs: a new process takes them
for the objects it has seen, with the same problems and the same record of the schemas
consulted, and checks again whatever an edited schema, other settings or other code could change."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import MISMATCHED_DEPLOYMENT, REPO

from generator import codeprint
from generator.render import checkcache, checks
from generator.render.layout import build_tree
from generator.validate import SchemaValidator
from generator.validate.locations import SchemaLocation

_GADGET_SCHEMA = {
    "type": "object",
    "required": ["spec"],
    "properties": {
        "apiVersion": {"type": "string"},
        "kind": {"type": "string"},
        "metadata": {"type": "object"},
        "spec": {"type": "object", "properties": {"size": {"type": "integer"}}},
    },
}
# a custom resource that passes, one that fails its schema, a core kind, and a Deployment whose
# selector does not match its pods' labels (the lint rules' K8S006)
_OBJECTS = [
    {
        "apiVersion": "example.com/v1",
        "kind": "Gadget",
        "metadata": {"name": "ok", "namespace": "team"},
        "spec": {"size": 1},
    },
    {
        "apiVersion": "example.com/v1",
        "kind": "Gadget",
        "metadata": {"name": "bad", "namespace": "team"},
        "spec": {"size": "x"},
    },
    {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "team"}, "data": {"k": "v"}},
    MISMATCHED_DEPLOYMENT,
]


@pytest.fixture
def schemas(tmp_path):
    folder = tmp_path / "schemas" / "example.com"
    folder.mkdir(parents=True)
    (folder / "gadget_v1.json").write_text(json.dumps(_GADGET_SCHEMA), encoding="utf-8")
    return str(tmp_path / "schemas" / "{{.Group}}" / "{{.ResourceKind}}_{{.ResourceAPIVersion}}.json")


def _new_process(monkeypatch) -> None:
    """What a new process starts from: no verdict, rule result or store in memory."""
    monkeypatch.setattr(checks, "_VERDICTS", {})
    monkeypatch.setattr(checks, "_SHARED_RESULTS", {})
    monkeypatch.setattr(checkcache, "_store", None)
    monkeypatch.setattr(checkcache, "_FINGERPRINTS", {})


def _check(template: str, cluster: str = "a", version: str = "1.32", counted: list | None = None) -> tuple:
    validator = SchemaValidator(version, [SchemaLocation(template)])
    if counted is not None:
        real = validator.check
        validator.check = lambda obj: counted.append(obj["metadata"]["name"]) or real(obj)  # type: ignore[method-assign]
    tree = build_tree(cluster, [("10-layer", [("component", [dict(o) for o in _OBJECTS])])])
    spec = SimpleNamespace(spec={"kubernetesVersion": version}, facts=None, overrides=None)
    found = checks.check(tree, spec, validator, False, f"rendered/{cluster}")  # type: ignore[arg-type]
    consulted = validator.consulted({(o["apiVersion"], o["kind"]) for o in _OBJECTS})
    return [(str(d.location), d.line, d.col, d.severity, d.message, d.rule) for d in found], consulted


@pytest.fixture
def rule_runs(monkeypatch):
    import generator.lint

    runs: list[str] = []
    real = generator.lint.object_result
    monkeypatch.setattr(
        generator.lint, "object_result", lambda engine, file, *a: runs.append(file) or real(engine, file, *a)
    )
    return runs


def test_a_new_process_takes_the_kept_results_with_the_same_problems_and_lookups(monkeypatch, schemas, rule_runs):
    _new_process(monkeypatch)
    first_checks: list = []
    first = _check(schemas, counted=first_checks)
    assert len(first_checks) == len(_OBJECTS) and len(rule_runs) == len(_OBJECTS)
    assert {f[5] for f in first[0]} == {"", "K8S006"}  # a schema problem and a rule's error
    assert any(path.endswith("gadget_v1.json") and found for path, found in first[1])  # the lookup recorded
    checkcache.save()
    _new_process(monkeypatch)
    rule_runs.clear()
    again: list = []
    assert _check(schemas, counted=again) == first
    assert again == [] and rule_runs == []
    # another cluster's copy of the objects: found at its own files
    _new_process(monkeypatch)
    problems, _ = _check(schemas, cluster="b", counted=again)
    assert again == [] and [p[0].replace("rendered/b/", "") for p in problems] == [
        p[0].replace("rendered/a/", "") for p in first[0]
    ]


def _kept(monkeypatch, schemas: str, **given) -> tuple:
    """The checks of one process, saved, and a new process to start from: the first one's results."""
    _new_process(monkeypatch)
    first = _check(schemas, **given)
    checkcache.save()
    _new_process(monkeypatch)
    return first


def _checked_again(schemas: str, **given) -> tuple[list, tuple]:
    """The objects a new process schema-checks, and what it found."""
    counted: list = []
    found = _check(schemas, counted=counted, **given)
    return counted, found


def test_an_edited_schema_file_is_checked_again(monkeypatch, schemas, tmp_path):
    _kept(monkeypatch, schemas)
    changed = {**_GADGET_SCHEMA, "properties": {**_GADGET_SCHEMA["properties"], "spec": {"type": "object"}}}
    (tmp_path / "schemas" / "example.com" / "gadget_v1.json").write_text(json.dumps(changed), encoding="utf-8")
    counted, (problems, _) = _checked_again(schemas)
    assert counted  # the schema's verdicts were made again
    assert not any("size" in p[4] for p in problems)  # under the edited schema, a string size passes


def test_other_settings_or_code_miss_the_kept_results(monkeypatch, schemas, rule_runs):
    _kept(monkeypatch, schemas)
    rule_runs.clear()
    _check(schemas, version="1.31")  # another Kubernetes version: another validator and settings
    assert len(rule_runs) == len(_OBJECTS)
    checkcache.save()
    _new_process(monkeypatch)
    rule_runs.clear()
    monkeypatch.setattr(codeprint, "fingerprint", lambda: (("edited.py", 1, 1),))
    counted, _ = _checked_again(schemas)
    assert len(counted) == len(_OBJECTS) and len(rule_runs) == len(_OBJECTS)


def test_an_upgraded_package_misses_the_kept_results(monkeypatch, schemas):
    import generator.validate.validator

    _kept(monkeypatch, schemas)
    real = generator.validate.validator.installed_version
    monkeypatch.setattr(
        generator.validate.validator,
        "installed_version",
        lambda name: "99.0" if name == "kubernetes_validate" else real(name),
    )
    counted, _ = _checked_again(schemas)
    assert len(counted) == len(_OBJECTS)


def test_a_cache_that_cannot_be_written_only_means_checking_again(monkeypatch, schemas, tmp_path):
    (tmp_path / "cache-file").write_text("a file where the cache folder should be", encoding="utf-8")
    monkeypatch.setenv("GPU_GITOPS_CACHE_DIR", str(tmp_path / "cache-file"))
    first = _kept(monkeypatch, schemas)
    counted, found = _checked_again(schemas)
    assert found == first and len(counted) == len(_OBJECTS)


def test_a_pack_cut_short_is_a_miss(monkeypatch, schemas):
    first = _kept(monkeypatch, schemas)
    for pack in (checkcache.cache_root() / checkcache.FOLDER).rglob("*.pack"):
        pack.write_bytes(pack.read_bytes()[:40])
    counted, found = _checked_again(schemas)
    assert found == first and len(counted) == len(_OBJECTS)


def test_a_process_that_saves_after_each_task_folds_the_packs_once(monkeypatch, schemas):
    """A pool worker saves after each task: the packs it found are folded into one by its first
    save, and each later save writes its own entries only, not every entry again."""
    from generator.lint.cache import MAX_PACKS

    for version in ["1.29", "1.30", "1.31", "1.32", "1.33", "1.34", "1.35", "1.28"][:MAX_PACKS]:
        _kept(monkeypatch, schemas, version=version)
    folder = next((checkcache.cache_root() / checkcache.FOLDER).iterdir())
    assert len(list(folder.glob("*.pack"))) == MAX_PACKS
    _check(schemas, version="1.33", cluster="b")  # nothing new: every result kept
    _check(schemas, version="1.36")
    checkcache.save()
    assert len(list(folder.glob("*.pack"))) == 1  # folded, with the new entries
    _check(schemas, version="1.27")
    checkcache.save()
    packs = sorted(folder.glob("*.pack"), key=lambda p: p.stat().st_size)
    assert len(packs) == 2 and packs[0].stat().st_size < packs[1].stat().st_size / 2


def test_a_long_render_writes_its_results_as_it_goes_and_holds_no_more_than_a_pack_of_them(
    monkeypatch, schemas, rule_runs
):
    """A fleet's render: every ``SAVE_EVERY`` new entries are written, and dropped from memory,
    so the process holds a bounded number whatever the fleet's size; the next process finds them."""
    _new_process(monkeypatch)
    monkeypatch.setattr(checkcache, "SAVE_EVERY", 3)
    folder = checkcache.cache_root() / checkcache.FOLDER
    for version in ["1.30", "1.31", "1.32"]:  # four verdicts and four rule results each
        _check(schemas, version=version)
        store = checkcache._current()
        assert len(store.new) < 3 and not store.entries  # what was written is not held
    assert len(list(folder.rglob("*.pack"))) == 24 // 3
    checkcache.save()
    _new_process(monkeypatch)
    rule_runs.clear()
    for version in ["1.30", "1.31", "1.32"]:
        counted, _ = _checked_again(schemas, version=version)
        assert counted == []
    assert rule_runs == []


def _tree_digest(root: Path) -> dict[str, tuple[int, str]]:
    """Every rendered file's mode and SHA-256, by its path."""
    return {
        str(p.relative_to(root)): (p.stat().st_mode, hashlib.sha256(p.read_bytes()).hexdigest())
        for p in sorted((root / "rendered").rglob("*"))
        if p.is_file()
    }


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_render_from_the_kept_checks_writes_and_says_what_one_that_checked_does(monkeypatch, tmp_path, run, jobs):
    """The example clusters rendered with an empty cache, then into a copy of the inputs by a
    new process whose cache holds their checks: the same trees, byte for byte and mode for
    mode, the same report, and no schema checked or rule run the second time."""
    import generator.lint
    from generator.render import pipeline

    first, second = tmp_path / "first", tmp_path / "second"
    for root in (first, second):
        root.mkdir()
        for name in ("clusters", "libsonnet", "schemas"):
            shutil.copytree(REPO / name, root / name)
    _new_process(monkeypatch)
    checked = run(first, "render", "--jobs", jobs)
    assert checked.exit_code == 0, checked.output
    _new_process(monkeypatch)
    pipeline.validator.cache_clear()
    work: list = []
    monkeypatch.setattr(SchemaValidator, "check", lambda self, obj: work.append(obj) or pytest.fail("checked"))
    monkeypatch.setattr(generator.lint, "object_result", lambda *a: work.append(a) or pytest.fail("rules ran"))
    kept = run(second, "render", "--jobs", "1")
    assert kept.exit_code == 0, kept.output
    assert work == []
    assert kept.output == checked.output
    assert _tree_digest(second) == _tree_digest(first)
