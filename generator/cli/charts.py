"""``charts pull``: the chart packages the clusters deploy, into the cache and the lock."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from generator.cli.common import EXIT_OK, Context, finish, reports_input_errors
from generator.cli.options import OutputOptionsGroup
from generator.paths import Project


@dataclass
class PullArgs:
    ctx: Context
    mirror: Path | None = None  # a local folder of chart packages instead of the repositories


def deployed(project: Project) -> list:
    """Every chart a cluster deploys (``charts.pull.Wanted``), read from the releases its tree
    renders; the first cluster whose input is bad stops the pull with its error."""
    from generator.charts.pull import Wanted
    from generator.charts.releases import find
    from generator.inputs.load import load_cluster
    from generator.render.evaluation import evaluate_many

    clusters = [load_cluster(project, name) for name in project.cluster_names()]
    wanted = []
    for components in evaluate_many(project, clusters):
        if isinstance(components, Exception):
            raise components
        wanted += [Wanted(r.repository, r.chart, r.version) for r in find(components)]
    return wanted


@reports_input_errors
def pull(args: PullArgs) -> int:
    """Fetch the charts the clusters deploy, verify them against the lock, write the lock."""
    from generator.charts import lock, pull, store
    from generator.render.charts import read_lock

    project = args.ctx.require_project()
    shown = project.display(project.chart_lock)
    pulled = pull.pull(deployed(project), read_lock(project), args.mirror, shown)
    text = lock.text(pulled.entries)
    try:
        unchanged = project.chart_lock.read_text(encoding="utf-8") == text
    except OSError:
        unchanged = False
    if not unchanged:
        lock.write(project.chart_lock, pulled.entries)
    for entry in pulled.fetched:
        args.ctx.ui.out(f"pulled {entry.shown()} {entry.digest}")
    for entry in pulled.dropped:
        args.ctx.ui.out(f"dropped from the lock: {entry.shown()} (no cluster deploys it)")
    args.ctx.ui.out(
        f"{len(pulled.entries)} charts in {store.folder()}; {shown} {'unchanged' if unchanged else 'written'}"
    )
    return EXIT_OK


# --- parsing ---------------------------------------------------------------------------------


@click.group(name="charts", cls=OutputOptionsGroup)
def charts_group() -> None:
    """Manage the Helm charts the clusters deploy.

    pull fetches every chart the rendered releases install, at the pinned versions, into the
    user cache, and records each package's digest in clusters/charts.lock. render, check, diff
    and lint then inflate the charts offline from that cache.

    \b
    Examples:
      gpu-gitops charts pull
      gpu-gitops charts pull --from /mnt/mirror/charts     # air-gapped
    """


@click.command(name="pull")
@click.option(
    "--from",
    "mirror",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Take the chart packages (<chart>-<version>.tgz) from this local folder instead of downloading them.",
)
@click.pass_obj
def pull_command(ctx: Context, **options: Any) -> None:
    """Fetch the charts the clusters deploy into the cache, verified against clusters/charts.lock.

    A package whose digest differs from the lock is refused, naming both digests, and nothing
    is stored or written. The cache is the user cache folder (GPU_GITOPS_CACHE_DIR overrides
    it). This is the only command that downloads charts.

    \b
    Examples:
      gpu-gitops charts pull
      gpu-gitops charts pull --from /mnt/mirror/charts     # air-gapped
    """
    finish(pull(PullArgs(ctx, **options)))


charts_group.add_command(pull_command)
COMMANDS = (charts_group,)
