"""The run of ``gpu-gitops lint`` (``LintArgs`` → ``lint``), without click: a lint whose
command line ``cli.plainlint`` parses runs without importing it; ``cli.lint`` holds its click
command. Exit codes: 0 no errors, 1 errors (or warnings with ``--fail-on warning``), 2 usage or
config error.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from generator.cli.common import EXIT_FINDINGS, EXIT_OK, Context, echo, reports_input_errors, unchecked_summary
from generator.diagnostic import Diagnostic, Location
from generator.errors import InputError
from generator.record import Record

TYPE_CHECKING = False  # typing's flag without importing typing (PEP 781; mypy reads it as True)
if TYPE_CHECKING:
    from pathlib import Path

    from generator.lint.settings import Settings
    from generator.validate import SchemaValidator


# The linter, YAML, JSON Schema and rule modules are imported when the lint runs.


class LintArgs(Record):
    """What ``lint`` runs with: ``paths`` files, folders or "-" (default: rendered/ of the project);
    ``fmt`` one of ``generator.report.FORMATS``; ``clusters`` to lint against (``--cluster``);
    ``fail_on`` "error" or "warning"; ``context`` files or folders the cross-file rules see too,
    not reported. The rest as the options of the same names."""

    _fields = (
        "ctx",
        "paths",
        "fmt",
        "output_file",
        "kubernetes_version",
        "clusters",
        "schema_locations",
        "schema_cache",
        "ignore_missing_schemas",
        "require_schemas",
        "strict",
        "fail_on",
        "kubeconform_bin",
        "jobs",
        "no_cache",
        "context",
    )
    __slots__ = _fields

    def __init__(
        self,
        ctx: Context,
        paths: tuple[str, ...] = (),
        fmt: str = "text",
        output_file: Path | None = None,
        kubernetes_version: str | None = None,
        clusters: tuple[str, ...] = (),
        schema_locations: tuple[str, ...] = (),
        schema_cache: Path | None = None,
        ignore_missing_schemas: bool = False,
        require_schemas: bool = False,
        strict: bool = True,
        fail_on: str = "error",
        kubeconform_bin: str | None = None,
        jobs: int | None = None,
        no_cache: bool = False,
        context: tuple[str, ...] = (),
    ):
        self.ctx = ctx
        self.paths = paths
        self.fmt = fmt
        self.output_file = output_file
        self.kubernetes_version = kubernetes_version
        self.clusters = clusters
        self.schema_locations = schema_locations
        self.schema_cache = schema_cache
        self.ignore_missing_schemas = ignore_missing_schemas
        self.require_schemas = require_schemas
        self.strict = strict
        self.fail_on = fail_on
        self.kubeconform_bin = kubeconform_bin
        self.jobs = jobs
        self.no_cache = no_cache
        self.context = context


def _display(ctx: Context) -> Callable[[str], str]:
    """Paths inside the project root are shown relative to it (stable, repo-relative URIs)."""
    root = ctx.project.folder
    inner = root.rstrip(os.sep) + os.sep  # what a path inside the root starts with
    folders: dict[str, str | None] = {}  # a folder's path relative to the root (None: outside), resolved once
    reals: dict[str, str] = {}  # a folder's real path, as os.path.realpath gives it
    plain_root = root == os.path.abspath(root)  # then relpath of a path under it is what follows it

    def real(folder: str) -> str:
        """``os.path.realpath(folder)`` from its parent's, known from the folder before: one
        ``lstat`` of the folder itself instead of one per component (a corpus of a thousand
        folders)."""
        found = reals.get(folder)
        if found is None:
            parent, name = os.path.split(folder)
            if not parent or not name or name in (".", "..") or parent == folder or os.path.islink(folder):
                found = os.path.realpath(folder)
            else:
                found = os.path.join(real(parent), name)
            reals[folder] = found
        return found

    def show(path: str) -> str:
        if path == "-":
            return "stdin"
        parent, name = os.path.split(path)
        if parent not in folders:
            # a symlinked manifest keeps its own name; realpath as pathlib's resolve, without its objects
            absolute = real(parent)
            if not (absolute + os.sep).startswith(inner):
                folders[parent] = None
            elif plain_root:
                folders[parent] = absolute[len(inner) :] or "."
            else:
                folders[parent] = os.path.relpath(absolute, root)
        inside = folders[parent]
        if inside is None:
            return path
        if name in ("", ".", ".."):
            return os.path.normpath(os.path.join(inside, name))
        return name if inside == "." else f"{inside}{os.sep}{name}"  # relpath's answer is normalised

    return show


@reports_input_errors
def lint(args: LintArgs) -> int:
    """Lint the paths and print the report; 1 when a finding is at ``fail_on`` or above."""
    from generator import cpus
    from generator.config import load_config
    from generator.library import providers
    from generator.lint import lint_paths, make_validator
    from generator.lint.loader import discover, read
    from generator.lint.settings import Settings
    from generator.report import Report, render

    ctx, fmt = args.ctx, args.fmt
    config = load_config(ctx.project, ctx.config_path)
    provider = config.data.get("lint", {}).get("provider")
    overrides: dict = {
        # a project that customises the library lints with its own provider table
        "provider_facts": providers.facts(provider, ctx.project.libsonnet) if provider else None,
        "kubernetes_version": args.kubernetes_version,
        "schema_locations": list(args.schema_locations) + config.schema_locations,
        "schema_cache": args.schema_cache,
        "strict": args.strict,
    }
    targets = list(args.paths)
    if not targets:
        ctx.require_project()
        rendered = os.path.join(ctx.project.folder, "rendered")
        if not os.path.isdir(rendered):
            raise InputError(
                "nothing to lint: no paths given and no rendered/ folder",
                hint="pass files or folders, or run `gpu-gitops render` first",
            )
        targets = [rendered]
    scans = {target: _scan(target) for target in targets if target != "-"}
    if all(_rendered_trees(scans.get(target)) for target in targets):
        overrides["complete_set"] = True  # every object of the clusters: a missing name is missing
    settings = Settings.from_config(config.data, **overrides)
    display = _display(ctx)
    findings: list[Diagnostic] = []
    sources = []
    passed_by: dict[str, None] = {}
    validator = None
    runs = _runs(args, config.data, settings, overrides, targets, display)
    trees = [tree for target, scan in scans.items() for tree in _trees_of(target, scan)]
    tree_schemas = _tree_crd_schemas(ctx, trees)
    several = len({cluster for cluster, _, _ in runs}) > 1
    for cluster, run_settings, paths in runs:
        if args.require_schemas or config.require_schemas:
            run_settings.rules["K8S004"] = "error"
        run_validator = make_validator(run_settings)
        if tree_schemas:
            run_validator = run_validator.with_schemas(tree_schemas)
        result = lint_paths(
            paths,
            run_settings,
            display,
            run_validator,
            jobs=args.jobs or cpus.available(),
            cached=not args.no_cache,
            refs=fmt == "junit",
            context=list(args.context),
        )
        if validator is None:
            validator = run_validator
        else:
            validator.warnings.update(run_validator.warnings)
        findings += [_on_cluster(f, cluster) if several else f for f in result.findings]
        sources += result.sources
        passed_by.update(dict.fromkeys(result.passed_by))
    assert validator is not None  # there is always one run
    if args.kubeconform_bin:
        from generator.lint import kubeconform

        if args.require_schemas or config.require_schemas:
            settings.rules["K8S004"] = "error"
        files = [
            p
            for p in discover(targets, settings.excludes, display)
            if p != "-" and os.path.isfile(p) and display(p) not in passed_by
        ]
        output = kubeconform.run(args.kubeconform_bin, files, settings, args.ignore_missing_schemas)
        read_sources = [
            read(path, display(path), settings.strict) for path in files
        ]  # located again, for its findings only
        findings = kubeconform.merge(findings, kubeconform.findings(output, read_sources, display))
    unchecked = [f for f in findings if f.rule == "K8S004"]
    folded = fmt == "text" and not ctx.ui.verbose
    if args.ignore_missing_schemas:
        findings = [f for f in findings if f.rule != "K8S004"]
    _schema_notes(ctx, validator, unchecked, args.ignore_missing_schemas, folded)
    _passed_by_note(ctx, list(passed_by))
    report = Report(
        findings,
        sources,
        ctx.project.folder,
        color=bool(ctx.ui.color if ctx.ui.color is not None else sys.stdout.isatty()) and not args.output_file,
        folded=folded,  # one warning for the run, naming the kinds, as render and check give it; still counted
    )
    if not ctx.ui.quiet:
        echo(report.coverage(), err=True)
    text = render(fmt, report)
    if args.output_file:
        from generator.replace import replace_file

        try:
            replace_file(args.output_file, text)
        except OSError as exc:
            raise InputError(
                f"cannot write the report: {exc.strerror or exc}",
                path=str(args.output_file),
                hint="--output-file needs a writable path in an existing folder, with room for the report; "
                "the previous report is unchanged",
            ) from None
    else:
        echo(text, nl=False, color=report.color)
    if fmt == "text" and not ctx.ui.quiet:
        echo(report.summary(), err=True)
    failing = {"error"} if args.fail_on == "error" else {"error", "warning"}
    return EXIT_FINDINGS if any(f.severity in failing for f in findings) else EXIT_OK


# a target's ``_scan``: whether it holds the sum file, and each folder in it with whether it does
_Scan = tuple[bool, list[tuple[str, bool]]]


def _scan(target: str) -> _Scan | None:
    """Of a folder: whether it holds the sum file render writes in each rendered tree, and the
    name of each folder in it (a link to one counts, as for ``Path.is_dir``), sorted, with
    whether it holds one; None for anything else. One pass over the folder answers both
    questions lint asks of a target (``_rendered_trees``, ``_trees_of``): a corpus of a
    thousand folders was walked twice, a path object and two ``stat`` calls per folder."""
    # SUM_FILE from paths, not tree.fingerprint's import (hashlib, the stat cache) for a name
    from generator.paths import SUM_FILE, is_folder

    try:
        with os.scandir(target) as entries:
            names = sorted(entry.name for entry in entries if is_folder(entry))
    except OSError:  # no folder, or one that cannot be listed: lint reports what it cannot read
        return None
    held = [(name, os.path.isfile(os.path.join(target, name, SUM_FILE))) for name in names]
    return os.path.isfile(os.path.join(target, SUM_FILE)), held


def _rendered_trees(scan: _Scan | None) -> bool:
    """Whether a target (its ``_scan``) is one rendered tree (it holds the sum file) or a folder
    of them (``rendered/``): a set of objects known to be a cluster's whole."""
    if scan is None:
        return False
    tree, folders = scan
    trees = [held for name, held in folders if not name.startswith(".")]
    return tree or (bool(trees) and all(trees))


