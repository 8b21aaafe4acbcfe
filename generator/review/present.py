"""A review as text (a terminal), JSON (bots) and GitHub annotations, and as the diagnostics
``check --base`` reports. Markdown, for a pull-request comment, is ``review.markdown``.

A danger is located at the ``cluster.yaml`` line that changed where the input changed (the
first changed key: the review cannot know which key made which object), else at the rendered
file (a change of the library or the tool).
"""

from __future__ import annotations

import json

from generator.diagnostic import Diagnostic, Location, shown_text
from generator.report.github import escape_data, escape_property
from generator.review.acknowledge import TRAILER
from generator.review.compare import Change
from generator.review.danger import DANGER, NOTICE, Finding
from generator.review.fleet import ClusterReview, Reviewed

MARKS = {"added": "+", "removed": "-", "changed": "~", "moved": ">", "renamed": "="}
_COUNTED = ("added", "changed", "removed", "moved", "renamed")
MAX_FIELDS = 6  # a changed object's fields listed in text; JSON has them all


def counts(review: ClusterReview) -> str:
    return ", ".join(f"{review.count(a)} {a}" for a in _COUNTED)


def field_summary(change: Change, limit: int = MAX_FIELDS) -> str:
    names = [f.dotted or "(whole object)" for f in change.fields]
    more = f" (+{len(names) - limit} more)" if len(names) > limit else ""
    return ", ".join(names[:limit]) + more


def _line(reviewed: Reviewed) -> str:
    c = reviewed.change
    text = f"{MARKS[c.action]} {c.identity}  {c.where}"
    if c.fields and c.action != "added":
        text += f": {field_summary(c)}"
    return shown_text(text)


def text(reviews: list[ClusterReview], base: str) -> str:
    changed = [r for r in reviews if r.reviewed]
    if not changed:
        return f"no object changes against {base} in {len(reviews)} cluster(s)\n"
    out = []
    for review in changed:
        out.append(f"{review.name}: {counts(review)}" + (f" ({review.state} tree)" if review.state else ""))
        for finding in review.findings:
            out.append(f"  {'STALE' if finding.rule == 'stale' else 'DANGER'} {shown_text(finding.reason)}")
        for _reviewed, finding in review.dangers:
            out.append(f"  DANGER {shown_text(finding.reason)}")
        if review.danger_count and review.acknowledged:
            ack = review.acknowledged
            out.append(f"  acknowledged ({ack.source}): {shown_text(ack.reason)}")
        for reviewed in review.changes:
            for finding in reviewed.findings:
                if finding.level == NOTICE:
                    out.append(f"  notice: {shown_text(finding.reason)}")
        out += [f"  {_line(r)}" for r in review.changes]
    out.append(summary(reviews))
    return "\n".join(out) + "\n"


def summary(reviews: list[ClusterReview]) -> str:
    changed = [r for r in reviews if r.changes]
    dangers = sum(r.danger_count for r in reviews if not r.stale) + sum(len(r.dangers) for r in reviews if r.stale)
    blocking = sum(1 for r in reviews if r.blocking)
    stale = sum(1 for r in reviews if r.stale)
    return (
        f"{len(changed)} of {len(reviews)} cluster(s) change; {dangers} dangerous change(s), "
        f"{blocking} cluster(s) with dangers not acknowledged"
        + (f"; {stale} tree(s) stale or broken: the review is not of what the inputs render" if stale else "")
    )


def document(reviews: list[ClusterReview], base: str) -> dict:
    return {
        "base": base,
        "clusters": [_cluster(r) for r in reviews if r.reviewed],
        "summary": {
            "clusters": len(reviews),
            "changed": sum(1 for r in reviews if r.changes),
            "dangers": sum(r.danger_count for r in reviews),
            "blocking": sum(1 for r in reviews if r.blocking),
            "stale": sum(1 for r in reviews if r.stale),
        },
    }


def as_json(reviews: list[ClusterReview], base: str) -> str:
    return json.dumps(document(reviews, base), indent=2, sort_keys=False, default=str) + "\n"


def _cluster(review: ClusterReview) -> dict:
    ack = review.acknowledged
    return {
        "name": review.name,
        "state": review.state or "changed",
        "input": {"file": review.input_file, "line": review.input_line},
        "counts": {a: review.count(a) for a in _COUNTED},
        "blocking": review.blocking,
        "stale": review.stale,
        "findings": [{"level": f.level, "reason": f.reason, "rule": f.rule} for f in review.findings],
        "acknowledged": {"reason": ack.reason, "source": ack.source} if ack and review.danger_count else None,
        "changes": [_change(r) for r in review.changes],
    }


def _change(reviewed: Reviewed) -> dict:
    c, ident = reviewed.change, reviewed.change.identity
    return {
        "action": c.action,
        "object": {"group": ident.group, "kind": ident.kind, "namespace": ident.namespace, "name": ident.name},
        "before": c.before.path if c.before else None,
        "after": c.after.path if c.after else None,
        "fields": [{"path": f.dotted, "before": f.before, "after": f.after} for f in c.fields],
        "findings": [{"level": f.level, "reason": f.reason, "rule": f.rule} for f in reviewed.findings],
    }


def diagnostics(reviews: list[ClusterReview], rendered: str) -> list[Diagnostic]:
    """Each danger as an error (a warning once acknowledged), each notice as info."""
    out = []
    for review in reviews:
        for finding in review.findings:
            out.append(_diagnostic(review, None, finding, rendered))
        for reviewed in review.changes:
            for finding in reviewed.findings:
                out.append(_diagnostic(review, reviewed, finding, rendered))
    return out


def _diagnostic(review: ClusterReview, reviewed: Reviewed | None, finding: Finding, rendered: str) -> Diagnostic:
    placed = reviewed.change.after or reviewed.change.before if reviewed else None
    if review.input_line:
        where = Location(review.input_file, review.input_line, 1)
    elif placed is not None:
        where = Location(f"{rendered}/{review.name}/{placed.path}")
    else:
        where = Location(f"{rendered}/{review.name}")
    message = f"{review.name}: {finding.reason}"
    if finding.level != DANGER:
        return Diagnostic(where, "info", message)
    if finding.rule == "stale":
        return Diagnostic(where, "error", message, hint=f"run `gpu-gitops render {review.name}` and commit the tree")
    ack = review.acknowledged
    if ack:
        return Diagnostic(where, "warning", f"{message} (acknowledged, {ack.source}: {ack.reason})")
    return Diagnostic(
        where,
        "error",
        message,
        hint=f"if it is meant, say so in a commit message of the change: `{TRAILER}: {review.name}: <reason>` "
        "(or pass --allow-destroy); docs/gitops.md says how to remove things on purpose",
    )


def github(reviews: list[ClusterReview], base: str) -> str:
    """Workflow commands: one annotation a finding, then the summary."""
    out = []
    levels = {"error": "error", "warning": "warning", "info": "notice"}
    for d in diagnostics(reviews, "rendered"):
        props = ",".join(
            f"{k}={escape_property(str(v))}"
            for k, v in (("file", d.file), ("line", d.line or 1), ("title", "gpu-gitops review"))
        )
        out.append(f"::{levels[d.severity]} {props}::{escape_data(shown_text(d.message))}\n")
    out.append(f"::notice title=gpu-gitops review::{escape_data(summary(reviews))} (against {escape_data(base)})\n")
    return "".join(out)
