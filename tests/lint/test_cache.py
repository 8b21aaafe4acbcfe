"""The per-file result cache: what is re-checked, what invalidates it, and that cached files
still take part in the cross-file rules.

``Engine.check_file`` is wrapped to record the files actually checked; every run is also
compared with a run without the cache, so a stale result cannot pass unnoticed.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from generator.lint import lint_paths
from generator.lint.engine import Engine
from generator.lint.settings import Settings

POD = """apiVersion: v1
kind: Pod
metadata:
  name: {name}
  namespace: {namespace}
spec:
  containers:
    - name: main
      image: busybox:1.36
      resources:
        requests: {{cpu: 500m, memory: 64Mi}}
        limits: {{cpu: "1", memory: 128Mi}}
  volumes:
    - name: host
      hostPath:
        path: /var/lib/kubelet
"""
NAMESPACE = """apiVersion: v1
kind: Namespace
metadata:
  name: node-agents
  labels:
    pod-security.kubernetes.io/enforce: {level}
"""
STORAGE_CLASS = """apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: {name}
provisioner: kubernetes.io/no-provisioner
"""
CLAIM = """apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
  namespace: default
spec:
  storageClassName: local-nvme
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 1Gi
"""


@pytest.fixture
def checked(monkeypatch) -> list[str]:
    """The files each run really checks (not taken from the cache)."""
    seen: list[str] = []
    original = Engine.check_file

    def recording(self, display, documents):
        seen.append(display)
        return original(self, display, documents)

    monkeypatch.setattr(Engine, "check_file", recording)
    return seen


def _lint(folder: Path, checked: list[str], settings: Settings | None = None, **options):
    """Findings of a cached run, the files it checked, and the findings of an uncached run."""
    settings = settings or Settings()
    checked.clear()
    cached = lint_paths([str(folder)], settings, cached=True, **options).findings
    files = sorted(checked)
    checked.clear()
    fresh = lint_paths([str(folder)], settings).findings
    return cached, files, fresh


def _tree(tmp_path: Path) -> Path:
    folder = tmp_path / "manifests"
    folder.mkdir()
    (folder / "a.yaml").write_text(POD.format(name="a", namespace="node-agents"), encoding="utf-8")
    (folder / "b.yaml").write_text(POD.format(name="b", namespace="default"), encoding="utf-8")
    (folder / "ns.yaml").write_text(NAMESPACE.format(level="baseline"), encoding="utf-8")
    return folder


def test_a_second_run_checks_only_the_edited_file(tmp_path, checked):
    folder = _tree(tmp_path)
    first, files, fresh = _lint(folder, checked)
    assert len(files) == 3 and first == fresh and first
    again, files, fresh = _lint(folder, checked)
    assert files == [] and again == first
    with (folder / "b.yaml").open("a", encoding="utf-8") as handle:
        handle.write("# edited\n")
    edited, files, fresh = _lint(folder, checked)
    assert files == [str(folder / "b.yaml")] and edited == fresh


def test_cached_files_still_count_in_cross_file_rules(tmp_path, checked):
    """A Namespace made privileged in one file drops the Pod Security findings of a cached
    file; a StorageClass renamed in one file makes a cached claim's finding appear."""
    folder = _tree(tmp_path)
    (folder / "sc.yaml").write_text(STORAGE_CLASS.format(name="local-nvme"), encoding="utf-8")
    (folder / "pvc.yaml").write_text(CLAIM, encoding="utf-8")
    before, _, _ = _lint(folder, checked)
    assert any(f.file.endswith("a.yaml") and f.rule == "SEC002" for f in before)
    assert not any(f.rule == "XR001" for f in before)
    (folder / "ns.yaml").write_text(NAMESPACE.format(level="privileged"), encoding="utf-8")
    (folder / "sc.yaml").write_text(STORAGE_CLASS.format(name="other"), encoding="utf-8")
    after, files, fresh = _lint(folder, checked)
    assert files == [str(folder / "ns.yaml"), str(folder / "sc.yaml")]
    assert after == fresh
    assert not any(f.file.endswith("a.yaml") and f.rule == "SEC002" for f in after)
    assert [f.file for f in after if f.rule == "XR001"] == [str(folder / "pvc.yaml")]