def _trees_of(target: str, scan: _Scan | None) -> list[str]:
    """The rendered trees a target (with its ``_scan``) is, holds (``rendered/``) or is inside
    (a file or folder of one)."""
    from generator.paths import SUM_FILE, plain

    if scan is not None and not scan[0]:
        held = [plain(target, name) for name, tree in scan[1] if tree]
        if held:
            return held
    path = plain(target)
    if os.path.isfile(os.path.join(path, SUM_FILE)):
        return [path]
    folder = os.path.realpath(path)  # then every folder above it, as Path.resolve().parents
    while (parent := os.path.dirname(folder)) != folder:
        folder = parent
        if os.path.isfile(os.path.join(folder, SUM_FILE)):
            return [folder]
    return []


def _tree_crd_schemas(ctx: Context, trees: list[str]) -> dict:
    """(apiVersion, kind) → document schema of every CRD in the rendered trees linted: what their
    charts install, in preview (``charts/``) or hydrated, as render checks their custom resources
    against them (``render.charts.crd_schemas``), ahead of any schema location. A kind whose
    schema differs between two trees (clusters at different chart versions) is left to the
    schema locations, said once: lint those trees one at a time."""
    if not trees:
        return {}
    unique = {os.path.realpath(tree): tree for tree in trees}
    from generator.lint.crdimport import document_schema, versions
    from generator.paths import walk
    from generator.yamlio.read import TooDeep, load_data

    found: dict[tuple[str, str], dict] = {}
    differing: set[tuple[str, str]] = set()
    for tree in sorted(unique.values()):
        # every customresourcedefinition_*.yaml of the tree, links to folders not followed (as rglob)
        files = [entry.path for entry, _ in walk(tree, _any, _unlisted) if _crd_file(entry.name)]
        for path in sorted(files):
            try:
                with open(path, encoding="utf-8") as handle:
                    crd = load_data(handle.read())
            except (OSError, UnicodeDecodeError, TooDeep):
                continue  # a file lint cannot read is reported as such, with no schema from it
            except Exception as exc:
                from ruamel.yaml import YAMLError  # the full loader's, which imported ruamel.yaml

                if not isinstance(exc, YAMLError):
                    raise
                continue
            spec = crd.get("spec") if isinstance(crd, dict) else None
            if (
                not isinstance(spec, dict)
                or not str(crd.get("apiVersion", "")).startswith("apiextensions.k8s.io/")
                or not isinstance(spec.get("group"), str)
                or not isinstance((spec.get("names") or {}).get("kind"), str)
            ):
                continue  # not a CRD the API server would take: K8S003 says so of the file
            for version, schema in versions(crd):
                key = (f"{spec['group']}/{version}", spec["names"]["kind"])
                document = document_schema(crd, version, schema)
                if found.setdefault(key, document) != document:
                    differing.add(key)
    if differing:
        kinds = ", ".join(f"{kind} ({api})" for api, kind in sorted(differing))
        ctx.ui.diagnostic(
            Diagnostic(
                Location(),
                "warning",
                f"the rendered trees install different versions of {kinds}: checked against the schema locations",
                "lint each tree on its own to check its custom resources against the CRDs it installs",
            )
        )
    return {key: document for key, document in found.items() if key not in differing}


