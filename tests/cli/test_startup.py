"""Commands that render nothing start without loading the heavy libraries."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

from conftest import REPO

HEAVY = ("jsonschema", "rjsonnet", "ruamel", "kubernetes_validate", "generator.lint", "generator.render.pipeline")

# runs the command line in a fresh interpreter, then prints the modules it loaded
PROBE = """
import json, sys
from generator.cli import main
sys.argv = ["gpu-gitops", *json.loads(sys.argv[1])]
try:
    main(in_process=True)
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def _run(project, args: list[str], prefixes: tuple[str, ...] = HEAVY, env: dict | None = None) -> tuple[list[str], str]:
    """The modules starting with ``prefixes`` that the command loaded, and its output."""
    result = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(["--root", str(project), *args])],
        capture_output=True,
        encoding="utf-8",
        check=True,
        env=env,
    )
    loaded = json.loads(result.stderr.strip().splitlines()[-1])
    return [m for m in loaded if m.startswith(prefixes)], result.stdout


def _loaded(project, args: list[str], prefixes: tuple[str, ...] = HEAVY) -> list[str]:
    return _run(project, args, prefixes)[0]


# runs command lines one after another in a fresh interpreter, printing after each the modules
# loaded so far and what it printed: a module stays loaded, so what the n-th run lists and the
# run before it did not is what the n-th loaded (nothing a command loads is ever unloaded)
PROBE_EACH = """
import contextlib, io, json, sys
from generator.cli import main
for args in json.loads(sys.argv[1]):
    sys.argv = ["gpu-gitops", *args]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        try:
            main(in_process=True)
        except SystemExit:
            pass
    print("probe:", json.dumps({"modules": sorted(sys.modules), "stdout": printed.getvalue()}), file=sys.stderr)
"""


def _run_each(project, runs: list[list[str]], prefixes: tuple[str, ...] = HEAVY) -> list[tuple[list[str], str]]:
    """Per command line of ``runs``, run in that order in one process: the modules starting with
    ``prefixes`` loaded by it or a run before it, and its output."""
    result = subprocess.run(
        [sys.executable, "-c", PROBE_EACH, json.dumps([["--root", str(project), *args] for args in runs])],
        capture_output=True,
        encoding="utf-8",
        check=True,
    )
    records = [json.loads(line[7:]) for line in result.stderr.splitlines() if line.startswith("probe: ")]
    assert len(records) == len(runs), result.stderr
    return [([m for m in r["modules"] if m.startswith(prefixes)], r["stdout"]) for r in records]


def test_light_commands_do_not_import_heavy_modules(project):
    """`--version`, `list` and `list --json`, one after another: none loads a heavy module."""
    runs = [["--version"], ["list"], ["list", "--json"]]
    answers = _run_each(project, runs)
    assert [(args, loaded) for args, (loaded, _) in zip(runs, answers, strict=True) if loaded] == []
    assert all("aks-h100-training" in stdout for _, stdout in answers[1:])


def _every_command() -> list[list[str]]:
    from generator.cli import cli

    ctx = cli.make_context("gpu-gitops", ["--help"], resilient_parsing=True)
    names = []
    for name in cli.list_commands(ctx):
        command = cli.get_command(ctx, name)
        subcommands = getattr(command, "commands", {})
        names += [[name, sub] for sub in sorted(subcommands)] or [[name]]
    return names


def test_every_commands_help_does_not_import_heavy_modules(project):
    """`--help`, then every command's `--help`, one after another: none loads a heavy module (the
    first that did would be named)."""
    runs = [["--help"], *([*command, "--help"] for command in _every_command())]
    assert len(runs) > 10
    answers = _run_each(project, runs)
    assert [(args, loaded) for args, (loaded, _) in zip(runs, answers, strict=True) if loaded] == []
    assert all("Usage: gpu-gitops" in stdout for _, stdout in answers)


def test_a_no_op_check_loads_no_render_machinery(rendered_project):
    """An up-to-date fleet (a copy of the test run's render) is checked by hashing files: no
    Jsonnet, YAML, JSON Schema or linter."""
    project = rendered_project
    # pipeline only lists clusters and compares hashes here; the schema-set lookup is for reports
    render_side = (
        "generator.render.cluster",
        "generator.library.jsonnet",
        "generator.config",
        "generator.lint.schemasync",
        "generator.render.selection",
        "urllib.request",
    )
    loaded, printed = _run(
        project, ["check"], tuple(m for m in HEAVY if m != "generator.render.pipeline") + render_side
    )
    assert printed.endswith(" up to date\n") and loaded == []