def test_changed_settings_check_everything_again(tmp_path, checked):
    folder = _tree(tmp_path)
    _lint(folder, checked)
    quiet = Settings(rules={"SEC002": "off"})
    findings, files, fresh = _lint(folder, checked, quiet)
    assert len(files) == 3 and findings == fresh
    assert not any(f.rule == "SEC002" for f in findings)


def test_a_changed_schema_file_checks_everything_again(tmp_path, checked):
    folder = _tree(tmp_path)
    schemas = tmp_path / "schemas"
    schemas.mkdir()
    (schemas / "widget_v1.json").write_text('{"type": "object"}', encoding="utf-8")
    settings = Settings(schema_locations=[str(schemas / "{{.ResourceKind}}_{{.ResourceAPIVersion}}.json")])
    _lint(folder, checked, settings)
    _, files, _ = _lint(folder, checked, settings)
    assert files == []
    (schemas / "widget_v1.json").write_text('{"type": "object", "required": ["spec"]}', encoding="utf-8")
    _, files, _ = _lint(folder, checked, settings)
    assert len(files) == 3


def test_a_corrupt_cache_is_ignored(tmp_path, checked):
    folder = _tree(tmp_path)
    first, _, _ = _lint(folder, checked)
    packs = list(Path(os.environ["GPU_GITOPS_CACHE_DIR"]).rglob("*.pack"))
    assert packs, "the cache lives under GPU_GITOPS_CACHE_DIR"
    for pack in packs:
        data = pack.read_bytes()
        pack.write_bytes(data[: len(data) // 2] + b"\x00garbage\tnot json\n")
    again, files, fresh = _lint(folder, checked)
    assert again == first == fresh
    assert files  # entries that no longer read back are checked again


def test_no_cache_is_written_unless_asked(tmp_path):
    folder = _tree(tmp_path)
    lint_paths([str(folder)], Settings())
    assert not list(Path(os.environ["GPU_GITOPS_CACHE_DIR"]).rglob("*.pack"))


def test_workers_give_the_same_findings_as_one_process(tmp_path):
    folder = tmp_path / "many"
    folder.mkdir()
    for i in range(20):
        namespace = "node-agents" if i % 2 else "default"
        (folder / f"p{i:02d}.yaml").write_text(POD.format(name=f"p{i}", namespace=namespace), encoding="utf-8")
    (folder / "ns.yaml").write_text(NAMESPACE.format(level="privileged"), encoding="utf-8")
    one = lint_paths([str(folder)], Settings(), jobs=1)
    two = lint_paths([str(folder)], Settings(), jobs=2)
    assert one.findings == two.findings
    assert len([f for f in one.findings if f.rule == "SEC002"]) == 10  # the privileged namespace's are dropped
    assert [s.display for s in one.sources] == [s.display for s in two.sources]


def test_object_references_are_kept_only_when_asked_and_cached_apart(tmp_path, checked):
    """Only the JUnit report lists passing objects: other runs keep no per-object reference
    (memory that would grow with the objects), and their cache entries are not JUnit's."""
    folder = _tree(tmp_path)
    lean = lint_paths([str(folder)], Settings(), cached=True, refs=False)
    assert all(s.refs == [] for s in lean.sources) and sum(s.objects for s in lean.sources) == 3
    checked.clear()
    full = lint_paths([str(folder)], Settings(), cached=True, refs=True)
    assert len(checked) == 3 and sorted(r.name for s in full.sources for r in s.refs) == ["a", "b", "node-agents"]
    assert full.findings == lean.findings


def test_validator_warnings_come_back_from_the_cache_and_from_workers(tmp_path, checked):
    """What the validator could not check is said on every run: a file taken from the cache, or
    checked in a worker process, still brings its kinds' warnings."""
    import json

    from generator.lint import make_validator

    schemas = tmp_path / "schemas" / "example.com"
    schemas.mkdir(parents=True)
    (schemas / "run_v1.json").write_text(
        json.dumps(
            {
                "type": "object",
                "properties": {
                    "spec": {"type": "object", "properties": {"greek": {"type": "string", "pattern": "^\\p{Greek}+$"}}}
                },
            }
        ),
        encoding="utf-8",
    )
    folder = tmp_path / "runs"
    folder.mkdir()
    for i in range(10):
        (folder / f"r{i}.yaml").write_text(
            f"apiVersion: example.com/v1\nkind: Run\nmetadata: {{name: r{i}}}\nspec: {{greek: abc}}\n", encoding="utf-8"
        )
    settings = Settings(
        schema_locations=[str(tmp_path / "schemas" / "{{.Group}}" / "{{.ResourceKind}}_{{.ResourceAPIVersion}}.json")]
    )
    expected = [
        "Run (example.com/v1): schema pattern '^\\\\p{Greek}+$' has no Python equivalent; that pattern is not checked"
    ]
    for jobs, cached in ((2, False), (2, True), (1, True)):  # by workers, stored, then all from the cache
        validator = make_validator(settings)
        checked.clear()
        lint_paths([str(folder)], settings, validator=validator, cached=cached, jobs=jobs)
        assert list(validator.warnings) == expected, (jobs, cached)
    assert checked == []


def _probe(prelude: str, reported: str) -> str:
    """A script that runs the command line of its arguments in its own process after
    ``prelude``, then prints ``reported`` (an expression) as Python's literal on standard error
    (not as JSON: the script imports nothing the run could have imported)."""
    return (
        f"import sys\n{prelude}\n"
        "from generator.cli import main\n"
        "sys.argv = ['gpu-gitops', *sys.argv[1:]]\n"
        "try:\n    main(in_process=True)\nexcept SystemExit:\n    pass\n"
        f"print(repr({reported}), file=sys.stderr)\n"
    )


def _run_after_an_edit(tmp_path: Path, script: str) -> tuple:
    """Lint the tree with ``script``, edit one file, lint again: both runs' results, and what
    the second reported (``_probe``)."""
    import ast
    import subprocess
    import sys

    folder = _tree(tmp_path)
    env = {**os.environ, "GPU_GITOPS_CACHE_DIR": str(tmp_path / "cache")}
    command = [sys.executable, "-c", script, "--root", str(tmp_path), "lint", "--format", "json", str(folder)]
    first = subprocess.run(command, capture_output=True, encoding="utf-8", env=env, check=False)
    with (folder / "b.yaml").open("a", encoding="utf-8") as handle:
        handle.write("# edited\n")
    again = subprocess.run(command, capture_output=True, encoding="utf-8", env=env, check=False)
    return first, again, ast.literal_eval(again.stderr.strip().splitlines()[-1])


def test_a_run_that_rechecks_one_edited_file_loads_no_libraries_it_does_not_use(tmp_path):
    """JSON Schema (for a valid object), path patterns (none configured), downloads, worker
    processes, the signal module (only stopping workers needs it), Unicode's tables (only a
    refused character's message), exact fractions (requests are compared with limits as the API
    server's nano-units), ``typing`` (annotations only: ``TYPE_CHECKING`` blocks),
    ``importlib.util`` (the bundled schemas' package is found by the import system's finders),
    ``pathlib`` with ``urllib.parse`` and ``ipaddress`` (paths are text, an address is parsed
    when a field holds one), ``json``, ``re`` and ``enum`` (JSON is written by ``jsontext``, the
    bundled schemas are read from their decoded copies, a pattern compiles when first used),
    ``importlib`` with ``warnings``, and what custom resources alone need stay unloaded: a
    pre-commit lint answered from the cache starts fast (each module costs ~0.2 ms to import)."""
    import json

    first, again, loaded = _run_after_an_edit(tmp_path, _probe("", "sorted(sys.modules)"))
    assert json.loads(again.stdout) == json.loads(first.stdout)
    unused = {"jsonschema", "referencing", "pathspec", "urllib.request", "multiprocessing", "signal", "unicodedata"}
    # what only custom resources, downloads, reports to a file, --version and --help need
    unused |= {"generator.validate.re2", "generator.validate.structural", "generator.validate.webhooks"}
    unused |= {"generator.replace", "generator.cli.table", "generator.lint.examples", "copy", "weakref", "struct"}
    unused |= {"fractions", "decimal", "typing", "importlib.util", "contextlib"}
    unused |= {"pathlib", "urllib.parse", "ipaddress", "fnmatch"}  # paths are text (``generator.paths``)
    unused |= {"importlib", "warnings"}  # the report's module by ``__import__``
    unused |= {"json", "re", "enum"}  # JSON written by ``jsontext``, read from decoded copies; patterns deferred
    assert "generator.lint.engine" in loaded and "generator.kube.quantity" in loaded and not unused & set(loaded)


def test_a_config_file_read_before_costs_a_run_after_an_edit_no_more_imports(tmp_path):
    """A project's ``.gpu-gitops.yaml`` validated by an earlier run is read back as kept: the
    YAML reader's located path, the input layer and JSON Schema (with ``dataclasses``,
    ``inspect``, ``typing``, ``pathlib``, ``json`` and ``re``) stay unloaded."""
    (tmp_path / ".gpu-gitops.yaml").write_text("lint:\n  rules:\n    SEC006: warning\n", encoding="utf-8")
    first, again, loaded = _run_after_an_edit(tmp_path, _probe("", "sorted(sys.modules)"))
    assert first.returncode == again.returncode and "generator.lint.engine" in loaded
    unused = {"generator.inputs.load", "generator.yamlio.positions", "dataclasses", "inspect", "typing"}
    assert not (unused | {"pathlib", "json", "re"}) & set(loaded)


def test_a_run_that_rechecks_one_edited_file_compiles_no_source(tmp_path):
    """Nothing is compiled from source at run time: a typed ``NamedTuple`` whose annotations are
    postponed (strings) compiled each one into a ``ForwardRef`` on every start (~1 M
    instructions a field)."""
    prelude = (
        "import builtins\n"
        "compiled = []\n"
        "real = builtins.compile\n"
        "builtins.compile = lambda *args, **kwargs: compiled.append(str(args[0])[:60]) or real(*args, **kwargs)"
    )
    assert _run_after_an_edit(tmp_path, _probe(prelude, "compiled"))[2] == []


def test_the_lint_command_raises_the_collectors_thresholds_before_its_imports(tmp_path):
    """Its modules are imported under the thresholds the checks run under (``lint.batch``)."""
    prelude = (
        "import gc\n"
        "seen = []\n"
        "class Probe:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'generator.lint.engine':\n"
        "            seen.append(gc.get_threshold()[0])\n"
        "sys.meta_path.insert(0, Probe())"
    )
    assert _run_after_an_edit(tmp_path, _probe(prelude, "seen"))[2] == [100_000]


def test_an_unchanged_file_is_not_read_again_and_a_rewritten_one_is(tmp_path, checked, monkeypatch):
    """A file whose metadata is as recorded is taken by its recorded key; rewriting it with the
    same size and setting its modification time back still changes its change time."""
    import time

    from generator.lint import cache, loader

    monkeypatch.setattr(cache, "SETTLED_NS", 0)  # no file counts as changed moments ago
    folder = _tree(tmp_path)
    lint_paths([str(folder)], Settings(), cached=True)
    read: list[str] = []
    real_raw = loader.raw
    monkeypatch.setattr(cache, "raw", lambda path: read.append(os.path.basename(path)) or real_raw(path))
    lint_paths([str(folder)], Settings(), cached=True)
    assert read == []
    time.sleep(0.05)  # past the file system's clock tick
    target = folder / "b.yaml"
    before = target.stat()
    target.write_text(target.read_text(encoding="utf-8").replace("name: b", "name: c"), encoding="utf-8")
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert target.stat().st_size == before.st_size and target.stat().st_mtime_ns == before.st_mtime_ns
    checked.clear()
    findings = lint_paths([str(folder)], Settings(), cached=True).findings
    assert read == ["b.yaml"] and checked
    assert {f.ref.name for f in findings if f.file.endswith("b.yaml")} == {"c"}


def test_a_file_changed_moments_ago_is_always_read(tmp_path, monkeypatch):
    from generator.lint import cache, loader

    folder = _tree(tmp_path)
    monkeypatch.setattr(cache, "SETTLED_NS", 3600 * 10**9)  # every file counts as just changed
    lint_paths([str(folder)], Settings(), cached=True)
    read: list[str] = []
    real_raw = loader.raw
    monkeypatch.setattr(cache, "raw", lambda path: read.append(path) or real_raw(path))
    lint_paths([str(folder)], Settings(), cached=True)
    assert len(read) == 3


def test_the_schema_fingerprint_covers_the_location_folder_only_and_skips_dangling_links(tmp_path, checked):
    """``dir/{{.Group}}-{{.ResourceKind}}.json`` reaches the files of ``dir``, not of its parent;
    a dangling link there is no schema and no reason to fail."""
    from generator.lint.cache import schema_fingerprint
    from generator.lint.settings import Settings as Lint
    from generator.validate import SchemaValidator
    from generator.validate.locations import SchemaLocation

    schemas = tmp_path / "schemas"
    schemas.mkdir()
    (schemas / "dangling.json").symlink_to(tmp_path / "nowhere")
    (schemas / "g-Widget.json").write_text("{}", encoding="utf-8")
    (tmp_path / "beside.json").write_text("{}", encoding="utf-8")
    location = str(schemas / "{{.Group}}-{{.ResourceKind}}.json")
    validator = SchemaValidator(Lint().kubernetes_version, [SchemaLocation(location)])
    files = [entry[0] for entry in schema_fingerprint(validator)[-1]]
    assert files == [str(schemas / "g-Widget.json")]
    folder = _tree(tmp_path)
    assert lint_paths([str(folder)], Lint(schema_locations=[location]), cached=True).findings


def test_the_cache_is_read_without_the_default_collections(tmp_path, monkeypatch):
    """Decoding a large tree's entries makes thousands of short-lived containers: they are read
    with the thresholds the checks run with, and the defaults are back after the run."""
    import gc

    from generator.lint.cache import ResultCache

    folder = _tree(tmp_path)
    lint_paths([str(folder)], Settings(), cached=True)
    seen: list[tuple[int, int, int]] = []
    original = ResultCache.get_many

    def recording(self, wanted):
        seen.append(gc.get_threshold())
        return original(self, wanted)

    monkeypatch.setattr(ResultCache, "get_many", recording)
    before = gc.get_threshold()
    lint_paths([str(folder)], Settings(), cached=True)
    assert seen and seen[0][0] >= 100_000 and gc.get_threshold() == before


def test_a_cached_result_is_the_checked_one_and_shares_each_objects_reference(tmp_path):
    """What the cache gives back equals what checking gave, to the types of the cross-file
    rules' facts (a fact holding a tuple gets its tuple back, not a list); the findings about
    one object share one reference."""
    from generator.lint.cache import ResultCache
    from generator.lint.engine import FileResult

    found = lint_paths([str(_tree(tmp_path))], Settings()).findings[0]
    finding = found.replace(location=found.location.replace(path="a.yaml"))  # where the cache puts it
    result = FileResult(
        "a.yaml",
        refs=[finding.ref],
        objects=2,
        checked=1,
        findings=[(finding, "node-agents"), (finding.replace(message="another"), "")],
        facts=[("XR003", ("object", ("Pod", "a"), ["x"]), finding), ("XR004", ("policy", "a", False), None)],
        namespaces=[("node-agents", "baseline")],
        warnings={"a warning": None},
    )
    store = ResultCache(tmp_path / "cache", "run")
    store.put("k", result)
    store.save()
    again = ResultCache(tmp_path / "cache", "run").get_many([("k", "a.yaml"), ("missing", "b.yaml")])
    assert again == [result, None]
    cached = again[0]
    assert cached is not None and cached.findings[0][0].ref is cached.findings[1][0].ref


def test_a_pack_holds_each_string_once_and_a_run_reading_it_makes_one_of_each(tmp_path):
    """Files with the same findings (the same rule, message and hint about objects of one kind)
    give a pack that writes each string once: what a run reads and allocates for its results is
    the distinct text, not the text of every finding; a tuple equal to another of other types
    (``(1,)`` and ``(True,)``) is not merged."""
    from generator.lint.cache import ResultCache

    folder = tmp_path / "manifests"
    folder.mkdir()
    for n in range(6):
        (folder / f"p{n}.yaml").write_text(POD.format(name=f"p{n}", namespace="default"), encoding="utf-8")
    store = ResultCache(tmp_path / "cache", "run")
    results = [lint_paths([str(folder / f"p{n}.yaml")], Settings(), os.path.basename).sources[0] for n in range(6)]
    for n, result in enumerate(results):
        store.put(f"k{n}", result)
    store.put("facts", results[0].replace(facts=[("X", (1,), None), ("X", (True,), None)]))
    store.save()
    [pack] = (tmp_path / "cache" / "run").glob("*.pack")
    # a message written by its rule for each finding: equal strings, each its own object
    message = results[0].findings[0][0].message
    assert message.startswith("spec.volumes[0]: hostPath volume")
    assert results[1].findings[0][0].message == message and pack.read_bytes().count(message.encode()) == 1
    again = ResultCache(tmp_path / "cache", "run").get_many(
        [(f"k{n}", f"p{n}.yaml") for n in range(6)] + [("facts", "f")]
    )
    assert [r and r.findings for r in again[:6]] == [r.findings for r in results]
    messages = {id(r.findings[0][0].message) for r in again[:6] if r}
    assert len(messages) == 1  # one string, shared by every file's finding
    facts = again[6].facts if again[6] else []
    assert [type(fact[0]) for _, fact, _ in facts] == [int, bool]


def test_a_run_reads_back_the_newest_entries_up_to_its_limit_and_folds_the_rest_away(tmp_path, monkeypatch):
    """A store bounded by ``limit`` reads the packs newest first and holds no more than the bound:
    what a newer pack says wins, and the packs past the bound are removed by the next fold."""
    from generator.lint import cache as lintcache
    from generator.lint.cache import ResultCache

    for i in range(3):  # three runs, each rewriting entry "k" and adding two of its own
        store = ResultCache(tmp_path, "run", limit=1_000)
        store.new = {"k": (i,), f"a{i}": (i,), f"b{i}": (i,)}
        store.save()
    store = ResultCache(tmp_path, "run", limit=4)
    assert store.entries["k"] == (2,) and len(store.entries) == 4
    assert set(store.entries) == {"k", "a2", "b2", "a1"}  # the newest pack's, then the next one's in its order
    monkeypatch.setattr(lintcache, "MAX_PACKS", 3)
    store.new = {"n": (9,)}
    store.save()  # folds: the new entry, then the newest read, up to the bound
    packs = sorted((tmp_path / "run").glob("*.pack"))
    assert len(packs) == 1
    again = ResultCache(tmp_path, "run", limit=4)
    assert again.entries["n"] == (9,) and again.entries["k"] == (2,) and len(again.entries) == 4


def test_the_code_fingerprint_lists_every_module_as_os_walk_finds_them():
    """Every module of the package, links to folders not followed, folders parents first."""
    from pathlib import Path

    import generator
    from generator import codeprint

    root = Path(generator.__file__).parent
    expected = []
    for folder, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        relative = os.path.relpath(folder, root)
        for name in sorted(f for f in filenames if f.endswith(".py")):
            info = os.stat(os.path.join(folder, name))
            expected.append((name if relative == "." else os.path.join(relative, name), info.st_size, info.st_mtime_ns))
    assert list(codeprint.fingerprint()) == expected and len(expected) > 300


def test_the_cache_keeps_the_newest_run_keys_and_prunes_only_when_what_it_holds_changes(tmp_path, monkeypatch):
    """Run keys past ``MAX_RUNS`` (the least recently written) go when a new key writes its first
    pack, an hour-old temporary file when the packs are folded; a save that only adds a pack
    to a key (a lint after an edit) lists no folder for it."""
    import time

    from generator.lint import cache as lintcache
    from generator.lint.cache import MAX_PACKS, MAX_RUNS, ResultCache

    for n in range(MAX_RUNS + 1):
        store = ResultCache(tmp_path, f"run{n}")
        store.new = {"k": (n,)}
        store.save()
        os.utime(tmp_path / f"run{n}", ns=(n * 10**9, n * 10**9))  # written in this order
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"run{n}" for n in range(1, MAX_RUNS + 1))
    stale = tmp_path / "run1" / ".tmp.1.1.part"
    stale.write_bytes(b"")
    os.utime(stale, (time.time() - 7200, time.time() - 7200))
    listed: list[str] = []
    real = os.scandir
    monkeypatch.setattr(lintcache.os, "scandir", lambda path: listed.append(str(path)) or real(path))
    for n in range(MAX_PACKS - 1):  # packs added to a key that has one: no pruning
        store = ResultCache(tmp_path, "run1")
        store.new = {f"e{n}": (n,)}
        store.save()
    assert listed == [] and stale.exists()
    store = ResultCache(tmp_path, "run1")  # MAX_PACKS packs: this save folds them
    store.new = {"last": (0,)}
    store.save()
    assert listed and not stale.exists() and len(list((tmp_path / "run1").glob("*.pack"))) == 1