def _crd_file(name: str) -> bool:
    """``customresourcedefinition_*.yaml``: the file name render gives a CRD."""
    prefix, suffix = "customresourcedefinition_", ".yaml"
    return len(name) >= len(prefix) + len(suffix) and name.startswith(prefix) and name.endswith(suffix)


def _any(_name: str) -> bool:
    return True


def _unlisted(_exc: OSError) -> None:
    """A folder of a tree that cannot be listed holds no CRD lint can read (the lint says so of its files)."""


def _runs(
    args: LintArgs, config: dict, settings: Settings, overrides: dict, targets: list[str], display: Callable[[str], str]
) -> list[tuple[str, Settings, list[str]]]:
    """``(cluster, settings, paths)`` per lint run: one per cluster named by ``--cluster`` or
    ``lint.cluster`` over every target; else one per cluster ``lint.clusters`` maps files to
    (a file mapped to several is in several runs), plus one without a cluster for the rest."""
    project = args.ctx.project
    named = list(args.clusters) or ([config["lint"]["cluster"]] if config.get("lint", {}).get("cluster") else [])
    mapping = config.get("lint", {}).get("clusters")
    if not named and not mapping:
        return [("", settings, targets)]  # no cluster: the contract's modules are never loaded
    from generator.lint.clusters import clusters_of, settings_for
    from generator.lint.loader import discover
    from generator.tree import fingerprint

    def settings_of(names: list[str]) -> list:
        # which trees are fresh is found for all the clusters at once: the tool, the library and
        # the schemas are hashed once
        fresh = set(fingerprint.fresh(project, names, args.ctx.config_file, validated=False))
        return [settings_for(project, config, name, _fresh(args.ctx, name, fresh), **overrides) for name in names]

    if named:
        return [(name, found, targets) for name, found in zip(named, settings_of(named), strict=True)]
    known = project.cluster_names()
    groups: dict[str, list[str]] = {}
    for path in discover(targets, settings.excludes, display):
        for name in clusters_of(display(path), mapping, known) or [""]:
            groups.setdefault(name, []).append(path)
    if not groups:
        return [("", settings, targets)]
    mapped = sorted(name for name in groups if name)
    found = dict(zip(mapped, settings_of(mapped), strict=True))
    return [(name, found[name] if name else settings, paths) for name, paths in sorted(groups.items())]


