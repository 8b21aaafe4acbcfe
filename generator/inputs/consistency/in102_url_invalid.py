"""A URL of the input that a client cannot parse.

Rationale: the schema's patterns (``^https?://[^\\s]+$``) take ``http://[x`` or
``http://h:99999``; KEDA's Prometheus scaler and Flux's and Argo CD's Git clients would fail on
them in the cluster (Go's ``net/url.Parse`` refuses an unclosed ``[`` and a port that is no
number in range), long after the render. ``monitoring.prometheusUrl`` and ``gitops.repository``
are checked; a repository written scp-like (``git@host:org/repo.git``) is no URL and is left to
its pattern.

Fix: write ``scheme://host[:port][/path]``, e.g.
``http://prometheus-operated.monitoring.svc:9090``; an IPv6 host goes in brackets:
``http://[fd00::1]:9090``.

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: "https://git.example.com:8443/fleet.git"}
    nodePools:
      - name: system
        nodeSelector: {agentpool: system}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: "https://git.example.com:84430/fleet.git"}
    nodePools:
      - name: system
        nodeSelector: {agentpool: system}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.addresses import url_problem
from generator.errors import InputError
from generator.inputs.protocol import InputCheck
from generator.jsonpath import dotted
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta("IN102", "url-invalid", "error", "A URL of the input cannot be parsed (host, port)", __doc__)

URLS = (("monitoring", "prometheusUrl"), ("gitops", "repository"))


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for block, key in URLS:
        url = spec.get(block, {}).get(key)
        if not isinstance(url, str) or "://" not in url:
            continue
        why = url_problem(url)
        if why:
            yield doc.error(
                f"{dotted((block, key))} {url!r} is not a valid URL: {why}",
                (block, key),
                "write scheme://host[:port][/path], e.g. http://prometheus-operated.monitoring.svc:9090; "
                "an IPv6 host goes in brackets: http://[fd00::1]:9090",
                at_value=True,
            )


CHECK = InputCheck(meta=META, check=check)
