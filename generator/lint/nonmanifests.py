"""YAML and JSON files that are not Kubernetes manifests, by path.

Helm charts (``Chart.yaml``, values files, ``templates/`` that are YAML only once rendered),
Kustomize's files, cluster inputs, and CI and tool configuration (``.pre-commit-config.yaml``,
``.gpu-gitops.yaml``, GitHub and GitLab CI, compose files, Grafana dashboards) sit beside manifests in most
repositories. ``lint`` passes them by when it walks a folder, and the published pre-commit hook
(``.pre-commit-hooks.yaml``, ``gpu-gitops-lint``) excludes the same paths: a test holds its
``exclude`` equal to ``PATTERN``. A file named on the command line is always linted.
"""

from __future__ import annotations

import re

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

_COMPILED = re.compile(PATTERN)


def skipped(relative: str) -> bool:
    """Whether the file at ``relative`` (``/``-separated, from the folder walked) is not a manifest."""
    return _COMPILED.search(relative) is not None
