"""The input checks: cross-field rules the input schema cannot express, one module per check.

A check module defines its check and ``CHECK``, an ``InputCheck`` (or a ``ProjectInputCheck``
for a check that also reads where the project sits) holding its ``RuleMeta``: the typed
contract of ``generator.inputs.protocol``. It yields ``InputError``s located in the input
(``InputWarning``s for a warning check: what renders but is probably not meant). ``spec`` is
the defaulted input; ``doc`` gives positions; ``facts`` is the provider's row of the library's
``providers.json``. Its docstring says what it finds, why (``Rationale:``, with the upstream
source that makes it right) and how to fix it (``Fix:``), then gives ``PASS:`` and ``FAIL:``
``cluster.yaml`` examples (``generator.ruledoc``): ``explain`` prints them,
docs/input-checks.md publishes them and a test loads each one. ``run`` puts the check's ID on
every diagnostic it yields, so a message reads ``... [IN101]`` and ``gpu-gitops explain IN101``
tells the rest.

IDs are ``IN`` and three digits, the hundreds the area: 1 the cluster's own fields (addresses,
URLs, gitops, names), 2 GPUs and their quotas, 3 the network, 4 the nodes (tuning, storage,
provisioning, provider), 5 queues and autoscaling. An ID, once published, keeps its meaning.

``_MODULES`` is the registry, in the order the checks run and the docs list them: a module
that is not listed does not run, and a test checks the list against the modules on disk.
"""

from __future__ import annotations

from importlib import import_module
from pathlib import Path

from generator.errors import InputError
from generator.inputs.protocol import Check, ProjectInputCheck
from generator.yamlio.positions import Located

