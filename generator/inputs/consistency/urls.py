"""URLs: every URL an input holds is one a client can parse, checked at its line.

The schema's patterns (``^https?://[^\\s]+$``) take ``http://[x`` or ``http://h:99999``;
KEDA's Prometheus scaler and Flux's and Argo CD's Git clients would fail on them in the
cluster (Go's ``net/url.Parse`` refuses an unclosed ``[`` and a port that is no number in
range), and a check of our own that reads the host would raise. ``gitops.repository`` may also
be written scp-like (``git@host:org/repo.git``), which is no URL and is left to its pattern.
"""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlsplit

from generator.errors import InputError
from generator.jsonpath import dotted
from generator.yamlio.positions import Located

URLS = (("monitoring", "prometheusUrl"), ("gitops", "repository"))
_BAD_PORT = "the port is not a number from 1 to 65535"


def problem(url: str) -> str:
    """Why ``url`` cannot be parsed into a scheme, a host and a port ('' when it can)."""
    try:
        parts = urlsplit(url)
        port = parts.port  # a port that is no number, or out of range, raises here
    except ValueError as exc:
        return "an unclosed '[' in the host" if "IPv6" in str(exc) else _BAD_PORT
    if not parts.hostname:
        return "it names no host"
    return _BAD_PORT if port == 0 else ""


def hostname(url: str) -> str:
    """The host of ``url`` ('' for one ``problem`` refuses)."""
    return "" if problem(url) else urlsplit(url).hostname or ""


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for block, key in URLS:
        url = spec.get(block, {}).get(key)
        if not isinstance(url, str) or "://" not in url:
            continue
        why = problem(url)
        if why:
            yield doc.error(
                f"{dotted((block, key))} {url!r} is not a valid URL: {why}",
                (block, key),
                "write scheme://host[:port][/path], e.g. http://prometheus-operated.monitoring.svc:9090; "
                "an IPv6 host goes in brackets: http://[fd00::1]:9090",
                at_value=True,
            )
