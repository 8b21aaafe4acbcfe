"""The rule registry: every rule, listed explicitly, in the order ``rules`` prints them.

Each module here is one rule: a docstring whose paragraphs say what it finds, why
(``Rationale:``) and how to fix it (``Fix:``), ending with ``PASS:`` and ``FAIL:`` examples
(``generator.lint.examples``), which ``explain`` prints, docs/rules.md publishes and a test
lints; its ``META`` (``generator.rulemeta.RuleMeta``: ID, name, default severity, summary and
that docstring); its checks; and ``RULE``, the typed object the engine runs
(``generator.lint.protocol``: what each kind of rule receives, its options, the flags that let
the engine skip it).
"""

from __future__ import annotations

import functools

from generator.lint.protocol import Rule
from generator.lint.rules import (
    api001_removed_api_version,
    api002_deprecated_api_version,
    api003_keda_metric_name,
    api004_api_version_not_served,
    dra001_claim_not_listed,
    gpu001_extended_limit_missing,
    gpu002_extended_request_not_limit,
    gpu003_extended_not_integer,
    gpu004_gpu_toleration_missing,
    gpu005_mig_name_invalid,
    gpu006_mig_mixed_with_gpu,
    gpu007_gpu_memory_limit_missing,
    gpu008_rdma_without_ipc_lock,
    hp001_hugepages_without_cpu_memory,
    hp002_hugepages_request_not_limit,
    hp003_hugepages_not_page_multiple,
    hp004_hugepages_medium_mismatch,
    k8s001_yaml_parse,
    k8s002_missing_kind,
    k8s003_schema,
    k8s004_schema_missing,
    k8s005_address_invalid,
    k8s006_selector_mismatch,
    k8s007_restart_policy_refused,
    k8s008_pod_names_invalid,
    k8s009_request_exceeds_limit,
    k8s010_disruption_budget_both_bounds,
    lint001_bad_suppression,
    sec001_privileged,
    sec002_host_path,
    sec003_host_namespaces,
    sec004_added_capabilities,
    sec005_node_sysctls,
    sec006_seccomp_missing,
    sec007_run_as_non_root_missing,
    xr001_storageclass_missing,
    xr002_runtimeclass_missing,
    xr003_scaledobject_target_missing,
    xr004_gpu_namespace_default_deny,
    xr005_daemonset_gpu_taint,
    xr006_nodeclass_missing,
    xr007_priorityclass_missing,
)
from generator.rulemeta import RuleMeta

TYPE_CHECKING = False  # typing's flag without importing typing (PEP 781; mypy reads it as True)
if TYPE_CHECKING:
    from generator.lint.examples import Example


# The rules that judge a workload against the target cluster (``lint --cluster``: ``cluster``
# set, the CL family), in order: imported on first use, as they run only against a cluster's
# contract and a lint without one never loads their 15 modules (7.5 M instructions a run).
CLUSTER_MODULES = (
    "cl001_gpu_pool_untolerated",
    "cl002_resource_not_offered",
    "cl003_request_exceeds_node",
    "cl004_namespace_not_managed",
    "cl005_quota_allows_none",
    "cl006_admission_denied",
    "cl007_device_class_not_offered",
    "cl008_claim_template_missing",
    "cl009_replicas_exceed_quota",
    "cl010_no_pool_matches",
    "cl011_queue_not_found",
    "cl012_queue_never_admits",
    "cl013_topology_level_unknown",
    "cl014_network_attachment_missing",
    "cl015_fabric_on_wrong_pool",
)

