"""``--format markdown``: a pull-request comment a reviewer reads in half a minute.

First the verdict and one row of counts per changed cluster, then every dangerous change with
its reason and acknowledgement, then the rest collapsed (``<details>``). Render's own
bookkeeping (``.gpu-gitops.sum``) never shows: only objects do. Object names and reasons are
printed in code spans or as text with Markdown's active characters escaped; the comment stays
under GitHub's 65536 characters (the rest is one ``gpu-gitops diff --base`` away).
"""

from __future__ import annotations

import json

from generator import regex
from generator.diagnostic import shown_text
from generator.review.acknowledge import TRAILER
from generator.review.compare import FieldChange
from generator.review.danger import DANGER, NOTICE
from generator.review.fleet import ClusterReview
from generator.review.present import MARKS, field_summary

MAX_CHARS = 60_000  # GitHub refuses a comment over 65536 characters
_ACTIVE = regex.compile(r"([\\`*_\[\]<>|~])")  # never at a line's start here, so # + - need none


def _text(value: str) -> str:
    """Text with Markdown's and HTML's active characters escaped."""
    return _ACTIVE.sub(r"\\\1", shown_text(value))


def _code(value: str) -> str:
    value = shown_text(value).replace("`", "'")
    return f"`{value}`"


def markdown(reviews: list[ClusterReview], base: str) -> str:
    changed = [r for r in reviews if r.reviewed]
    out = [f"## gpu-gitops review against {_code(base)}", ""]
    if not changed:
        out.append(f"No object changes in {len(reviews)} cluster(s).")
        return "\n".join(out) + "\n"
    blocking = [r for r in changed if r.blocking]
    dangers = sum(r.danger_count for r in changed)
    stale = [r for r in changed if r.stale]
    if stale:
        verdict = (
            f"**{len(stale)} tree(s) stale or broken** ({', '.join(_code(r.name) for r in stale)}): their inputs "
            "changed but they were not rendered again, or do not render. This review is not of what the change "
            "does: the gate fails."
        )
    elif blocking:
        verdict = f"**{dangers} dangerous change(s)**, not acknowledged in {len(blocking)} cluster(s): the gate fails."
    elif dangers:
        verdict = f"**{dangers} dangerous change(s)**, all acknowledged."
    else:
        verdict = "No dangerous change."
    out += [verdict, "", f"{len(changed)} of {len(reviews)} cluster(s) change; the others are unchanged.", ""]
    out += [
        "| cluster | added | changed | removed | moved | renamed | dangers |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in changed:
        mark = " ⚠️" if r.blocking else " ✅" if r.danger_count else ""
        out.append(
            f"| {_code(r.name)}{' (' + r.state + ')' if r.state else ''} | {r.count('added')} | {r.count('changed')} | "
            f"{r.count('removed')} | {r.count('moved')} | {r.count('renamed')} | {r.danger_count}{mark} |"
        )
    out.append("")
    if dangers:
        out += ["### Dangerous changes", ""]
        for r in changed:
            for finding in r.findings:
                out.append(f"- {_code(r.name)}: {_text(finding.reason)}")
            for reviewed, finding in r.dangers:
                out.append(f"- {_code(r.name)}: {_text(finding.reason)} ({_code(reviewed.change.where)})")
                out += [f"  - {_values(f)}" for f in reviewed.change.fields[:MAX_VALUES]]
            if r.danger_count and not r.stale:
                ack = r.acknowledged
                if ack:
                    out.append(f"  - acknowledged ({_text(ack.source)}): {_text(ack.reason)}")
                else:
                    out.append(
                        f"  - not acknowledged: if meant, add `{TRAILER}: {r.name}: <reason>` to a commit message"
                    )
        out.append("")
    notices = [(r, f) for r in changed for c in r.changes for f in c.findings if f.level == NOTICE]
    if notices:
        out += ["### Worth a look", ""]
        out += [f"- {_code(r.name)}: {_text(f.reason)}" for r, f in notices]
        out.append("")
    head = "\n".join(out)
    details = _details(changed, MAX_CHARS - len(head))
    return head + "\n" + details


MAX_VALUES = 4  # a dangerous change's fields shown with their values
MAX_VALUE_CHARS = 80


def _value(value: object) -> str:
    return _code(_plain(value))


def _values(f: FieldChange) -> str:
    """``field``: before → after, each value short."""
    return f"{_code(f.dotted or '(whole object)')}: {_value(f.before)} → {_value(f.after)}"


def _plain(value: object) -> str:
    text = "(none)" if value is None else json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= MAX_VALUE_CHARS else text[: MAX_VALUE_CHARS - 1] + "…"


def _details(changed: list[ClusterReview], budget: int) -> str:
    out = ["<details><summary>All changes, per cluster</summary>", ""]
    used, left = 0, 0
    for r in changed:
        block = [f"#### {_code(r.name)}", "", "```text"]
        for reviewed in r.changes:
            c = reviewed.change
            line = f"{MARKS[c.action]} {c.identity}  {c.where}"
            if c.fields and c.action == "changed":
                line += ": " + ", ".join(
                    f"{f.dotted or '(whole object)'} {_plain(f.before)} → {_plain(f.after)}"
                    for f in c.fields[:MAX_VALUES]
                )
                line += f" (+{len(c.fields) - MAX_VALUES} more)" if len(c.fields) > MAX_VALUES else ""
            elif c.fields and c.action != "added":
                line += f": {field_summary(c)}"
            if any(f.level == DANGER for f in reviewed.findings):
                line += "  [danger]"
            block.append(shown_text(line).replace("```", "'''"))
        block += ["```", ""]
        text = "\n".join(block)
        if used + len(text) > budget - 200:
            left += 1
            continue
        out.append(text)
        used += len(text) + 1
    if left:
        out.append(f"{left} more cluster(s) left out for length: `gpu-gitops diff --base` lists them all.\n")
    out += ["</details>", ""]
    return "\n".join(out)
