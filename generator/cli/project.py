"""``init``, ``schema``, ``docs`` and ``list``: start a project and read or write what it carries."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import click

from generator.cli.common import EXIT_FINDINGS, EXIT_INPUT, EXIT_OK, Context, finish, reports_input_errors
from generator.diagnostic import shown_name
from generator.errors import InputError


@dataclass
class InitArgs:
    ctx: Context
    name: str
    force: bool = False  # overwrite an existing cluster input


@dataclass
class SchemaArgs:
    ctx: Context


@dataclass
class DocsArgs:
    ctx: Context
    check_only: bool = False  # write nothing; 1 when a generated doc is stale


@dataclass
class ListArgs:
    ctx: Context
    as_json: bool = False


@reports_input_errors
def init(args: InitArgs) -> int:
    """Write ``clusters/NAME/cluster.yaml``, commented and valid."""
    from generator.inputs.scaffold import init_cluster

    ctx = args.ctx
    path = init_cluster(ctx.project, args.name, args.force)
    ctx.ui.out(f"wrote {ctx.project.display(path)}; edit it, then run `gpu-gitops render {args.name}`")
    return EXIT_OK


def schema(args: SchemaArgs) -> int:
    """Print the JSON Schema of cluster inputs."""
    click.echo(args.ctx.project.schema_file.read_text(encoding="utf-8"), nl=False)
    return EXIT_OK


@reports_input_errors
def docs(args: DocsArgs) -> int:
    """Regenerate the reference docs, or (``check_only``) name the stale ones."""
    ctx = args.ctx
    ctx.require_project()
    from generator import docs as reference

    if args.check_only:
        stale = reference.stale(ctx.project)
        for path in stale:
            click.echo(f"{ctx.project.display(path)}: stale: run `gpu-gitops docs`", err=True)
        return EXIT_FINDINGS if stale else EXIT_OK
    for path in reference.write(ctx.project):
        ctx.ui.out(f"wrote {ctx.project.display(path)}")
    return EXIT_OK


@reports_input_errors
def list_clusters(args: ListArgs) -> int:
    """Print the clusters under ``clusters/`` and where they render; a cluster whose input this
    user cannot read is listed, and named on stderr (exit 2), never left out."""
    ctx = args.ctx
    ctx.require_project()
    names = ctx.project.cluster_names()
    rows = [{"name": n, "input": f"clusters/{n}/cluster.yaml", "rendered": f"rendered/{n}"} for n in names]
    if args.as_json:
        click.echo(json.dumps(rows, indent=2))
    else:
        for row in rows:  # a folder name may hold a tab or a newline: one line per cluster all the same
            click.echo("\t".join(shown_name(row[key]) for key in ("name", "input", "rendered")))
    unreadable = [e for e in (_unreadable(ctx, ctx.project.clusters / n) for n in names) if e is not None]
    for error in unreadable:
        ctx.ui.error(error)
    return EXIT_INPUT if unreadable else EXIT_OK


def _unreadable(ctx: Context, folder: Path) -> InputError | None:
    """The error of a cluster whose ``cluster.yaml`` exists and cannot be read (a missing one
    is the cluster's input error when it renders)."""
    path = folder / "cluster.yaml"
    try:
        with open(path, "rb"):
            return None
    except FileNotFoundError:
        return None
    except OSError as exc:
        return InputError(
            f"cannot read file: {exc.strerror or exc}",
            path=shown_name(ctx.project.display(path)),
            hint=f"check that this user may read {shown_name(ctx.project.display(folder))}/ and its files",
        )


# --- parsing ---------------------------------------------------------------------------------


@click.command(name="init")
@click.argument("name")
@click.option("--force", is_flag=True, help="Overwrite an existing cluster input.")
@click.pass_obj
def init_command(ctx: Context, name: str, force: bool) -> None:
    """Scaffold clusters/NAME/cluster.yaml, commented and valid.

    Example: gpu-gitops init aks-h100-training
    """
    finish(init(InitArgs(ctx, name, force)))


@click.command(name="schema")
@click.pass_obj
def schema_command(ctx: Context) -> None:
    """Print the JSON Schema of cluster inputs.

    Example: gpu-gitops schema > cluster.schema.json
    """
    finish(schema(SchemaArgs(ctx)))


@click.command(name="docs")
@click.option("--check", "check_only", is_flag=True, help="Write nothing; exit 1 when a generated doc is stale.")
@click.pass_obj
def docs_command(ctx: Context, check_only: bool) -> None:
    """Regenerate the reference docs under docs/.

    docs/inputs.md from the input schema, docs/versions.md and docs/providers.md from
    libsonnet/versions.json and providers.json, docs/rules.md from the lint rules.

    \b
    Examples:
      gpu-gitops docs
      gpu-gitops docs --check   # in CI
    """
    finish(docs(DocsArgs(ctx, check_only)))


@click.command(name="list")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.pass_obj
def list_command(ctx: Context, as_json: bool) -> None:
    """List the clusters under clusters/ and where they render.

    Example: gpu-gitops list --json
    """
    finish(list_clusters(ListArgs(ctx, as_json)))


COMMANDS = (init_command, schema_command, docs_command, list_command)
