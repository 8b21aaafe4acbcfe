"""``lint``, ``rules`` and ``explain``: manifests checked against schemas and rules; the
parsing of each, and the functions that run ``rules`` and ``explain`` (``lint``'s run is
``cli.lintrun``'s).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from generator.cli import files_closed
from generator.cli.common import EXIT_OK, Context, finish, reports_input_errors
from generator.cli.lintrun import LintArgs, lint
from generator.errors import InputError
from generator.report import FORMATS

__all__ = ["COMMANDS", "ExplainArgs", "LintArgs", "RulesArgs", "explain", "lint", "rules"]

# Each command imports the linter, YAML, JSON Schema and rule modules it uses when it runs:
# `gpu-gitops --help` and every command's --help load none of them.


@dataclass
class RulesArgs:
    ctx: Context
    as_json: bool = False


@dataclass
class ExplainArgs:
    ctx: Context
    rule_id: str


def rules(args: RulesArgs) -> int:
    """Print the lint rules, then the input checks: ID, default severity, name and summary."""
    from generator.inputs import consistency
    from generator.lint.rules import REGISTRY

    metas = [r.meta for r in REGISTRY] + [c.meta for c in consistency.REGISTRY]
    if args.as_json:
        import json

        click.echo(
            json.dumps(
                [{"id": m.id, "name": m.name, "severity": m.severity, "summary": m.summary} for m in metas], indent=2
            )
        )
        return EXIT_OK
    for m in metas:
        click.echo(f"{m.id:<8} {m.severity:<8} {m.name:<32} {m.summary}")
    return EXIT_OK


@reports_input_errors
def explain(args: ExplainArgs) -> int:
    """Print what a lint rule or an input check finds, why, how to fix it, its options and examples."""
    from generator import ruledoc
    from generator.inputs import consistency
    from generator.lint.rules import REGISTRY, rule

    lint_rule = rule(args.rule_id)
    check = consistency.check(args.rule_id)
    if lint_rule is not None:
        meta, options = lint_rule.meta, lint_rule.options
    elif check is not None:
        meta, options = check.meta, {}
    else:
        import difflib

        known = [r.meta.id for r in REGISTRY] + list(consistency.BY_ID)
        close = difflib.get_close_matches(args.rule_id.upper(), known, n=1, cutoff=0.8)
        raise InputError(
            f"unknown rule {args.rule_id!r}",
            hint=(f"did you mean {close[0]}? " if close else "") + "`gpu-gitops rules` lists them",
        )
    description, rationale, fix = ruledoc.sections(meta.doc, "text")
    kind = "" if lint_rule else ", input check"
    click.echo(f"{meta.id} {meta.name} ({meta.severity}{kind})\n\n{description}\n\nWhy: {rationale}\n\nFix: {fix}")
    for name, option in options.items():
        click.echo(f"\nOption {name} (lint.rules.{meta.id}.{name}): {option.description.replace('`', '')}")
    for example in ruledoc.split(meta.doc)[1]:
        click.echo(f"\n--- {example.verdict.lower()}\n{example.text.rstrip()}")
    return EXIT_OK


# --- parsing ---------------------------------------------------------------------------------


@click.command(name="lint")
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
    "--cluster",
    "clusters",
    multiple=True,
    help="Lint against this cluster's contract (version, pools, namespaces, quotas, classes, admission "
    "policy); repeatable: findings per cluster. Default: lint.cluster, else the lint.clusters mapping.",
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
@click.option(
    "--context",
    multiple=True,
    help="Files or folders whose objects the cross-file rules (XR, CL) see as well, their own findings not "
    "reported; the pre-commit hook passes the project, so a batch of files is judged against the same set "
    "whatever the batch. Repeatable.",
)
@click.pass_obj
def lint_command(ctx: Context, **options: Any) -> None:
    """Lint manifests: strict schemas, GPU, huge pages, API-version and security rules.

    PATHS are files, folders (searched for .yaml/.yml/.json) or - for stdin; default:
    rendered/ of the project. Findings print as path:line:col: severity: message [RULE-ID].

    \b
    Examples:
      gpu-gitops lint
      gpu-gitops lint deploy/ --format sarif --output-file lint.sarif
      kubectl kustomize overlays/prod | gpu-gitops lint -
    """
    code = lint(LintArgs(ctx, **options))
    files_closed()  # the report, the cache's packs and every file read are closed: main may skip teardown
    finish(code)


@click.command(name="rules")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.pass_obj
def rules_command(ctx: Context, as_json: bool) -> None:
    """List the lint rules and the input checks: ID, default severity, name and summary.

    Example: gpu-gitops rules
    """
    finish(rules(RulesArgs(ctx, as_json)))


def complete_rule_ids(_ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[str]:
    """Shell completion: the lint rule and input check IDs (``gpu001`` completes as ``GPU001``)."""
    from generator.inputs import consistency
    from generator.lint.rules import REGISTRY

    return [m.id for m in (r.meta for r in REGISTRY) if m.id.startswith(incomplete.upper())] + [
        c.meta.id for c in consistency.REGISTRY if c.meta.id.startswith(incomplete.upper())
    ]


@click.command(name="explain")
@click.argument("rule_id", shell_complete=complete_rule_ids)
@click.pass_obj
def explain_command(ctx: Context, rule_id: str) -> None:
    """Explain a lint rule or an input check: what it finds, why, how to fix it, with examples.

    \b
    Examples:
      gpu-gitops explain GPU001
      gpu-gitops explain IN101
    """
    finish(explain(ExplainArgs(ctx, rule_id)))


COMMANDS = (lint_command, rules_command, explain_command)
