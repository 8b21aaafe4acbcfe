"""What one cluster offers the workloads that will run on it: the data ``lint --cluster`` checks against.

A ``Contract`` is plain data (it is part of the lint cache key): the cluster's Kubernetes
version, per node pool its taints and the extended resources one node advertises, the
namespaces and their quotas, the StorageClass, PriorityClass, RuntimeClass and DeviceClass
names the cluster has, the network attachments (Multus) of its fabric, and its admission policies. ``generator.contract.build`` builds it
from the cluster's completed input and its rendered tree; the ``CL`` rules and XR001, XR002,
XR007 read it through ``Settings.contract``.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from fractions import Fraction

from generator.kube import quantity

# Namespaces the API server creates in every cluster (kube-apiserver bootstrap data: the system
# namespaces of pkg/controlplane/controller/systemnamespaces, v1.32); its PriorityClasses are
# ``kube.pods.BUILTIN_PRIORITY_CLASSES``.
BUILTIN_NAMESPACES = ("default", "kube-node-lease", "kube-public", "kube-system")


@dataclass(frozen=True)
class Taint:
    key: str
    value: str
    effect: str


@dataclass(frozen=True)
class Pool:
    """A node pool: its taints, and what one of its nodes advertises (``offers``: resource →
    units; huge pages in bytes). ``open_prefix`` is a vendor domain whose resource names depend
    on the hardware (AMD partitions), so any name under it may be offered."""

    name: str
    taints: tuple[Taint, ...] = ()
    offers: tuple[tuple[str, int], ...] = ()
    open_prefix: str = ""
    nodes: int = 0
    dra: bool = False  # GPUs allocated through resource claims (the DRA driver), not extended resources
    labels: tuple[tuple[str, str], ...] = ()  # the node labels that select the pool's nodes (its nodeSelector)

    def per_node(self, resource: str) -> int | None:
        """Units of ``resource`` one node has (None: the pool does not offer it)."""
        for name, units in self.offers:
            if name == resource:
                return units
        if self.open_prefix and resource.startswith(self.open_prefix):
            return -1  # offered, size unknown
        return None


@dataclass(frozen=True)
class Policy:
    """A ValidatingAdmissionPolicy with the namespaces and actions of its bindings."""

    name: str
    spec: dict = field(hash=False)
    namespaces: tuple[str, ...] = ()  # empty: every namespace
    actions: tuple[str, ...] = ("Deny",)


@dataclass(frozen=True)
class Flavor:
    """One flavor of a ClusterQueue: the most the queue can hold on it per resource (nominal
    quota plus borrowing limit; Kueue reads a missing borrowing limit as none) and the levels
    of its Topology (empty: no topology-aware placement)."""

    name: str
    most: tuple[tuple[str, Fraction], ...] = ()
    levels: tuple[str, ...] = ()


@dataclass(frozen=True)
class Queue:
    """A LocalQueue and the flavors of the ClusterQueue it points at (docs/queues.md)."""

    namespace: str
    name: str
    cluster_queue: str
    flavors: tuple[Flavor, ...] = ()


@dataclass(frozen=True)
class Contract:
    cluster: str
    kubernetes_version: str
    provider: str = ""
    pools: tuple[Pool, ...] = ()
    namespaces: tuple[str, ...] = ()
    quotas: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()  # namespace → ResourceQuota hard, merged
    storage_classes: tuple[str, ...] = ()
    priority_classes: tuple[str, ...] = ()
    runtime_classes: tuple[str, ...] = ()
    device_classes: tuple[str, ...] = ()
    claim_templates: tuple[str, ...] = ()  # "namespace/name" of the ResourceClaimTemplates it renders or has generated
    attachments: tuple[str, ...] = ()  # "namespace/name" of the NetworkAttachmentDefinitions it renders (Multus)
    policies: tuple[Policy, ...] = ()
    queues: tuple[Queue, ...] = ()

    def offering(self, resource: str) -> list[Pool]:
        """The pools whose nodes advertise ``resource``."""
        return [p for p in self.pools if p.per_node(resource) is not None]

    def offered(self) -> list[str]:
        """Every resource name some pool advertises, sorted."""
        return sorted({name for p in self.pools for name, _ in p.offers})

    def nearest(self, resource: str) -> str | None:
        """The offered resource whose name is closest to ``resource``, if any is close."""
        found = difflib.get_close_matches(resource, self.offered(), n=1, cutoff=0.5)
        return found[0] if found else None

    def manages(self, namespace: str) -> bool:
        return namespace in self.namespaces or namespace in BUILTIN_NAMESPACES

    def quota(self, namespace: str) -> dict[str, str]:
        for name, hard in self.quotas:
            if name == namespace:
                return dict(hard)
        return {}

    def quota_limit(self, namespace: str, resource: str) -> Fraction | None:
        """What the namespace's quotas allow of ``resource`` requested (None: not limited).
        Extended resources are quota'd as ``requests.<name>`` only; others as either."""
        hard = self.quota(namespace)
        for key in (f"requests.{resource}", resource):
            if key in hard:
                return quantity.parse(hard[key])
        return None

    def attachments_in(self, namespace: str) -> list[str]:
        """The names of the network attachments the cluster renders in ``namespace``."""
        return [a.partition("/")[2] for a in self.attachments if a.partition("/")[0] == namespace]

    def queues_in(self, namespace: str) -> list[Queue]:
        """The LocalQueues of ``namespace``: jobs there are queued by Kueue."""
        return [q for q in self.queues if q.namespace == namespace]
