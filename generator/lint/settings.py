"""Lint settings: the ``lint`` section of ``.gpu-gitops.yaml`` merged with command-line flags.

A rule declares its options (its ``options``); ``Settings.option`` answers them from
``lint.rules.<ID>``, the shared ``lint.<option>`` or the declared default.
"""

from __future__ import annotations

from generator.library import providers
from generator.lint import options
from generator.record import Record
from generator.validate import kubernetes

TYPE_CHECKING = False  # typing's flag without importing typing (PEP 781; mypy reads it as True)
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from generator.contract.model import Contract


# Without a provider, the vendors' resource names (the project's default GPU taint keys).
DEFAULT_TAINT_KEYS = ("nvidia.com/gpu", "amd.com/gpu")


# The options several rules declare under one name, also settable once for all of them at the
# top of the ``lint`` section (``lint.taintKeys``): they describe the cluster, not one rule.
SHARED_OPTIONS = {
    "taintKeys": "taint_keys",
    "allowedPrivilegedNamespaces": "allowed_privileged_namespaces",
    "completeSet": "complete_set",
}

TAINT_KEYS = options.Option(
    {"type": "array", "items": {"type": "string", "minLength": 1}},
    None,
    "Taint keys of the GPU node pools ([] when they are not tainted). Default: `lint.taintKeys`, else the "
    "provider's (aks: sku), else nvidia.com/gpu and amd.com/gpu, reported as warnings.",
)
ALLOWED_PRIVILEGED_NAMESPACES = options.Option(
    {"type": "array", "items": {"type": "string", "minLength": 1}},
    [],
    "Namespaces where the rule is silent (drivers, device plugins, node tuning), besides those whose linted "
    "Namespace enforces the privileged Pod Security level. Default: `lint.allowedPrivilegedNamespaces`, else none.",
)
# the options of every Pod Security rule (SEC001-SEC007)
POD_SECURITY_OPTIONS = {"allowedPrivilegedNamespaces": ALLOWED_PRIVILEGED_NAMESPACES}


COMPLETE_SET = options.Option(
    {"type": "boolean"},
    False,
    "The linted files are every object of the cluster, so a name no linted object defines is missing: an error. "
    "Otherwise (files of a repository, a chart's output) the defining object may come from elsewhere and the "
    "finding is a note (info). A rendered tree (`gpu-gitops lint` with no path, or `rendered/<cluster>`) and "
    "`--cluster` are complete without it. Default: `lint.completeSet`, else false.",
)


# The declarations of the shared options, the only ones rules read through ``Settings.option``.
_DECLARED = {
    "taintKeys": TAINT_KEYS,
    "allowedPrivilegedNamespaces": ALLOWED_PRIVILEGED_NAMESPACES,
    "completeSet": COMPLETE_SET,
}