def test_a_no_op_check_loads_no_module_only_a_stale_cluster_needs(rendered_project):
    """Outside a repository, without a chart lock: no dataclass is built (its methods are compiled
    from source), no diff, tree removal, package-data lookup, chart lock or git process."""
    deferred = (
        "dataclasses",
        "difflib",
        "shutil",
        "importlib.resources",
        "zipfile",
        "tempfile",
        "generator.charts.lock",
        "subprocess",
    )
    loaded, printed = _run(rendered_project, ["check"], deferred)
    assert printed.endswith(" up to date\n") and loaded == []


def test_a_lint_without_a_cluster_loads_none_of_the_contracts_modules(project):
    """The CL rules, the admission policies' CEL and the contract's model are for a lint against
    a cluster: a plain lint (every file of the corpus, rendered trees included) never imports them."""
    target = str(REPO / "rendered" / "aks-h100-training")
    contract_side = ("generator.contract", "generator.lint.admission", "generator.validate.cel", "generator.inputs")
    plain, against = _run_each(
        project,
        [
            ["lint", "--no-cache", "--jobs", "1", target],
            ["lint", "--no-cache", "--jobs", "1", "--cluster", "aks-h100-training", target],
        ],
        contract_side,
    )
    assert plain[0] == []
    assert "generator.contract.model" in against[0]


