"""Lint settings: the ``lint`` section of ``.gpu-gitops.yaml`` merged with command-line flags."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path

from generator import providers
from generator.errors import InputError
from generator.validate import kubernetes

# Without a provider, the vendors' resource names (the project's default GPU taint keys).
DEFAULT_TAINT_KEYS = ("nvidia.com/gpu", "amd.com/gpu")


@dataclass
class Settings:
    kubernetes_version: str = ""
    taint_keys: list[str] | None = None  # None: not configured (the provider's, else the vendor keys)
    allowed_privileged_namespaces: list[str] = field(default_factory=list)
    provider: str = ""
    provider_facts: dict | None = None  # the provider's row of providers.json; None: the installed table's
    rules: dict[str, str] = field(default_factory=dict)
    ignores: list[dict] = field(default_factory=list)
    excludes: list[str] = field(default_factory=list)
    schema_locations: list[str] = field(default_factory=list)
    ignore_missing_schemas: bool = False
    schema_cache: Path | None = None
    strict: bool = True

    def __post_init__(self) -> None:
        self.kubernetes_version = self.kubernetes_version or kubernetes.newest_version()
        self.target_version = kubernetes.parse_version(self.kubernetes_version)
        if self.provider and self.provider_facts is None:
            self.provider_facts = providers.facts(self.provider)

    def privileged_allowed(self, namespace: str) -> bool:
        return namespace in self.allowed_privileged_namespaces

    @property
    def gpu_taint_keys(self) -> tuple[str, ...]:
        """The GPU pools' taint keys: configured, else the provider's documented ones
        (``lintGpuTaintKeys`` in ``libsonnet/providers.json``)."""
        if self.taint_keys is not None:
            return tuple(self.taint_keys)
        if self.provider_facts is None:
            return DEFAULT_TAINT_KEYS
        return tuple(self.provider_facts["lintGpuTaintKeys"])

    @property
    def knows_gpu_taints(self) -> bool:
        """Whether taint keys or a provider were given: without either, the GPU taint rules
        guess and say so as warnings."""
        return self.taint_keys is not None or bool(self.provider)

    def admission_tolerates(self, resource: str, taint_key: str) -> bool:
        """Whether the provider's API server adds the toleration for ``taint_key`` to a pod
        requesting ``resource`` (ExtendedResourceToleration keys it by resource name;
        ``extendedResourceToleration`` in ``libsonnet/providers.json``)."""
        return (self.provider_facts is not None and self.provider_facts["extendedResourceToleration"]
                and resource == taint_key)

    @classmethod
    def from_config(cls, data: dict, **overrides) -> Settings:
        """Settings from a loaded config (``Config.data``); ``None`` overrides are ignored."""
        lint = data.get("lint", {})
        values = {
            "kubernetes_version": lint.get("kubernetesVersion", ""),
            "taint_keys": list(lint["taintKeys"]) if "taintKeys" in lint else None,
            "allowed_privileged_namespaces": list(lint.get("allowedPrivilegedNamespaces", [])),
            "provider": lint.get("provider", ""),
            "rules": dict(lint.get("rules", {})),
            "ignores": list(lint.get("ignore", [])),
            "excludes": list(lint.get("exclude", [])),
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)


def unknown_rule_errors(doc) -> list[InputError]:
    """Rule IDs in a config document (``yamlpos.Located``) that no rule has.

    The schema only checks their shape; a misspelt ID (``GPU0004``) would otherwise turn
    nothing off and silence nothing, without a word.
    """
    from generator.lint.rules import REGISTRY  # the rules import the lint modules that import settings

    known = sorted(r.ID for r in REGISTRY)
    lint = doc.data.get("lint") if isinstance(doc.data, dict) else None
    if not isinstance(lint, dict):
        return []
    found: list[tuple[str, tuple, bool]] = []
    rules = lint.get("rules")
    for rule_id in rules if isinstance(rules, dict) else {}:
        found.append((rule_id, ("lint", "rules", rule_id), False))
    ignores = lint.get("ignore")
    for i, entry in enumerate(ignores if isinstance(ignores, list) else []):
        listed = entry.get("rules") if isinstance(entry, dict) else None
        for j, rule_id in enumerate(listed if isinstance(listed, list) else []):
            found.append((rule_id, ("lint", "ignore", i, "rules", j), True))
    errors = []
    for rule_id, path, at_value in found:
        if rule_id == "*" or rule_id in known:
            continue
        close = difflib.get_close_matches(str(rule_id), known, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        errors.append(doc.error(f"unknown lint rule {rule_id!r}", path, hint + "`gpu-gitops rules` lists them",
                                at_value=at_value))
    return errors


def for_cluster(spec: dict, config: dict | None = None, facts: dict | None = None) -> Settings:
    """Settings for a rendered cluster: the config file's ``lint`` section (rules, ignores,
    privileged namespaces) with the cluster's version, provider (``facts``: its row of the
    library's providers.json) and GPU pool taint keys, which describe the cluster better than
    any project-wide setting."""
    overrides: dict = {"kubernetes_version": spec["kubernetesVersion"], "provider": spec.get("provider", ""),
                       "provider_facts": facts}
    gpu_pools = [pool for pool in spec.get("nodePools", []) if "gpu" in pool]
    if gpu_pools:
        overrides["taint_keys"] = sorted({t["key"] for pool in gpu_pools for t in pool.get("taints", [])
                                          if t.get("effect") in ("NoSchedule", "NoExecute")})
    return Settings.from_config(config or {}, **overrides)