_MODULES = (
    "in101_address_invalid",
    "in102_url_invalid",
    "in103_gitops_setting_of_other_engine",
    "in104_gitops_path_not_plain",
    "in105_gitops_path_not_own_tree",
    "in106_pool_name_repeated",
    "in107_storage_class_repeated",
    "in108_namespace_repeated",
    "in109_namespace_reserved",
    "in110_admission_before_1_30",
    "in111_gitops_path_not_in_repository",
    "in201_gpu_quota_vendor_unknown",
    "in202_gpu_quota_exceeds_pools",
    "in203_shared_gpu_quota_exceeds_pools",
    "in204_operator_toolkit_over_node_image",
    "in205_device_plugin_on_managed_stack",
    "in206_managed_mode_without_managed_stack",
    "in207_managed_mode_dcgm_exporter",
    "in208_managed_mode_mixed_mig",
    "in209_managed_mode_dra",
    "in210_managed_mode_renamed_time_slicing",
    "in211_time_slicing_unavailable",
    "in212_mig_layout_invalid",
    "in213_operator_mig_strategies_differ",
    "in214_operator_pool_name_reserved",
    "in215_amd_driver_image_missing",
    "in216_mig_quota_not_nvidia",
    "in217_mig_quota_exceeds_pools",
    "in218_dra_driver_auto_upgrade",
    "in219_nvlink_without_dra",
    "in220_dra_not_nvidia",
    "in221_dra_before_1_34",
    "in222_dra_time_slicing",
    "in223_compute_domain_repeated",
    "in224_compute_domain_pool_not_nvlink",
    "in225_device_quota_exceeds_pools",
    "in226_dra_pod_metrics_api_off",
    "in227_claim_repeated",
    "in228_claim_named_like_channel",
    "in229_claim_pool_not_dra",
    "in230_claim_devices_not_published",
    "in231_claim_sharing_setting_of_other_strategy",
    "in301_api_server_egress_without_cidrs",
    "in302_fqdn_egress_without_cilium",
    "in303_inference_without_egress",
    "in304_fabric_not_offered",
    "in305_fabric_resource_name",
    "in306_efa_without_hugepages",
    "in307_efa_instance_type",
    "in308_efa_nics_mismatch",
    "in309_fabric_nics_per_gpu",
    "in310_ipc_lock_without_admission",
    "in311_nccl_test_namespace_invalid",
    "in312_nccl_test_nothing_to_test",
    "in313_fabric_network_without_netdev",
    "in314_fabric_range_invalid",
    "in315_fabric_exclude_outside_range",
    "in316_fabric_range_overlaps",
    "in317_fabric_network_unused",
    "in318_fabric_range_too_small",
    "in319_fabric_rails_invalid",
    "in330_cilium_default_incomplete",
    "in331_cilium_api_server_unreachable",
    "in332_cilium_native_routing_cidr_missing",
    "in333_cilium_mask_size_of_kubernetes_ipam",
    "in334_cilium_node_range_exceeds_pod_cidr",
    "in335_cilium_pod_cidr_not_routed",
    "in336_cilium_provider_integration",
    "in337_cilium_kernel_too_old",
    "in338_cilium_dsr_tunnel",
    "in339_cilium_dsr_dispatch_without_dsr",
    "in340_cilium_big_tcp_datapath",
    "in341_cilium_xdp_without_devices",
    "in342_cilium_direct_routes_with_tunnel",
    "in343_cilium_masquerade_without_kpr",
    "in344_cilium_bbr_prerequisites",
    "in345_cilium_xdp_without_kpr",
    "in346_cilium_netkit_legacy_host_routing",
    "in347_cilium_big_tcp_prerequisites",
    "in348_cilium_hubble_ui_without_relay",
    "in349_cilium_legacy_kpr_value",
    "in350_cilium_value_shadows_typed_field",
    "in401_hugepages_exceed_node_memory",
    "in402_hugepage_quota_exceeds_pools",
    "in403_nvme_disk_pattern_missing",
    "in404_nvme_pattern_matches_ebs",
    "in405_nvme_setting_of_other_mode",
    "in406_nvme_force_without_prepare",
    "in407_nvme_host_dir_system",
    "in408_sysctl_namespaced",
    "in409_sysctl_hugepages",
    "in410_sysctl_out_of_range",
    "in411_runtime_1gi_hugepages",
    "in412_tuned_pool_without_role",
    "in413_tuned_machine_config_pool_unknown",
    "in414_tuned_without_operator",
    "in415_do_not_disrupt_before_1_36",
    "in416_provisioning_without_karpenter",
    "in417_provisioning_without_gpu",
    "in418_maintenance_window_never_closes",
    "in419_provisioning_mig_mixed",
    "in420_provisioning_operator_driver_on_eks",
    "in421_node_role_missing",
    "in422_aks_os_disk_size",
    "in423_node_class_setting_of_other_kind",
    "in424_taint_repeated",
    "in425_taint_karpenter_domain",
    "in426_taint_cilium_startup",
    "in427_nodepool_label_not_pool_name",
    "in428_selector_outside_requirements",
    "in429_selector_label_restricted",
    "in430_image_family_unknown",
    "in431_image_not_pinnable",
    "in432_image_version_not_release",
    "in433_image_driver_too_old",
    "in434_image_driver_maybe_old",
    "in435_instance_types_missing",
    "in436_instance_type_unknown",
    "in437_instance_type_gpu_mismatch",
    "in438_instance_families_unsupported",
    "in439_instance_family_unknown",
    "in440_instance_family_gpu_mismatch",
    "in501_service_monitor_not_selected",
    "in502_autoscaling_without_gpus",
    "in503_deployment_autoscaled_twice",
    "in504_replicas_above_max",
    "in505_metric_not_for_mig",
    "in506_metric_maybe_not_for_mig",
    "in507_percent_target_above_100",
    "in508_queue_quota_without_accelerators",
    "in509_queue_quota_supplier_ambiguous",
    "in510_queue_flavor_pool_unknown",
    "in511_queue_flavor_pool_repeated",
    "in512_queue_flavor_quota_exceeds_pool",
    "in513_queue_limit_without_cohort",
    "in514_queue_lends_above_quota",
    "in515_queue_flavors_overlap",
    "in516_queue_borrows_beyond_cohort",
    "in517_queue_exceeds_resource_quota",
    "in518_queue_webhooks_unreachable",
    "in519_topology_hostname_not_last",
    "in520_topology_clique_without_nvlink",
    "in521_topology_level_unknown",
)

_CHECKS: tuple[Check, ...] = tuple(import_module(f"{__name__}.{name}").CHECK for name in _MODULES)
REGISTRY: tuple[Check, ...] = tuple(sorted(_CHECKS, key=lambda check: check.meta.id))
BY_ID: dict[str, Check] = {check.meta.id: check for check in REGISTRY}


def check(check_id: str) -> Check | None:
    """The input check with this ID (any case), None when there is none."""
    return BY_ID.get(check_id.upper())


def _stamped(error: InputError, check_id: str) -> InputError:
    error.diagnostics = [d.replace(rule=check_id) for d in error.diagnostics]
    return error


def run(spec: dict, doc: Located, facts: dict, root: Path) -> list[InputError]:
    errors: list[InputError] = []
    for entry in _CHECKS:
        if isinstance(entry, ProjectInputCheck):
            found = entry.check(spec, doc, facts, root)
        else:
            found = entry.check(spec, doc, facts)
        errors.extend(_stamped(e, entry.meta.id) for e in found)
    errors.sort(key=lambda e: (e.location.path, e.location.line, e.location.col))  # by file, then line
    return errors