class Settings(Record):
    """What a lint run checks with; ``target_version`` is ``kubernetes_version`` parsed (no field)."""

    _fields = (
        "kubernetes_version",
        "runtime_config",
        "taint_keys",
        "allowed_privileged_namespaces",
        "provider",
        "provider_facts",
        "rules",
        "rule_options",
        "ignores",
        "excludes",
        "schema_locations",
        "ignore_missing_schemas",
        "schema_cache",
        "strict",
        "contract",
        "complete_set",
    )
    __slots__ = (*_fields, "target_version")

    kubernetes_version: str
    runtime_config: tuple[str, ...] | None  # API versions --runtime-config enables; None: unknown
    taint_keys: list[str] | None  # lint.taintKeys; None: not configured
    allowed_privileged_namespaces: list[str] | None  # lint.allowedPrivilegedNamespaces
    provider: str
    provider_facts: dict | None  # the provider's row of providers.json; None: the installed table's
    rules: dict[str, str]  # rule ID → level configured
    rule_options: dict[str, dict]  # rule ID → options set in lint.rules.<ID>
    ignores: list[dict]
    excludes: list[str]
    schema_locations: list[str]
    ignore_missing_schemas: bool
    schema_cache: Path | None
    strict: bool
    contract: Contract | None  # the target cluster's (lint --cluster, lint.clusters)
    complete_set: bool | None  # lint.completeSet; a rendered tree is complete
    target_version: tuple[int, int]

    def __init__(
        self,
        kubernetes_version: str = "",
        runtime_config: tuple[str, ...] | None = None,
        taint_keys: list[str] | None = None,
        allowed_privileged_namespaces: list[str] | None = None,
        provider: str = "",
        provider_facts: dict | None = None,
        rules: dict[str, str] | None = None,
        rule_options: dict[str, dict] | None = None,
        ignores: list[dict] | None = None,
        excludes: list[str] | None = None,
        schema_locations: list[str] | None = None,
        ignore_missing_schemas: bool = False,
        schema_cache: Path | None = None,
        strict: bool = True,
        contract: Contract | None = None,
        complete_set: bool | None = None,
    ):
        self.kubernetes_version = kubernetes_version or kubernetes.newest_version()
        self.runtime_config = runtime_config
        self.taint_keys = taint_keys
        self.allowed_privileged_namespaces = allowed_privileged_namespaces
        self.provider = provider
        self.provider_facts = providers.facts(provider) if provider and provider_facts is None else provider_facts
        self.rules = {} if rules is None else rules
        self.rule_options = {} if rule_options is None else rule_options
        self.ignores = [] if ignores is None else ignores
        self.excludes = [] if excludes is None else excludes
        self.schema_locations = [] if schema_locations is None else schema_locations
        self.ignore_missing_schemas = ignore_missing_schemas
        self.schema_cache = schema_cache
        self.strict = strict
        self.contract = contract
        self.complete_set = complete_set
        self.target_version = kubernetes.parse_version(self.kubernetes_version)

    def as_dict(self) -> dict:
        """The fields by name, as ``dataclasses.asdict`` gave them (the contract, a dataclass,
        as a dict too): what the result cache's and render's keys are made of."""
        values = {name: getattr(self, name) for name in self._fields}
        if self.contract is not None:
            import dataclasses

            values["contract"] = dataclasses.asdict(self.contract)
        return values

    def option(self, rule_id: str, name: str) -> Any:
        """A rule's option: ``lint.rules.<ID>.<name>``, else the shared ``lint.<name>``, else the
        option's default (the rules that read one declare the shared declaration)."""
        configured = self.rule_options.get(rule_id, {})
        if name in configured:
            return configured[name]
        shared = getattr(self, SHARED_OPTIONS[name]) if name in SHARED_OPTIONS else None
        return shared if shared is not None else _DECLARED[name].default

    def complete(self, rule_id: str) -> bool:
        """Whether the linted objects are all the cluster has, for a rule that decides whether a
        name is defined: with a target cluster (its contract lists its names), a rendered tree,
        or ``completeSet`` set. Elsewhere a missing name may be defined where lint cannot see it."""
        return self.contract is not None or bool(self.option(rule_id, "completeSet"))

    def privileged_allowed(self, namespace: str, rule_id: str) -> bool:
        return namespace in self.option(rule_id, "allowedPrivilegedNamespaces")

    def gpu_taint_keys(self, rule_id: str) -> tuple[str, ...]:
        """The GPU pools' taint keys: configured, else the keys of the taint the provider's GPU
        pools get by default (``providers.default_gpu_taint``, what render gives a pool listing
        none), so lint with ``lint.provider`` and lint against a cluster agree."""
        configured = self.option(rule_id, "taintKeys")
        if configured is not None:
            return tuple(configured)
        if self.provider_facts is None:
            return DEFAULT_TAINT_KEYS
        return tuple(providers.default_gpu_taint(self.provider_facts, v)["key"] for v in providers.GPU_VENDORS)

    def knows_gpu_taints(self, rule_id: str) -> bool:
        """Whether taint keys or a provider were given: without either, the GPU taint rules
        guess and say so as warnings."""
        return self.option(rule_id, "taintKeys") is not None or bool(self.provider)

    def admission_tolerates(self, resource: str, taint_key: str) -> bool:
        """Whether the provider's API server adds the toleration for ``taint_key`` to a pod
        requesting ``resource`` (ExtendedResourceToleration keys it by resource name;
        ``extendedResourceToleration`` in ``libsonnet/providers.json``)."""
        return (
            self.provider_facts is not None
            and self.provider_facts["extendedResourceToleration"]
            and resource == taint_key
        )

    @classmethod
    def from_config(cls, data: dict, **overrides: object) -> Settings:
        """Settings from a loaded config (``Config.data``); ``None`` overrides are ignored."""
        lint = data.get("lint", {})
        levels: dict[str, str] = {}
        rule_options: dict[str, dict] = {}
        for rule_id, entry in lint.get("rules", {}).items():
            if isinstance(entry, str):
                levels[rule_id] = entry
                continue
            if options.LEVEL in entry:
                levels[rule_id] = entry[options.LEVEL]
            rule_options[rule_id] = {k: v for k, v in entry.items() if k != options.LEVEL}
        values = {
            "kubernetes_version": lint.get("kubernetesVersion", ""),
            "runtime_config": tuple(lint["runtimeConfig"]) if "runtimeConfig" in lint else None,
            "taint_keys": list(lint["taintKeys"]) if "taintKeys" in lint else None,
            "allowed_privileged_namespaces": (
                list(lint["allowedPrivilegedNamespaces"]) if "allowedPrivilegedNamespaces" in lint else None
            ),
            "provider": lint.get("provider", ""),
            "complete_set": lint.get("completeSet"),
            "rules": levels,
            "rule_options": rule_options,
            "ignores": list(lint.get("ignore", [])),
            "excludes": list(lint.get("exclude", [])),
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)


def for_cluster(spec: dict, config: dict | None = None, facts: dict | None = None, **extra: object) -> Settings:
    """Settings for a rendered cluster: the config file's ``lint`` section (rules, ignores,
    privileged namespaces) with the cluster's version, provider (``facts``: its row of the
    library's providers.json) and GPU pool taint keys, which describe the cluster better than
    any project-wide setting."""
    overrides: dict = {
        **extra,
        "kubernetes_version": spec["kubernetesVersion"],
        "runtime_config": tuple(spec.get("apiServer", {}).get("runtimeConfig", [])),
        "provider": spec.get("provider", ""),
        "provider_facts": facts,
    }
    gpu_pools = [pool for pool in spec.get("nodePools", []) if "gpu" in pool]
    if gpu_pools:
        overrides["taint_keys"] = sorted(
            {
                t["key"]
                for pool in gpu_pools
                for t in pool.get("taints", [])
                if t.get("effect") in ("NoSchedule", "NoExecute")
            }
        )
    settings = Settings.from_config(config or {}, **overrides)
    if gpu_pools:  # the pools' taints win over a rule's own taintKeys too
        for rule_options in settings.rule_options.values():
            rule_options.pop("taintKeys", None)
    return settings