# The other rules in the order ``rules`` prints them, the cluster rules going before the last
# (``_LAST``); a module not listed here or above does not run (a test checks both lists
# against the modules on disk).
_PORTABLE: tuple[Rule, ...] = (
    k8s001_yaml_parse.RULE,
    k8s002_missing_kind.RULE,
    k8s003_schema.RULE,
    k8s004_schema_missing.RULE,
    k8s005_address_invalid.RULE,
    k8s006_selector_mismatch.RULE,
    k8s007_restart_policy_refused.RULE,
    k8s008_pod_names_invalid.RULE,
    k8s009_request_exceeds_limit.RULE,
    k8s010_disruption_budget_both_bounds.RULE,
    api001_removed_api_version.RULE,
    api002_deprecated_api_version.RULE,
    api003_keda_metric_name.RULE,
    api004_api_version_not_served.RULE,
    gpu001_extended_limit_missing.RULE,
    gpu002_extended_request_not_limit.RULE,
    gpu003_extended_not_integer.RULE,
    gpu004_gpu_toleration_missing.RULE,
    gpu005_mig_name_invalid.RULE,
    gpu006_mig_mixed_with_gpu.RULE,
    gpu007_gpu_memory_limit_missing.RULE,
    gpu008_rdma_without_ipc_lock.RULE,
    dra001_claim_not_listed.RULE,
    hp001_hugepages_without_cpu_memory.RULE,
    hp002_hugepages_request_not_limit.RULE,
    hp003_hugepages_not_page_multiple.RULE,
    hp004_hugepages_medium_mismatch.RULE,
    sec001_privileged.RULE,
    sec002_host_path.RULE,
    sec003_host_namespaces.RULE,
    sec004_added_capabilities.RULE,
    sec005_node_sysctls.RULE,
    sec006_seccomp_missing.RULE,
    sec007_run_as_non_root_missing.RULE,
    xr001_storageclass_missing.RULE,
    xr002_runtimeclass_missing.RULE,
    xr003_scaledobject_target_missing.RULE,
    xr004_gpu_namespace_default_deny.RULE,
    xr005_daemonset_gpu_taint.RULE,
    xr006_nodeclass_missing.RULE,
    xr007_priorityclass_missing.RULE,
)
_LAST: tuple[Rule, ...] = (lint001_bad_suppression.RULE,)

# every rule's ID, the cluster rules' from their modules' names (``cl001_...`` is CL001, as a
# test holds for every module): what a suppression may name, with or without a cluster
RULE_IDS: frozenset[str] = frozenset(
    [r.meta.id for r in _PORTABLE + _LAST] + [name.split("_", 1)[0].upper() for name in CLUSTER_MODULES]
)

# checkov check ID -> the rule that finds the same thing (no cluster rule has one: a test holds it)
CHECKOV_EQUIVALENTS: dict[str, str] = {check: rule.meta.id for rule in _PORTABLE + _LAST for check in rule.checkov}


REGISTRY: tuple[Rule, ...]  # declared for type checkers; ``__getattr__`` makes it
BY_ID: dict[str, Rule]


@functools.cache
def registry(cluster: bool = True) -> tuple[Rule, ...]:
    """The rules in order; without ``cluster``, those that need no target cluster, the
    cluster rules' modules left unimported."""
    if not cluster:
        return _PORTABLE + _LAST
    import importlib  # with warnings: only a lint against a cluster

    clustered = tuple(importlib.import_module(f"{__name__}.{name}").RULE for name in CLUSTER_MODULES)
    return _PORTABLE + clustered + _LAST


def __getattr__(name: str) -> object:
    """``REGISTRY``, every rule in order, and ``BY_ID``, every rule by its ID: the cluster rules
    imported on first use of either."""
    if name == "REGISTRY":
        return registry()
    if name == "BY_ID":
        return _by_id()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@functools.cache
def _by_id(cluster: bool = True) -> dict[str, Rule]:
    return {rule.meta.id: rule for rule in registry(cluster)}


def rule(rule_id: str) -> Rule | None:
    """The rule of ``rule_id`` (any case), None for none; the cluster rules' modules are
    imported only when one of them is asked for."""
    rule_id = rule_id.upper()
    return _by_id(cluster=False).get(rule_id) or _by_id().get(rule_id)


# Where docs/rules.md is published: the project's site, the host of the schemas' $id.
RULES_DOC_URL = "https://gpu-gitops.dev/docs/rules.md"


def help_uri(meta: RuleMeta) -> str:
    """The rule's section of the published docs/rules.md (``## GPU004`` is ``#gpu004``)."""
    return f"{RULES_DOC_URL}#{meta.id.lower()}"


def sections(meta: RuleMeta, markup: str = "rst") -> tuple[str, str, str]:
    """``(description, rationale, fix)`` from a rule's docstring (``generator.ruledoc.sections``)."""
    from generator import ruledoc

    return ruledoc.sections(meta.doc, markup)


@functools.cache
def fix_hint(rule_id: str) -> str:
    """The hint of a finding whose rule words none of its own: the first sentence of the
    rule's Fix, so every finding says how to fix it."""
    found = rule(rule_id)
    if found is None:
        raise KeyError(rule_id)
    fix = sections(found.meta)[2]
    return fix.split(". ")[0].rstrip(".").replace("``", "`")


def examples(meta: RuleMeta) -> list[Example]:
    """The rule's PASS and FAIL examples, from its docstring (so they ship with the package)."""
    from generator.lint import examples as rule_examples

    return rule_examples.split(meta.doc)[1]
