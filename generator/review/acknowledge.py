"""Acknowledging a dangerous change on purpose: ``Allow-Destroy: <cluster>: <reason>`` as a trailer
of a commit the change adds, or ``--allow-destroy '<cluster>: <reason>'`` on the command line
(``*`` for every cluster). The reason is required and shown in the report, so the pull request
says who meant what; an acknowledgement lives only as long as its commit is part of the change
(a later change is reviewed afresh).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from generator import regex
from generator.errors import InputError

TRAILER = "Allow-Destroy"
_LINE = regex.compile(rf"^{TRAILER}:\s*(.*)$", re.I | re.M)
_GIVEN = regex.compile(r"^\s*(\*|[a-z0-9]([-a-z0-9]*[a-z0-9])?)\s*:\s*(\S.*?)\s*$")


@dataclass(frozen=True)
class Acknowledgement:
    cluster: str  # a cluster name, or "*"
    reason: str
    source: str  # "commit <short id>" or "--allow-destroy"

    def covers(self, cluster: str) -> bool:
        return self.cluster in ("*", cluster)


def parse(text: str, source: str) -> Acknowledgement | None:
    match = _GIVEN.match(text)
    return Acknowledgement(match.group(1), match.group(3), source) if match else None


def from_flags(values: tuple[str, ...] | list[str]) -> list[Acknowledgement]:
    found = []
    for value in values:
        ack = parse(value, "--allow-destroy")
        if ack is None:
            raise InputError(
                f"invalid --allow-destroy {value!r}",
                hint="give CLUSTER: REASON (or '*: REASON' for every cluster), e.g. "
                "--allow-destroy 'aks-h100-training: retire the L40S pool'",
            )
        found.append(ack)
    return found


def from_commits(commits: list[tuple[str, str]]) -> list[Acknowledgement]:
    """``Allow-Destroy:`` lines of (commit id, message) pairs; a line without a reason is ignored."""
    found = []
    for sha, message in commits:
        for value in _LINE.findall(message):
            ack = parse(value, f"commit {sha[:12]}")
            if ack is not None:
                found.append(ack)
    return found


def covering(acks: list[Acknowledgement], cluster: str) -> Acknowledgement | None:
    return next((a for a in acks if a.covers(cluster)), None)