def _fresh(ctx: Context, name: str, fresh: set[str]) -> bool:
    """Whether ``rendered/<name>`` is what its input renders to with this tool (``fresh``: the
    clusters whose sum file says so): then the input passed every check, and the contract read
    from the tree is the input's. A tree that is not is said once: what lint checks against may
    be out of date."""
    if name in fresh:
        return True
    if (ctx.project.rendered / name).is_dir():
        ctx.ui.diagnostic(
            Diagnostic(
                Location(f"rendered/{name}"),
                "warning",
                f"rendered/{name} is not what `gpu-gitops render` writes now: lint --cluster reads the "
                "cluster's classes, quotas and admission policy from there",
                "run `gpu-gitops render` (`gpu-gitops check` says what differs)",
            )
        )
    return False


def _on_cluster(finding: Diagnostic, cluster: str) -> Diagnostic:
    """A finding of a run for ``cluster``, saying so (one file linted for several clusters
    reports per cluster)."""
    if not cluster:
        return finding
    return finding.replace(message=f"[{cluster}] {finding.message}")


def _schema_notes(
    ctx: Context, validator: SchemaValidator, unchecked: list[Diagnostic], ignored: bool, folded: bool
) -> None:
    """On standard error: the schema set used, what was not schema-checked, what could not be checked."""
    kinds = sorted({f"{f.ref.kind} ({f.ref.api_version})" for f in unchecked})
    if ignored and unchecked:
        text = f"--ignore-missing-schemas: skipped {len(unchecked)} object(s) of {len(kinds)} kind(s) without a schema"
        echo(text + (f": {', '.join(kinds)}" if ctx.ui.verbose else " (-v names them)"), err=True)
    elif folded and any(f.severity == "warning" for f in unchecked):
        ctx.ui.diagnostic(unchecked_summary(kinds, rule="K8S004"))
    if ctx.ui.quiet:
        return
    for message in validator.warnings:
        ctx.ui.diagnostic(Diagnostic(Location(), "warning", message))
    if validator.schema_set is not None:
        echo(
            f"custom resources checked against schema set {validator.schema_set.version} "
            f"({validator.schema_set.folder})",
            err=True,
        )


def _passed_by_note(ctx: Context, files: list[str]) -> None:
    """On standard error: the files passed by as no manifests (``nonmanifests.Objects``)."""
    if not files or ctx.ui.quiet:
        return
    text = f"passed by {len(files)} file(s) that are no manifests (no document has apiVersion, kind or metadata)"
    echo(text + (f": {', '.join(files)}" if ctx.ui.verbose else " (-v names them)"), err=True)
