"""Kubernetes API versions that were deprecated and then removed, per kind.

From the Kubernetes deprecated API migration guide: each entry is (deprecated in, removed
in, replacement). The target version decides whether an object is merely deprecated
(still served, a warning) or removed (the API server answers ``no matches for kind``).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's flag without importing typing (PEP 781; mypy reads it as True)
if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from generator.record import NamedTuple


class Removal(NamedTuple):
    deprecated: tuple[int, int]
    removed: tuple[int, int]
    replacement: str


def _all(
    group_version: str,
    kinds: str,
    deprecated: tuple[int, int],
    removed: tuple[int, int],
    replacement: str,
) -> dict:
    return {(group_version, k): Removal(deprecated, removed, replacement) for k in kinds.split()}


TABLE: dict[tuple[str, str], Removal] = {
    **_all("extensions/v1beta1", "DaemonSet Deployment ReplicaSet", (1, 8), (1, 16), "apps/v1"),
    **_all("apps/v1beta1", "Deployment StatefulSet", (1, 9), (1, 16), "apps/v1"),
    **_all("apps/v1beta2", "DaemonSet Deployment ReplicaSet StatefulSet", (1, 9), (1, 16), "apps/v1"),
    **_all("extensions/v1beta1", "NetworkPolicy", (1, 9), (1, 16), "networking.k8s.io/v1"),
    **_all("extensions/v1beta1", "PodSecurityPolicy", (1, 11), (1, 16), "policy/v1beta1"),
    **_all(
        "admissionregistration.k8s.io/v1beta1",
        "MutatingWebhookConfiguration ValidatingWebhookConfiguration",
        (1, 16),
        (1, 22),
        "admissionregistration.k8s.io/v1",
    ),
    **_all("apiextensions.k8s.io/v1beta1", "CustomResourceDefinition", (1, 16), (1, 22), "apiextensions.k8s.io/v1"),
    **_all("apiregistration.k8s.io/v1beta1", "APIService", (1, 19), (1, 22), "apiregistration.k8s.io/v1"),
    **_all("certificates.k8s.io/v1beta1", "CertificateSigningRequest", (1, 19), (1, 22), "certificates.k8s.io/v1"),
    **_all("coordination.k8s.io/v1beta1", "Lease", (1, 19), (1, 22), "coordination.k8s.io/v1"),
    **_all("extensions/v1beta1", "Ingress", (1, 14), (1, 22), "networking.k8s.io/v1"),
    **_all("networking.k8s.io/v1beta1", "Ingress IngressClass", (1, 19), (1, 22), "networking.k8s.io/v1"),
    **_all(
        "rbac.authorization.k8s.io/v1beta1",
        "ClusterRole ClusterRoleBinding Role RoleBinding",
        (1, 17),
        (1, 22),
        "rbac.authorization.k8s.io/v1",
    ),
    **_all("scheduling.k8s.io/v1beta1", "PriorityClass", (1, 14), (1, 22), "scheduling.k8s.io/v1"),
    **_all(
        "storage.k8s.io/v1beta1",
        "CSIDriver CSINode StorageClass VolumeAttachment",
        (1, 19),
        (1, 22),
        "storage.k8s.io/v1",
    ),
    **_all("batch/v1beta1", "CronJob", (1, 21), (1, 25), "batch/v1"),
    **_all("discovery.k8s.io/v1beta1", "EndpointSlice", (1, 21), (1, 25), "discovery.k8s.io/v1"),
    **_all("events.k8s.io/v1beta1", "Event", (1, 19), (1, 25), "events.k8s.io/v1"),
    **_all("autoscaling/v2beta1", "HorizontalPodAutoscaler", (1, 22), (1, 25), "autoscaling/v2"),
    **_all("policy/v1beta1", "PodDisruptionBudget", (1, 21), (1, 25), "policy/v1"),
    **_all("policy/v1beta1", "PodSecurityPolicy", (1, 21), (1, 25), "Pod Security Admission (no object)"),
    **_all("node.k8s.io/v1beta1", "RuntimeClass", (1, 20), (1, 25), "node.k8s.io/v1"),
    **_all(
        "flowcontrol.apiserver.k8s.io/v1beta1",
        "FlowSchema PriorityLevelConfiguration",
        (1, 23),
        (1, 26),
        "flowcontrol.apiserver.k8s.io/v1",
    ),
    **_all("autoscaling/v2beta2", "HorizontalPodAutoscaler", (1, 23), (1, 26), "autoscaling/v2"),
    **_all("storage.k8s.io/v1beta1", "CSIStorageCapacity", (1, 24), (1, 27), "storage.k8s.io/v1"),
    **_all(
        "flowcontrol.apiserver.k8s.io/v1beta2",
        "FlowSchema PriorityLevelConfiguration",
        (1, 26),
        (1, 29),
        "flowcontrol.apiserver.k8s.io/v1",
    ),
    **_all(
        "flowcontrol.apiserver.k8s.io/v1beta3",
        "FlowSchema PriorityLevelConfiguration",
        (1, 29),
        (1, 32),
        "flowcontrol.apiserver.k8s.io/v1",
    ),
}


def lookup(api_version: object, kind: object) -> Removal | None:
    return TABLE.get((api_version, kind)) if isinstance(api_version, str) and isinstance(kind, str) else None


def is_removed(api_version: object, kind: object, target: tuple[int, int]) -> bool:
    entry = lookup(api_version, kind)
    return entry is not None and target >= entry.removed