def test_a_lint_after_an_edit_loads_nothing_for_writing_files_or_for_hints(project, tmp_path):
    """A lint whose cache answers every file but the edited one writes no file but the cache's
    own (``replace`` imports tempfile, with shutil, random, bz2 and lzma, when it writes), suggests
    no name (difflib: a misspelt option, a namespace not managed, an unknown rule), runs no
    kubeconform and hashes no rendered tree (``tree.fingerprint``: the sum file's name is ``paths``'),
    reads its command line and writes its report without click (``cli.plainlint``), and hashes
    without OpenSSL (``generator.sha``: hashlib loads libcrypto)."""
    tree = tmp_path / "tree"
    shutil.copytree(REPO / "rendered" / "aks-h100-training", tree)
    args = ["lint", "--jobs", "1", str(tree)]
    deferred = ("tempfile", "shutil", "difflib", "generator.lint.kubeconform", "generator.tree.fingerprint", "click")
    deferred += ("dataclasses", "inspect", "textwrap")  # no dataclass built; a fix hint read without them
    deferred += ("hashlib", "_hashlib")
    env = {**os.environ, "GPU_GITOPS_CACHE_DIR": str(tmp_path / "cache")}
    _run(project, args, deferred, env)  # fills the cache
    edited = sorted(tree.rglob("*.yaml"))[0]
    edited.write_text(edited.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    # its warnings on standard error, coloured where colour is not turned off, are click's to strip
    assert _run(project, ["--color", "never", *args], deferred, env)[0] == []
    assert "click" in _run(project, args, deferred, env)[0]


def test_a_lint_after_an_edit_of_a_plain_document_leaves_ruamel_unloaded(project, tmp_path):
    """The compiled reader reads a plain document without ruamel.yaml: its parser, events and
    errors (``yamlio.events``, the loader's wording of a refused document, the full loader) load
    with the first document that needs them, here none (the CRDs of the rendered tree included;
    the project's config file, too short to count its values from parser events)."""
    shutil.copy(REPO / ".gpu-gitops.yaml", project / ".gpu-gitops.yaml")
    tree = tmp_path / "tree"
    shutil.copytree(REPO / "rendered" / "aks-h100-training", tree)
    args = ["lint", "--jobs", "1", str(tree)]
    deferred = ("ruamel", "_ruamel_yaml", "generator.yamlio.events", "generator.yamlio.goyaml")
    env = {**os.environ, "GPU_GITOPS_CACHE_DIR": str(tmp_path / "cache")}
    _run(project, args, deferred, env)  # fills the cache
    edited = sorted(tree.rglob("*.yaml"))[0]
    edited.write_text(edited.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    assert _run(project, args, deferred, env)[0] == []
    anchored = tree / "anchored.yaml"
    anchored.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: &d {k: v}\n", encoding="utf-8")
    assert "ruamel.yaml" in _run(project, args, deferred, env)[0]  # an anchor: the full loader reads it


def test_help_imports_click_the_root_group_and_the_command_table_only(project):
    """No module of gpu-gitops but the package, ``generator.cli`` and its root group (`--help`
    lists the commands without importing them), nor any library but click's own imports (here
    after an option, which the help cache leaves to click: ``generator.cli.helpcache``)."""
    loaded = _loaded(project, ["--help"], ("generator", "platformdirs", "dataclasses", "jsonschema", "ruamel"))
    expected = ["generator", "generator.cli", "generator.cli.helpcache", "generator.cli.root", "generator.cli.table"]
    assert sorted(loaded) == expected


def test_version_alone_imports_neither_click_nor_any_other_module_of_the_tool(project):
    """`gpu-gitops --version` is answered by the entry point itself: click's import is most of
    the start-up it would cost; it loads the YAML reader's backend only, to name it."""
    probe = [sys.executable, "-c", PROBE, json.dumps(["--version"])]
    result = subprocess.run(probe, capture_output=True, encoding="utf-8", check=True)
    loaded = json.loads(result.stderr.strip().splitlines()[-1])
    ours = [m for m in loaded if m.startswith(("generator", "click", "jsonschema", "ruamel", "rjsonnet"))]
    backend = ["generator.yamlio", "generator.yamlio._cread", "generator.yamlio.backend"]
    assert sorted(ours) == ["generator", "generator.cli", "generator.cli.table", *backend]


def _beyond_the_interpreter(args: list[str]) -> set[str]:
    """The modules a command line loads beyond those of the interpreter's own start-up (``site``
    and whatever the environment's .pth files import), in this interpreter."""
    probe = [sys.executable, "-c", PROBE, json.dumps(args)]
    loaded = json.loads(
        subprocess.run(probe, capture_output=True, encoding="utf-8", check=True).stderr.splitlines()[-1]
    )
    floor = [sys.executable, "-c", "import json, sys; print(json.dumps(sorted(sys.modules)))"]
    return set(loaded) - set(json.loads(subprocess.run(floor, capture_output=True, check=True).stdout))


def test_an_editable_install_adds_no_import_finder_to_every_start():
    """``package-dir`` names the root (pyproject.toml): setuptools then installs a checkout as a
    path in a .pth, not as an import finder that ``site`` imports at every start of Python
    (pathlib, importlib.util and urllib.parse with it: half of `gpu-gitops --version`)."""
    probe = [sys.executable, "-c", "import json, sys; print(json.dumps(sorted(sys.modules)))"]
    loaded = json.loads(subprocess.run(probe, capture_output=True, check=True).stdout)
    assert [m for m in loaded if "gpu_gitops" in m] == []


def test_version_imports_neither_typing_nor_re():
    """`--version` names the YAML backend through ``yamlio.backend``, whose module top imports no
    ``typing`` (with ``re``, ``enum`` and ``contextlib``, 40 M instructions: as much again as the
    rest of the command)."""
    assert {"typing", "re", "enum", "contextlib", "dataclasses", "pathlib"} & _beyond_the_interpreter(
        ["--version"]
    ) == set()


def test_help_leaves_pathlib_to_the_commands():
    """The root group takes ``--root`` and ``--config`` as strings and makes them paths when a
    command runs: `--help` through click does not import pathlib (with fnmatch and urllib.parse,
    15 M instructions; click does not need it). (After ``--color``, the help cache leaves it to
    click; storing a page does import it, once.)"""
    assert "pathlib" not in _beyond_the_interpreter(["--color", "never", "--help"])


def test_version_prints_what_clicks_version_option_prints():
    """The entry point's answer to `--version` (the version and the YAML reader's backend) is byte
    for byte the root group's, exit 0."""
    from click.testing import CliRunner

    from generator.cli import cli

    fast = subprocess.run(
        [sys.executable, "-c", "from generator.cli import main; main()", "--version"], capture_output=True
    )
    clicks = CliRunner().invoke(cli, ["--version"], prog_name="gpu-gitops")
    assert fast.returncode == clicks.exit_code == 0
    assert fast.stdout == clicks.stdout_bytes and fast.stderr == b""


def test_judging_a_clusters_admission_policy_loads_the_cel_evaluator_alone():
    """CL006 runs the policy's CEL: the evaluator's compiled module is loaded on its own, not
    its package, which also imports a command line (typer, rich, prompt_toolkit: 0.15 s in
    each lint worker that evaluates a rule)."""
    from conftest import REPO

    app = REPO / "tests" / "lint" / "apps" / "eval.yaml"
    args = ["lint", "-o", "json", "--cluster", "eks-mi300x-inference", str(app)]
    loaded, stdout = _run(REPO, args, ("cel", "typer", "rich", "prompt_toolkit"))
    assert '"CL006"' in stdout and loaded == ["cel.cel"]


def test_the_lint_modules_load_neither_dataclasses_nor_a_docstring_reader():
    """The rule registry, the engine and the lint's run build no dataclass (``dataclasses``
    imports ``inspect``, with ast, dis and tokenize) and read a rule's docstring (``ruledoc``:
    ``inspect`` and ``textwrap``) only when a finding needs its fix hint."""
    probe = "import json, sys, generator.lint.rules, generator.lint.engine, generator.cli.lintrun\n"
    probe += "print(json.dumps(sorted(sys.modules)))"
    loaded = json.loads(subprocess.run([sys.executable, "-c", probe], capture_output=True, check=True).stdout)
    assert [m for m in ("dataclasses", "inspect", "textwrap") if m in loaded] == []
