"""The ``lint``, ``rules``, ``explain``, ``schemas import`` and ``schemas sync`` commands.

Registered on the main ``cli`` group by ``generator.cli``; kept apart so the render side
of the command line and the lint side change independently. Exit codes: 0 no errors,
1 errors (or warnings with ``--fail-on warning``), 2 usage or config error.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from generator import cpus
from generator.cli import EXIT_FINDINGS, EXIT_INPUT, EXIT_OK, Context, _fail_on_input_errors, cli
from generator.errors import InputError
from generator.report import FORMATS

# Each command imports the linter, YAML, JSON Schema and rule modules it uses when it runs:
# `gpu-gitops --help` and every command's --help load none of them.


def _display(ctx: Context):
    """Paths inside the project root are shown relative to it (stable, repo-relative URIs)."""
    root = ctx.project.root
    folders: dict[str, str | None] = {}  # a folder's path relative to the root (None: outside), resolved once

    def show(path: str) -> str:
        if path == "-":
            return "stdin"
        parent, name = os.path.split(path)
        if parent not in folders:
            absolute = Path(parent).resolve()  # a symlinked manifest keeps its own name
            folders[parent] = os.path.relpath(absolute, root) if absolute.is_relative_to(root) else None
        inside = folders[parent]
        return path if inside is None else os.path.normpath(os.path.join(inside, name))

    return show


@cli.command()
@click.argument("paths", nargs=-1)
@click.option(
    "-o", "--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True, help="Output format."
)
@click.option(
    "--output-file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the report here instead of standard output.",
)
@click.option(
    "--kubernetes-version", help="Target version X.Y[.Z] (default: lint.kubernetesVersion, else the newest bundled)."
)
@click.option(
    "--schema-location",
    "schema_locations",
    multiple=True,
    help="kubeconform-style schema location (local template, http(s) template or 'default'). Repeatable.",
)
@click.option(
    "--schema-cache",
    type=click.Path(file_okay=False, path_type=Path),
    help="Folder caching downloaded schemas (default: schemas/ in the user cache folder).",
)
@click.option(
    "--ignore-missing-schemas",
    is_flag=True,
    help="Skip kinds without a schema and say how many objects were skipped (-v names the kinds).",
)
@click.option("--require-schemas", is_flag=True, help="A kind without a schema is an error, not a warning.")
@click.option(
    "--strict/--no-strict",
    default=True,
    show_default=True,
    help="Reject unknown fields and duplicate keys (kubeconform -strict).",
)
@click.option(
    "--fail-on",
    type=click.Choice(["error", "warning"]),
    default="error",
    show_default=True,
    help="Lowest severity that makes the exit code 1.",
)
@click.option(
    "--kubeconform",
    "kubeconform_bin",
    is_flag=False,
    flag_value="kubeconform",
    default=None,
    help="Also run kubeconform and merge its findings; --kubeconform=PATH for a binary not on PATH.",
)
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes checking files (default: the CPUs this process may use).",
)
@click.option("--no-cache", is_flag=True, help="Check every file again, ignoring and not storing cached results.")
@click.pass_obj
@_fail_on_input_errors
def lint(
    ctx: Context,
    paths,
    fmt,
    output_file,
    kubernetes_version,
    schema_locations,
    schema_cache,
    ignore_missing_schemas,
    require_schemas,
    strict,
    fail_on,
    kubeconform_bin,
    jobs,
    no_cache,
):
    """Lint manifests: strict schemas, GPU, huge pages, API-version and security rules.

    PATHS are files, folders (searched for .yaml/.yml/.json) or - for stdin; default:
    rendered/ of the project. Findings print as path:line:col: severity: message [RULE-ID].

    \b
    Examples:
      gpu-gitops lint
      gpu-gitops lint deploy/ --format sarif --output-file lint.sarif
      kubectl kustomize overlays/prod | gpu-gitops lint -
    """
    from generator.config import load_config
    from generator.lint import kubeconform, lint_paths, make_validator
    from generator.lint.loader import discover, read
    from generator.lint.settings import Settings
    from generator.report import Report, render

    config = load_config(ctx.project, ctx.config_path)
    settings = Settings.from_config(
        config.data,
        kubernetes_version=kubernetes_version,
        schema_locations=list(schema_locations) + config.schema_locations,
        schema_cache=schema_cache,
        strict=strict,
    )
    if require_schemas or config.require_schemas:
        settings.rules["K8S004"] = "error"
    targets = list(paths)
    if not targets:
        ctx.require_project()
        if not ctx.project.rendered.is_dir():
            raise InputError(
                "nothing to lint: no paths given and no rendered/ folder",
                hint="pass files or folders, or run `gpu-gitops render` first",
            )
        targets = [str(ctx.project.rendered)]
    display = _display(ctx)
    validator = make_validator(settings)
    result = lint_paths(
        targets, settings, display, validator, jobs=jobs or cpus.available(), cached=not no_cache, refs=fmt == "junit"
    )
    findings = result.findings
    if kubeconform_bin:
        files = [p for p in discover(targets, settings.excludes, display) if p != "-" and os.path.isfile(p)]
        output = kubeconform.run(kubeconform_bin, files, settings, ignore_missing_schemas)
        sources = [read(path, display(path), settings.strict) for path in files]  # located again, for its findings only
        findings = kubeconform.merge(findings, kubeconform.findings(output, sources, display))
    unchecked = [f for f in findings if f.rule == "K8S004"]
    if ignore_missing_schemas:
        findings = [f for f in findings if f.rule != "K8S004"]
    elif fmt == "text" and not ctx.ui.verbose:
        # one warning for the run, naming the kinds, as render and check give it
        findings = [f for f in findings if not (f.rule == "K8S004" and f.severity == "warning")]
    _schema_notes(ctx, validator, unchecked, ignore_missing_schemas, folded=fmt == "text" and not ctx.ui.verbose)
    report = Report(
        findings,
        result.sources,
        ctx.project.root,
        color=bool(ctx.ui.color if ctx.ui.color is not None else sys.stdout.isatty()) and not output_file,
    )
    text = render(fmt, report)
    if output_file:
        try:
            output_file.write_text(text)
        except OSError as exc:
            raise InputError(
                f"cannot write the report: {exc.strerror or exc}",
                path=str(output_file),
                hint="--output-file needs a writable path in an existing folder",
            ) from None
    else:
        click.echo(text, nl=False, color=report.color)
    if fmt == "text" and not ctx.ui.quiet:
        click.echo(report.summary(), err=True)
    failing = {"error"} if fail_on == "error" else {"error", "warning"}
    sys.exit(EXIT_FINDINGS if any(f.severity in failing for f in findings) else EXIT_OK)


def _schema_notes(ctx: Context, validator, unchecked, ignored: bool, folded: bool) -> None:
    """On standard error: the schema set used, what was not schema-checked, what could not be checked."""
    from generator import schemasync

    warn = click.style("warning:", fg="yellow", bold=True)
    kinds = sorted({f"{f.ref.kind} ({f.ref.api_version})" for f in unchecked})
    if ignored and unchecked:
        text = f"--ignore-missing-schemas: skipped {len(unchecked)} object(s) of {len(kinds)} kind(s) without a schema"
        click.echo(text + (f": {', '.join(kinds)}" if ctx.ui.verbose else " (-v names them)"), err=True)
    elif folded and any(f.severity == "warning" for f in unchecked):
        click.echo(
            f"{warn} no schema found, not schema-checked: {', '.join(kinds)} [K8S004]", err=True, color=ctx.ui.color
        )
        click.echo(f"  hint: {schemasync.MISSING_HINT}", err=True)
    if ctx.ui.quiet:
        return
    for message in validator.warnings:
        click.echo(f"{warn} {message}", err=True, color=ctx.ui.color)
    if validator.schema_set is not None:
        click.echo(
            f"custom resources checked against schema set {validator.schema_set.version} "
            f"({validator.schema_set.folder})",
            err=True,
        )


@cli.command(name="rules")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def rules_(as_json):
    """List the lint rules: ID, default severity, name and summary.

    Example: gpu-gitops rules
    """
    from generator.lint.rules import REGISTRY

    if as_json:
        import json

        click.echo(
            json.dumps(
                [{"id": r.ID, "name": r.NAME, "severity": r.SEVERITY, "summary": r.SUMMARY} for r in REGISTRY], indent=2
            )
        )
        return
    for r in REGISTRY:
        click.echo(f"{r.ID:<8} {r.SEVERITY:<8} {r.NAME:<32} {r.SUMMARY}")


def complete_rule_ids(_ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[str]:
    """Shell completion: the lint rule IDs (``gpu001`` completes as ``GPU001``)."""
    from generator.lint.rules import REGISTRY

    return [r.ID for r in REGISTRY if r.ID.startswith(incomplete.upper())]


@cli.command()
@click.argument("rule_id", shell_complete=complete_rule_ids)
@click.pass_obj
def explain(ctx: Context, rule_id):
    """Explain a rule: what it finds, why, how to fix it, with failing and passing examples.

    Example: gpu-gitops explain GPU001
    """
    from generator.lint.options import declared
    from generator.lint.rules import examples, rule, sections

    found = rule(rule_id)
    if found is None:
        ctx.ui.error(InputError(f"unknown rule {rule_id!r}", hint="`gpu-gitops rules` lists them"))
        sys.exit(EXIT_INPUT)
    description, rationale, fix = sections(found)
    click.echo(f"{found.ID} {found.NAME} ({found.SEVERITY})\n\n{description}\n\nWhy: {rationale}\n\nFix: {fix}")
    for name, option in declared(found).items():
        click.echo(f"\nOption {name} (lint.rules.{found.ID}.{name}): {option.description}")
    for example in examples(found):
        click.echo(f"\n--- {example.verdict.lower()}\n{example.text.rstrip()}")


@cli.group()
def schemas():
    """Manage JSON Schemas for custom resources.

    sync installs the schemas of the custom resources gpu-gitops renders (pinned upstream
    CRDs, checksums verified); import makes schemas from CRDs of your own.

    \b
    Examples:
      gpu-gitops schemas sync
      gpu-gitops schemas import vendor/crds/*.yaml
      gpu-gitops schemas import --help
    """


@schemas.command(name="import")
@click.argument("crds", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--output-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("schemas/crds"),
    show_default=True,
    help="Where to write <group>/<kind>_<version>.json (relative to the root).",
)
@click.pass_obj
@_fail_on_input_errors
def import_(ctx: Context, crds, output_dir):
    """Convert CustomResourceDefinitions into strict JSON Schemas for lint.

    Use the result with --schema-location 'DIR/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json'.

    \b
    Example:
      kubectl get crd -o yaml > crds.yaml && gpu-gitops schemas import crds.yaml
    """
    from generator.lint.crdimport import import_files

    target = output_dir if output_dir.is_absolute() else ctx.project.root / output_dir
    written = import_files(list(crds), target, lambda p: ctx.project.display(Path(p).resolve()))
    for path in written:
        ctx.ui.out(f"wrote {ctx.project.display(path)}")
    ctx.ui.out(
        f"use: --schema-location '{ctx.project.display(target)}/{{{{.Group}}}}/"
        "{{.ResourceKind}}_{{.ResourceAPIVersion}}.json'"
    )


@schemas.command(name="sync")
@click.option(
    "--from",
    "mirror",
    type=click.Path(file_okay=False, path_type=Path),
    help="Take the CRD files from this local mirror (matched by file name or checksum) instead of downloading them.",
)
@click.pass_obj
@_fail_on_input_errors
def sync(ctx: Context, mirror):
    """Download the pinned upstream CRDs, verify their checksums and install their schemas.

    The package lists, for every custom resource the generator renders and the kinds GPU
    platforms commonly run beside it, the upstream CRD file at the release the platform deploys
    and its sha256. A file whose checksum differs stops the sync and nothing is installed.
    The schemas go to the user cache (GPU_GITOPS_CACHE_DIR overrides it); render, check and
    lint use them from then on with no flag.

    \b
    Examples:
      gpu-gitops schemas sync
      gpu-gitops schemas sync --from /mnt/mirror/crds     # air-gapped
    """
    from generator import schemasync

    installed = schemasync.sync(mirror=mirror)
    ctx.ui.out(f"schema set {installed.version}: {installed.kinds} schemas, in {installed.folder}")
    if installed.absent:
        ctx.ui.out(f"not in the mirror, not installed: {', '.join(installed.absent)}")
