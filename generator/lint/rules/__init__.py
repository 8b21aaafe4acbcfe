"""The rule registry: every rule module, listed explicitly, in the order ``rules`` prints them.

Every rule module's docstring ends with ``PASS:`` and ``FAIL:`` examples
(``generator.lint.examples``), which ``explain`` prints, docs/rules.md publishes and a test
lints. A rule with settings declares them in ``OPTIONS`` (name → ``generator.lint.options.Option``);
the config sets them under ``lint.rules.<ID>``.

A rule module has ``ID``, ``NAME``, ``SEVERITY`` (error|warning|info), ``SUMMARY``,
``SCOPE`` and ``check``, and a docstring whose paragraphs say what it finds, why
(``Rationale:``) and how to fix it (``Fix:``). ``SCOPE`` decides what ``check`` receives:
``document`` one parsed document, ``object`` one resource. A ``set`` (cross-resource) rule
has ``facts(resource, ctx)`` instead, yielding ``(fact, hit or None)`` per object: a small
tuple of what the decision needs and the hit to report should the decision go against it;
its ``check(facts, ctx)`` receives every object's facts, each with its hit located as a
finding (None when suppressed), and yields the findings that stand. Object and set rules
see only objects whose apiVersion and kind are strings, unless the module sets
``UNTYPED = True`` (the rule that reports a missing kind). An object rule that reads nothing
but the object's pod templates (``pods.templates``) sets ``POD_TEMPLATES = True``: the engine
does not call it for objects without one (most objects), and a test holds every such rule to it.
One that judges only the pods that ask for devices (GPUs, huge pages, resource claims:
``pods.uses_devices``) sets ``DEVICE_PODS = True`` too: the engine does not call it for an
object none of whose pods does (most workloads), and a test holds it to that as well. A rule
that checkov also has names checkov's checks in ``CHECKOV`` and puts the one a hit corresponds
to on the hit, so that checkov's skip annotation for it suppresses the hit too (``suppress``).
"""

from __future__ import annotations

import functools
from importlib import import_module
from types import ModuleType

from generator.lint import examples as rule_examples

# The order ``rules`` prints them in; a module not listed here does not run (a test checks the
# list against the modules on disk).
_MODULES = (
    "k8s001_yaml_parse",
    "k8s002_missing_kind",
    "k8s003_schema",
    "k8s004_schema_missing",
    "k8s005_address_invalid",
    "k8s006_selector_mismatch",
    "k8s007_restart_policy_refused",
    "k8s008_pod_names_invalid",
    "k8s009_request_exceeds_limit",
    "k8s010_disruption_budget_both_bounds",
    "api001_removed_api_version",
    "api002_deprecated_api_version",
    "api003_keda_metric_name",
    "api004_api_version_not_served",
    "gpu001_extended_limit_missing",
    "gpu002_extended_request_not_limit",
    "gpu003_extended_not_integer",
    "gpu004_gpu_toleration_missing",
    "gpu005_mig_name_invalid",
    "gpu006_mig_mixed_with_gpu",
    "gpu007_gpu_memory_limit_missing",
    "gpu008_rdma_without_ipc_lock",
    "dra001_claim_not_listed",
    "hp001_hugepages_without_cpu_memory",
    "hp002_hugepages_request_not_limit",
    "hp003_hugepages_not_page_multiple",
    "hp004_hugepages_medium_mismatch",
    "sec001_privileged",
    "sec002_host_path",
    "sec003_host_namespaces",
    "sec004_added_capabilities",
    "sec005_node_sysctls",
    "sec006_seccomp_missing",
    "sec007_run_as_non_root_missing",
    "xr001_storageclass_missing",
    "xr002_runtimeclass_missing",
    "xr003_scaledobject_target_missing",
    "xr004_gpu_namespace_default_deny",
    "xr005_daemonset_gpu_taint",
    "xr006_nodeclass_missing",
    "xr007_priorityclass_missing",
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
    "lint001_bad_suppression",
)

REGISTRY: tuple[ModuleType, ...] = tuple(import_module(f"{__name__}.{name}") for name in _MODULES)

BY_ID: dict[str, ModuleType] = {rule.ID: rule for rule in REGISTRY}

# checkov check ID -> the rule that finds the same thing
CHECKOV_EQUIVALENTS: dict[str, str] = {check: rule.ID for rule in REGISTRY for check in getattr(rule, "CHECKOV", ())}


def rule(rule_id: str) -> ModuleType | None:
    return BY_ID.get(rule_id.upper())


# Where docs/rules.md is published: the project's site, the host of the schemas' $id.
RULES_DOC_URL = "https://gpu-gitops.dev/docs/rules.md"


def help_uri(rule_module: ModuleType) -> str:
    """The rule's section of the published docs/rules.md (``## GPU004`` is ``#gpu004``)."""
    return f"{RULES_DOC_URL}#{rule_module.ID.lower()}"


def sections(rule_module: ModuleType, markup: str = "rst") -> tuple[str, str, str]:
    """``(description, rationale, fix)`` from a rule's docstring, with its ``code`` spans as
    written (``rst``), as Markdown code (``markdown``) or as plain text (``text``: a terminal)."""
    text, _ = rule_examples.split(rule_module.__doc__)
    if markup == "markdown":
        text = text.replace("``", "`")
    elif markup == "text":
        text = text.replace("``", "")
    description, _, rest = text.partition("\n\nRationale:")
    rationale, _, fix = rest.partition("\n\nFix:")
    return description.strip(), " ".join(rationale.split()), " ".join(fix.split())


@functools.cache
def fix_hint(rule_id: str) -> str:
    """The hint of a finding whose rule words none of its own: the first sentence of the
    rule's Fix, so every finding says how to fix it."""
    fix = sections(BY_ID[rule_id])[2]
    return fix.split(". ")[0].rstrip(".").replace("``", "`")


def examples(rule_module: ModuleType) -> list[rule_examples.Example]:
    """The rule's PASS and FAIL examples, from its docstring (so they ship with the package)."""
    return rule_examples.split(rule_module.__doc__)[1]
