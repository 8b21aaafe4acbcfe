"""Which clusters a command acts on in a large repository: changed ones, or one CI shard.

``--changed-only`` asks git which files changed and keeps the clusters they can affect (a
changed base: every cluster that uses it, through other bases too), so a pre-commit hook on a
fleet of hundreds of clusters renders one or two. ``--shard i/n`` splits
the sorted cluster list into n nearly equal contiguous parts, so CI runs n jobs in parallel.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from generator import git, regex
from generator.errors import InputError

# A change under these affects how every cluster renders.
AFFECTS_ALL = ("libsonnet/", "schemas/", "generator/", ".gpu-gitops.yaml")
# A change under these affects the cluster named by the next path segment.
PER_CLUSTER = ("clusters/", "rendered/")


_HINT = "--changed-only works in a git checkout with git installed; --base must name a commit, e.g. origin/main"


def _git(root: Path, *args: str) -> str:
    return git.run(root, args, _HINT).decode("utf-8", errors="surrogateescape")


def changed_files(root: Path, base: str = "HEAD") -> list[str]:
    """Files that differ from ``base`` (committed since the merge base, staged, unstaged or
    untracked), relative to ``root``; paths outside ``root`` are left out."""
    since = _git(root, "merge-base", git.commit(root, base, _HINT), "HEAD").strip() if base != "HEAD" else "HEAD"
    # -z: paths verbatim, never quoted or escaped
    tracked = _git(root, "diff", "-z", "--name-only", "--relative", "--no-renames", since, "--").split("\0")
    untracked = _git(root, "ls-files", "-z", "--others", "--exclude-standard").split("\0")
    return sorted((set(tracked) | set(untracked)) - {""})


# A change under this affects the clusters that use the base (``bases_used``).
BASES = "clusters/_bases/"


def affected(
    changed: list[str], clusters: list[str], bases_used: Callable[[], dict[str, set[str]]] | None = None
) -> list[str]:
    """The clusters, of ``clusters``, whose render the changed paths can alter; ``bases_used``
    gives each cluster's base files (asked only when a base changed)."""
    if any(path.startswith(AFFECTS_ALL) or path in AFFECTS_ALL for path in changed):
        return list(clusters)
    hit = set()
    for path in changed:
        for prefix in PER_CLUSTER:
            if path.startswith(prefix):
                hit.add(path[len(prefix) :].split("/", 1)[0])
    bases = {path for path in changed if path.startswith(BASES)}
    if bases and bases_used is not None:
        hit.update(name for name, used in bases_used().items() if used & bases)
    return [c for c in clusters if c in hit]


_SHARD = regex.compile(r"^(\d+)/(\d+)$")


def parse_shard(text: str) -> tuple[int, int]:
    """``"2/5"`` → ``(2, 5)``: the second of five shards, counted from 1 like CI systems do."""
    match = _SHARD.match(text.strip())
    if not match or not 1 <= int(match.group(1)) <= int(match.group(2)):
        raise InputError(
            f"invalid --shard {text!r}",
            hint="use INDEX/TOTAL with 1 <= INDEX <= TOTAL, e.g. --shard 2/4 "
            "(GitLab: --shard $CI_NODE_INDEX/$CI_NODE_TOTAL)",
        )
    return int(match.group(1)), int(match.group(2))


def shard(clusters: list[str], index: int, total: int) -> list[str]:
    """The ``index``-th of ``total`` contiguous, nearly equal parts of the sorted list."""
    ordered = sorted(clusters)
    start = (index - 1) * len(ordered) // total
    end = index * len(ordered) // total
    return ordered[start:end]
