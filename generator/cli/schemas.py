"""``schemas import`` and ``schemas sync``: JSON Schemas for custom resources."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from generator.cli.common import EXIT_OK, Context, finish, reports_input_errors
from generator.cli.options import OutputOptionsGroup


@dataclass
class ImportArgs:
    ctx: Context
    crds: tuple[Path, ...]
    output_dir: Path = Path("schemas/crds")  # relative to the project root


@dataclass
class SyncArgs:
    ctx: Context
    mirror: Path | None = None  # a local folder of the CRD files instead of downloading them


@reports_input_errors
def import_crds(args: ImportArgs) -> int:
    """Write a strict JSON Schema per CRD version under ``output_dir``."""
    from generator.lint.crdimport import import_files

    ctx = args.ctx
    target = args.output_dir if args.output_dir.is_absolute() else ctx.project.root / args.output_dir
    written = import_files(list(args.crds), target, lambda p: ctx.project.display(Path(p).resolve()))
    for path in written:
        ctx.ui.out(f"wrote {ctx.project.display(path)}")
    ctx.ui.out(
        f"use: --schema-location '{ctx.project.display(target)}/{{{{.Group}}}}/"
        "{{.ResourceKind}}_{{.ResourceAPIVersion}}.json'"
    )
    return EXIT_OK


@reports_input_errors
def sync(args: SyncArgs) -> int:
    """Install the pinned upstream CRDs' schemas in the user cache."""
    from generator.lint import schemasync

    installed = schemasync.sync(mirror=args.mirror)
    args.ctx.ui.out(f"schema set {installed.version}: {installed.kinds} schemas, in {installed.folder}")
    if installed.absent:
        args.ctx.ui.out(f"not in the mirror, not installed: {', '.join(installed.absent)}")
    return EXIT_OK


# --- parsing ---------------------------------------------------------------------------------


@click.group(name="schemas", cls=OutputOptionsGroup)
def schemas_group() -> None:
    """Manage JSON Schemas for custom resources.

    sync installs the schemas of the custom resources gpu-gitops renders (pinned upstream
    CRDs, checksums verified); import makes schemas from CRDs of your own.

    \b
    Examples:
      gpu-gitops schemas sync
      gpu-gitops schemas import vendor/crds/*.yaml
      gpu-gitops schemas import --help
    """


@click.command(name="import")
@click.argument("crds", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--output-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("schemas/crds"),
    show_default=True,
    help="Where to write <group>/<kind>_<version>.json (relative to the root).",
)
@click.pass_obj
def import_command(ctx: Context, **options: Any) -> None:
    """Convert CustomResourceDefinitions into strict JSON Schemas for lint.

    Use the result with --schema-location 'DIR/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json'.

    \b
    Example:
      kubectl get crd -o yaml > crds.yaml && gpu-gitops schemas import crds.yaml
    """
    finish(import_crds(ImportArgs(ctx, **options)))


@click.command(name="sync")
@click.option(
    "--from",
    "mirror",
    type=click.Path(file_okay=False, path_type=Path),
    help="Take the CRD files from this local mirror (matched by file name or checksum) instead of downloading them.",
)
@click.pass_obj
def sync_command(ctx: Context, **options: Any) -> None:
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
    finish(sync(SyncArgs(ctx, **options)))


schemas_group.add_command(import_command)
schemas_group.add_command(sync_command)
COMMANDS = (schemas_group,)
