"""Lint settings for files that run on a cluster (``lint --cluster``, ``lint.cluster``,
``lint.clusters``): the config's ``lint`` section completed with the cluster's version,
provider, taint keys and contract (``generator.contract``)."""

from __future__ import annotations

import difflib

from generator import pathmatch
from generator.contract.build import build
from generator.errors import InputError
from generator.inputs.load import load_cluster
from generator.lint.settings import Settings, for_cluster
from generator.paths import Project


def settings_for(project: Project, config: dict, name: str, checked: bool = False, **overrides: object) -> Settings:
    """Lint settings for files that will run on cluster ``name``: the config's ``lint``
    section with the cluster's version, provider, taint keys and contract (``overrides``,
    the command line's, win over the config but not over the cluster). ``checked``: the
    rendered tree is fresh, so its input passed every check (``load_cluster``)."""
    known = project.cluster_names()
    if name not in known:
        close = difflib.get_close_matches(name, known, n=1)
        raise InputError(
            f"unknown cluster {name!r}",
            hint=(f"did you mean {close[0]!r}? " if close else "")
            + (f"the clusters are {', '.join(known)}" if known else "no clusters/ folder with a cluster.yaml here"),
        )
    cluster = load_cluster(project, name, checked)
    contract = build(cluster, project.rendered / name)
    settings = for_cluster(cluster.spec, config, cluster.facts, **overrides)
    settings.contract = contract
    return settings


def clusters_of(shown: str, mapping: dict, known: list[str]) -> list[str]:
    """The clusters ``lint.clusters`` maps a file to (by its path shown relative to the
    project root), in the order of the mapping; ``{cluster}`` in a pattern stands for each
    known cluster's name."""
    found: list[str] = []
    for pattern, names in mapping.items():
        listed = [names] if isinstance(names, str) else list(names)
        if "{cluster}" in pattern:
            listed = [n for n in known if pathmatch.matches(shown, [pattern.replace("{cluster}", n)])]
        elif not pathmatch.matches(shown, [pattern]):
            continue
        found += [n for n in listed if n not in found]
    return found
