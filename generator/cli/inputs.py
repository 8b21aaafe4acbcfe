"""``explain-input`` and ``migrate``: where an input's value comes from, and older inputs
rewritten for the current contract."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import click

from generator.cli.common import EXIT_FINDINGS, EXIT_OK, Context, finish, reports_input_errors
from generator.cli.options import clusters_argument


@dataclass
class ExplainInputArgs:
    ctx: Context
    cluster: str
    key: str
    as_json: bool = False


@dataclass
class MigrateArgs:
    ctx: Context
    clusters: tuple[str, ...] = ()  # default: every cluster
    dry_run: bool = False  # print what would change; write nothing; 1 when something would


@reports_input_errors
def explain_input(args: ExplainInputArgs) -> int:
    """Print the value of KEY in the cluster's complete input and every file that set it."""
    ctx = args.ctx
    ctx.require_project()
    from generator.inputs.explain import explain
    from generator.inputs.load import check_cluster_name

    found = explain(ctx.project, check_cluster_name(args.cluster), args.key)
    if args.as_json:
        setters = [{"file": f, "line": line, "col": col} for f, line, col in found.setters]
        removed = found.removed_by and dict(zip(("file", "line", "col"), found.removed_by, strict=True))
        record = {"key": found.key, "value": found.value, "set": found.path_found, "setBy": setters}
        click.echo(json.dumps({**record, "removedBy": removed, "layers": found.layers}, indent=2))
    else:
        for line in found.lines():
            click.echo(line)
    return EXIT_OK


@reports_input_errors
def migrate(args: MigrateArgs) -> int:
    """Rewrite the clusters' input files (and their bases) for the current input version."""
    ctx = args.ctx
    ctx.require_project()
    from generator.inputs import migrate as migration
    from generator.render.pipeline import select

    plans = migration.plan(ctx.project, select(ctx.project, args.clusters))
    for one in plans:
        for change in one.changes:
            click.echo(f"{one.shown}: {change}")
    if not plans:
        ctx.ui.out("nothing to migrate: every input is written for the current version")
        return EXIT_OK
    if args.dry_run:
        return EXIT_FINDINGS
    migration.write(plans)
    ctx.ui.out(f"migrated {len(plans)} file(s); review with `git diff`, then run `gpu-gitops render`")
    return EXIT_OK


# --- parsing ---------------------------------------------------------------------------------


@click.command(name="explain-input")
@click.argument("cluster")
@click.argument("key")
@click.option(
    "--json", "as_json", is_flag=True, help="One JSON document: the value, the files that set it, the layers."
)
@click.pass_obj
def explain_input_command(ctx: Context, **options: Any) -> None:
    """Show KEY's value in CLUSTER's input and every file (base or cluster) that set it.

    \b
    Examples:
      gpu-gitops explain-input aks-h100-training network.cilium.mtu
      gpu-gitops explain-input aks-h100-training 'nodePools[h100].gpu.perNode'
    """
    finish(explain_input(ExplainInputArgs(ctx, **options)))


@click.command(name="migrate")
@clusters_argument
@click.option(
    "--dry-run", is_flag=True, help="Print what would change and write nothing (exit 1 when something would)."
)
@click.pass_obj
def migrate_command(ctx: Context, **options: Any) -> None:
    """Rewrite cluster inputs and their bases from an older input version to the current one.

    Comments, key order and quoting are kept; each change is printed.

    \b
    Examples:
      gpu-gitops migrate --dry-run
      gpu-gitops migrate aks-h100-training
    """
    finish(migrate(MigrateArgs(ctx, **options)))


COMMANDS = (explain_input_command, migrate_command)
