"""YAML and JSON files that are not Kubernetes manifests, by path.

Helm charts (``Chart.yaml``, values files, ``templates/`` that are YAML only once rendered),
Kustomize's files, cluster inputs, and CI and tool configuration (``.pre-commit-config.yaml``,
``.gpu-gitops.yaml``, GitHub and GitLab CI, compose files, Grafana dashboards) sit beside manifests in most
repositories. ``lint`` passes them by when it walks a folder, and the published pre-commit hook
(``.pre-commit-hooks.yaml``, ``gpu-gitops-lint``) excludes the same paths: a test holds its
``exclude`` equal to ``PATTERN``. A file named on the command line is always linted.

Many more configuration files have names of their own (a values file called ``overrides.yaml``,
a netplan or mig-parted config, Cassandra's ``cassandra.yaml``, a JSON request sample), so
their contents decide too (``Objects``): a file none of whose documents is even the start of a
Kubernetes object (no ``apiVersion``, ``kind`` or ``metadata``; a Kustomize JSON patch, a list
of operations) is passed by, wherever it came from, and the run says how many were. One
document that is an object makes the file a manifest, and every document of it is checked:
a manifest missing its ``kind`` still gets K8S002, as ``kubectl apply`` would refuse it.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator

TYPE_CHECKING = False  # typing's flag without importing typing (PEP 781; mypy reads it as True)
if TYPE_CHECKING:
    import re
    from typing import Any


# a verbose regular expression over the path relative to the folder walked (pre-commit: to the
# repository root), matched as pre-commit matches ``exclude`` (``re.search``)
PATTERN = r"""(?x)^(
  (.*/)?(Chart\.ya?ml|Chart\.lock|values[^/]*\.ya?ml|kustomization\.ya?ml)|
  (.*/)?(templates|charts)/.*|
  clusters/[^/]+/cluster\.yaml|clusters/_bases/.*\.ya?ml|
  \.pre-commit-(config|hooks)\.yaml|\.gpu-gitops\.yaml|\.gitlab-ci\.yml|\.github/.*|docs/ci/.*|
  (.*/)?(\.yamllint|\.readthedocs|mkdocs|docker-compose|compose|codecov|\.codecov|\.golangci|\.goreleaser|
    \.markdownlint|\.prettierrc|\.mergify|\.kube-linter|ct|renovate|package|package-lock|tsconfig)(\.ya?ml|\.json)?|
  (.*/)?[^/]*dashboard[^/]*\.json
)$"""

# ``PATTERN``'s alternatives as names and prefixes: ``skipped`` answers from these, as the
# pattern does (a test holds the two equal over paths built from every name here), without
# compiling the pattern: ~6.4 M instructions, every lint (a lookup here costs ~8,000 a file,
# a search of the compiled pattern ~9,000).
_TOOL_STEMS = (
    ".yamllint .readthedocs mkdocs docker-compose compose codecov .codecov .golangci .goreleaser .markdownlint "
    ".prettierrc .mergify .kube-linter ct renovate package package-lock tsconfig"
).split()
_NAMES = frozenset(
    ["Chart.yaml", "Chart.yml", "Chart.lock", "kustomization.yaml", "kustomization.yml"]
    + [f"{stem}{suffix}" for stem in _TOOL_STEMS for suffix in ("", ".yaml", ".yml", ".json")]
)
_CHART_FOLDERS = frozenset(("templates", "charts"))
_WHOLE = frozenset((".pre-commit-config.yaml", ".pre-commit-hooks.yaml", ".gpu-gitops.yaml", ".gitlab-ci.yml"))
_YAML = (".yaml", ".yml")


def skipped(relative: str) -> bool:
    """Whether the file at ``relative`` (``/``-separated, from the folder walked) is not a manifest."""
    if "\n" in relative:  # where ``.`` and ``$`` read a line break as the pattern does
        return _compiled().search(relative) is not None
    folder, _, name = relative.rpartition("/")
    if name in _NAMES or (name.startswith("values") and name.endswith(_YAML)):
        return True
    if name.endswith(".json") and "dashboard" in name[:-5]:
        return True
    if relative in _WHOLE or relative.startswith((".github/", "docs/ci/")):
        return True
    if relative.startswith("clusters/_bases/") and relative.endswith(_YAML):
        return True
    if not folder:
        return False
    parts = folder.split("/")
    if len(parts) == 2 and parts[0] == "clusters" and parts[1] and name == "cluster.yaml":
        return True
    return not _CHART_FOLDERS.isdisjoint(parts)


@functools.cache
def _compiled() -> re.Pattern[str]:
    import re  # a path holding a line break: only then

    return re.compile(PATTERN)


_OBJECT_KEYS = ("apiVersion", "kind", "metadata")


def object_like(data: Any) -> bool:
    """Whether a document's data is, or holds, the start of a Kubernetes object (a list of
    objects written without ``kind: List`` counts, so its error is still reported)."""
    if isinstance(data, dict):
        return any(key in data for key in _OBJECT_KEYS)
    return isinstance(data, list) and any(isinstance(item, dict) and object_like(item) for item in data)


class Objects:
    """The documents of one file, held back while none is object-like, so a file that never
    has one yields nothing (``passed_by`` is then true). A document that could not be read
    counts as an object: what it was meant to be is unknown, and its error is reported."""

    def __init__(self, documents: Iterable) -> None:
        self._documents = documents
        self.passed_by = False

    def __iter__(self) -> Iterator:
        held: list = []
        found = False
        for doc in self._documents:
            found = found or doc.data is None or object_like(doc.data)
            if not found:
                held.append(doc)
                continue
            yield from held
            held.clear()
            yield doc
        self.passed_by = bool(held)
