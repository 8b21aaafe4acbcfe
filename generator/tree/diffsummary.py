"""``gpu-gitops diff --format markdown``: what render would change, for a pull-request comment.

A GitHub step summary or comment is Markdown: raw diff lines there turn into headings (``#``),
lists (``-``, ``+``) and rules (``---``). So the summary is a table per cluster of added,
changed and removed files per layer, and the files and the diff follow in fenced blocks.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from generator import regex
from generator.tree.write import Changes

MAX_DIFF_LINES = 400  # per cluster: a step summary holds 1 MiB; the rest is one `diff` away
_BACKTICKS = regex.compile(r"`+")
_MARKS = {"added": "+", "changed": "~", "removed": "-"}


@dataclass
class ClusterDiff:
    name: str
    changes: Changes
    diff: str  # the unified diff of the cluster's tree
    inputs: list[str] = field(default_factory=list)  # input files (bases too) changed since the tree was rendered


def objects(changes: Changes) -> Changes:
    """The changes to rendered files, without render's own bookkeeping (``.gpu-gitops.sum``)."""

    def keep(rels: list[str]) -> list[str]:
        return [rel for rel in rels if not rel.rsplit("/", 1)[-1].startswith(".")]

    return Changes(keep(changes.added), keep(changes.changed), keep(changes.removed))


def layer_of(rel: str) -> str:
    """``10-platform/dcgm/x.yaml`` → ``10-platform``; the cluster's root kustomization is its own row."""
    return rel.split("/", 1)[0] if "/" in rel else "(root)"


def _fenced(text: str, info: str) -> str:
    """A code block whose fence is longer than any run of backticks inside it."""
    longest = max((len(m.group()) for m in _BACKTICKS.finditer(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text.rstrip(chr(10))}\n{fence}\n"


def _table(changes: Changes) -> list[str]:
    counts: dict[str, Counter] = {}
    for kind in _MARKS:
        for rel in getattr(changes, kind):
            counts.setdefault(layer_of(rel), Counter())[kind] += 1
    rows = ["| layer | added | changed | removed |", "| --- | ---: | ---: | ---: |"]
    for layer in sorted(counts):
        c = counts[layer]
        rows.append(f"| `{layer}` | {c['added']} | {c['changed']} | {c['removed']} |")
    return rows


def _files(changes: Changes) -> str:
    marked = [(rel, _MARKS[kind]) for kind in _MARKS for rel in getattr(changes, kind)]
    return "".join(f"{mark} {rel}\n" for rel, mark in sorted(marked))


def _diff(cluster: ClusterDiff) -> str:
    lines = cluster.diff.splitlines()
    if len(lines) <= MAX_DIFF_LINES:
        return _fenced(cluster.diff, "diff")
    shown = "\n".join(lines[:MAX_DIFF_LINES])
    return (
        _fenced(shown, "diff") + f"\n{len(lines) - MAX_DIFF_LINES} more lines: "
        f"`gpu-gitops diff {cluster.name}` shows them all.\n"
    )


def markdown(clusters: list[ClusterDiff]) -> str:
    """The whole report; clusters without changes are counted, not listed."""
    changed = [c for c in clusters if not c.changes.empty]
    out = ["## gpu-gitops diff", ""]
    if not changed:
        out.append(f"No changes: `rendered/` matches the inputs of {len(clusters)} cluster(s).")
        return "\n".join(out) + "\n"
    out += [
        f"{len(changed)} of {len(clusters)} cluster(s) would change: run `gpu-gitops render` and commit the result.",
        "",
    ]
    for cluster in changed:
        c = objects(cluster.changes)
        out += [
            f"### {cluster.name}",
            "",
            f"{len(c.added)} added, {len(c.changed)} changed, {len(c.removed)} removed",
            "",
            *([f"Changed inputs: {', '.join(f'`{path}`' for path in cluster.inputs)}", ""] if cluster.inputs else []),
            *_table(c),
            "",
            "<details><summary>Files</summary>",
            "",
            _fenced(_files(c), "text"),
            "</details>",
            "",
            "<details><summary>Diff</summary>",
            "",
            _diff(cluster),
            "</details>",
            "",
        ]
    return "\n".join(out)
