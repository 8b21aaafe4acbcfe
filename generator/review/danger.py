"""Which object changes can destroy something on the cluster, and why, in words a reviewer acts on.

``danger``: the change deletes what cannot come back by itself (data, every custom resource
of a kind, the pod network, a guardrail), or the API server refuses it (an immutable field),
so the sync stalls until someone deletes and recreates the object. ``notice``: worth a look,
not a failure (an object kept on the cluster because the engine may not prune it, a lowered
quota whose usage cannot be known offline).

Sources: immutable fields as the API server validates them (kubernetes
pkg/apis/apps/validation/validation.go ``ValidateStatefulSetUpdate``, ``ValidateDeploymentUpdate``,
``ValidateDaemonSetUpdate``; pkg/apis/core/validation ``ValidatePersistentVolumeUpdate``,
``ValidatePersistentVolumeClaimUpdate``, ``ValidateServiceUpdate``; pkg/apis/batch/validation
``ValidateJobSpecUpdate``; pkg/apis/storage/validation ``ValidateStorageClassUpdate``,
``ValidateCSIDriverUpdate``; pkg/apis/rbac/validation ``ValidateRoleBindingUpdate``, v1.32); pruning as the engines do it (kustomize-controller v1.x
garbage collection of its inventory, skipped for ``kustomize.toolkit.fluxcd.io/prune: disabled``;
Argo CD sync option ``Prune=false``); a deleted HelmRelease is uninstalled by helm-controller;
a deleted Argo CD Application deletes its resources only with the
``resources-finalizer.argocd.argoproj.io`` finalizer.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from generator.kube import quantity
from generator.review import crdschema, handover, workloads
from generator.review.compare import Change, FieldChange
from generator.review.objects import GITOPS, Identity, Placed

DANGER, NOTICE = "danger", "notice"
FLUX_PRUNE = "kustomize.toolkit.fluxcd.io/prune"
ARGO_SYNC_OPTIONS = "argocd.argoproj.io/sync-options"
ARGO_FINALIZER = "resources-finalizer.argocd.argoproj.io"
CNI_COMPONENTS = ("cilium",)

_ADMISSION = (
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding",
    "ValidatingWebhookConfiguration",
    "MutatingWebhookConfiguration",
    "MutatingAdmissionPolicy",
    "MutatingAdmissionPolicyBinding",
)
# what deleting an object of the kind does, for the kinds whose deletion is a danger
_DELETES = {
    ("apiextensions.k8s.io", "CustomResourceDefinition"): (
        "crd",
        "deleting a CRD deletes every custom resource of its kind",
    ),
    ("", "Namespace"): ("namespace", "deleting a Namespace deletes every object in it (workloads, secrets, claims)"),
    ("", "PersistentVolume"): (
        "storage",
        "deleting a PersistentVolume releases its data (reclaimPolicy Delete erases it)",
    ),
    ("", "PersistentVolumeClaim"): ("storage", "deleting a claim releases its volume (reclaimPolicy Delete erases it)"),
    ("storage.k8s.io", "StorageClass"): (
        "storage",
        "claims of a deleted StorageClass are no longer provisioned or bound",
    ),
    # Karpenter v1: a deleted NodePool's NodeClaims are deleted, which drains and terminates their nodes
    ("karpenter.sh", "NodePool"): (
        "nodepool",
        "deleting a NodePool terminates every node it launched, with the pods on them",
    ),
    ("karpenter.k8s.aws", "EC2NodeClass"): (
        "nodepool",
        "the NodePools that launch with this node class launch no more nodes",
    ),
    ("karpenter.azure.com", "AKSNodeClass"): (
        "nodepool",
        "the NodePools that launch with this node class launch no more nodes",
    ),
    **{
        ("admissionregistration.k8s.io", kind): ("admission", "the admission guardrail stops being enforced")
        for kind in _ADMISSION
    },
    # Kueue v0.19.2: a flavor, queue or topology in use is held by the kueue.x-k8s.io/resource-in-use
    # finalizer until nothing refers to it; what refers to a missing one turns inactive
    # (pkg/controller/core clusterqueue_controller, resourceflavor_controller)
    ("kueue.x-k8s.io", "ResourceFlavor"): (
        "queue",
        "ClusterQueues that still name the flavor turn inactive and admit no job; jobs admitted on its pool keep running",
    ),
    ("kueue.x-k8s.io", "ClusterQueue"): (
        "queue",
        "its queued jobs are never admitted (its LocalQueues turn inactive); jobs it admitted keep running",
    ),
    ("kueue.x-k8s.io", "LocalQueue"): (
        "queue",
        "jobs that name it, or land in it as the namespace's default, stay suspended",
    ),
    ("kueue.x-k8s.io", "Topology"): (
        "queue",
        "flavors with this topology turn inactive: their queues admit no job there",
    ),
}
# spec fields the API server lets a StatefulSet update change (ValidateStatefulSetUpdate, v1.32)
_STATEFULSET_MUTABLE = (
    "replicas",
    "ordinals",
    "template",
    "updateStrategy",
    "revisionHistoryLimit",
    "persistentVolumeClaimRetentionPolicy",
    "minReadySeconds",
)
_SELECTOR_KINDS = ("Deployment", "DaemonSet", "ReplicaSet")  # spec.selector is immutable
_STORAGECLASS_IMMUTABLE = ("provisioner", "parameters", "reclaimPolicy", "volumeBindingMode")
# spec fields a PersistentVolume update may change: the volume source, volumeMode and a set
# nodeAffinity are immutable (ValidatePersistentVolumeUpdate, v1.32)
_PV_MUTABLE = (
    "accessModes",
    "capacity",
    "claimRef",
    "mountOptions",
    "persistentVolumeReclaimPolicy",
    "storageClassName",
    "volumeAttributesClassName",
)
_PVC_MUTABLE = (("resources", "requests"), ("volumeAttributesClassName",))
# a Job's spec fields an update may not change besides its selector (ValidateJobSpecUpdate: the
# template, but for the scheduling directives of a suspended Job, completionMode,
# podFailurePolicy, backoffLimitPerIndex)
_JOB_IMMUTABLE = ("template", "completionMode", "podFailurePolicy", "backoffLimitPerIndex")
# ValidateCSIDriverUpdate: the rest of a CSIDriver's spec may change
_CSIDRIVER_IMMUTABLE = ("attachRequired", "volumeLifecycleModes")
# where a sync object's path or source is: pointed elsewhere, the engine prunes what it applied
_SYNC_TARGET = (
    ("spec", "path"),
    ("spec", "sourceRef"),
    ("spec", "source", "path"),
    ("spec", "source", "repoURL"),
    ("spec", "destination"),
)


@dataclass(frozen=True)
class Rule:
    """One row of docs/gitops.md's danger table: what changes, and why it is dangerous."""

    change: str
    why: str


# Every kind of danger the classifier reports, in the order docs/gitops.md's table lists them:
# the table is generated from this (``gpu-gitops docs``), and a danger always names its row.
RULES = {
    "crd": Rule(
        "a CustomResourceDefinition removed or moved, a served version dropped, or its schema narrowed (a field "
        "removed, an enum shrunk, a type changed)",
        "the API server deletes every custom resource of the kind; objects stored in a dropped version can no "
        "longer be read; a removed field is pruned from stored objects, a value the new schema refuses fails every "
        "create and change of it",
    ),
    "cni": Rule(
        "the CNI's release (Cilium) removed, prune-protected or not, or moved",
        "helm-controller (or Argo CD with the resources finalizer) uninstalls it: every pod loses its network; "
        "kept by prune protection, it runs on unmanaged: never upgraded or reconfigured, and removing it by hand "
        "later cuts every pod off",
    ),
    "release": Rule(
        "any other Helm release removed or moved", "the release and everything it installed are uninstalled"
    ),
    "hydrate": Rule(
        "a Helm release switched between `preview` and `hydrated` (`gitops.charts`) without the `handover` step",
        "to hydrated: the HelmRelease, kept on the cluster and not suspended, goes on reconciling and reverts the "
        "objects the layer applies (an Argo CD Application goes on syncing them); back to preview: the layer prunes "
        "the release's objects, pods and CRDs with their custom resources, before Helm installs them again",
    ),
    "namespace": Rule("a Namespace removed or moved", "every object in it is deleted"),
    "storage": Rule(
        "a PersistentVolume, PersistentVolumeClaim or StorageClass removed or moved",
        "data released (erased with reclaim policy `Delete`); claims of the class no longer bind",
    ),
    "nodepool": Rule(
        "a Karpenter NodePool removed, prune-protected or not, or moved; its node class removed or moved",
        "the NodePool's nodes are terminated, with their pods; a NodePool without its class launches nothing; "
        "kept by prune protection, it goes on launching (GPU) nodes that nothing in Git describes",
    ),
    "sync": Rule(
        "the engine's own objects (`gitops/`) removed, or pointed at another path or source (a changed `gitops.path`)",
        "a Flux Kustomization with `prune` (an Argo CD Application with the finalizer) deletes everything it applied",
    ),
    "admission": Rule(
        "an admission policy, binding or webhook configuration removed or moved; a binding that stops selecting a "
        "namespace kept on the cluster",
        "the guardrail stops being enforced (on the kept namespace's pods)",
    ),
    "immutable": Rule(
        "an immutable field changed: a StatefulSet's spec other than replicas, template, update strategy, ordinals, "
        "retention and `minReadySeconds`; the selector of a Deployment, DaemonSet, ReplicaSet or Job; a Job's pod "
        "template (but for a suspended Job's scheduling directives), completion mode, pod failure policy or "
        "per-index backoff limit; a StorageClass's provisioner, parameters, reclaim policy or binding mode; a "
        "PersistentVolume's source, volume mode or node affinity, or its class; a claim's spec other than its "
        "storage request; a Service's cluster IP or primary IP family; a CSIDriver's `attachRequired` or volume "
        "lifecycle modes; a role binding's `roleRef`",
        "the API server refuses the update (kubernetes `pkg/apis/*/validation`, v1.32); the sync stalls until "
        "someone deletes and recreates the object, with its pods",
    ),
    "toleration": Rule(
        "a toleration removed from a node component (a DaemonSet, or a release's values), a taint removed",
        "its pods leave the GPU nodes (NoExecute evicts them); pods without a GPU land on GPU nodes",
    ),
    "version": Rule(
        "`kubernetesVersion` lowered",
        "a control plane is never downgraded (Kubernetes version skew policy): the tree is then rendered for another "
        "cluster than the one it is synced to (its APIs, admission features, Pod Security version)",
    ),
    "retired": Rule(
        "a cluster's input removed or renamed while its tree is committed",
        "the cluster's engine is bootstrapped on `rendered/<name>/gitops`: renamed, it stops receiving changes (the "
        "new tree is synced by nobody), and once the old tree is gone it prunes everything it applied",
    ),
    "queue": Rule(
        "a Kueue ResourceFlavor, ClusterQueue, LocalQueue or Topology removed or moved; a ClusterQueue's flavor "
        "removed or its nominal quota lowered",
        "queued jobs are no longer admitted there (a queue without its flavor or topology turns inactive); a job "
        "larger than the new quota waits for ever; admitted jobs keep running (Kueue v0.19.2)",
    ),
    "stale": Rule(
        "an input changed but its tree was not rendered again, or it does not render",
        "the review would show the old tree, not what the change does, and the engine would sync the old tree",
    ),
}


@dataclass(frozen=True)
class Finding:
    level: str  # DANGER or NOTICE
    reason: str
    rule: str = ""  # a danger's row of RULES


def classify(change: Change, pools: tuple[workloads.Pool, ...] = ()) -> list[Finding]:
    """What is dangerous about one change (empty: nothing); ``pools`` name the nodes a rollout reaches."""
    return _classify(change) + [Finding(level, reason) for level, reason in workloads.findings(change, pools)]


def classify_all(changes: list[Change], pools: tuple[workloads.Pool, ...] = ()) -> list[list[Finding]]:
    """``classify`` of each change, where a release switched between preview and hydrated
    (``handover``) says so on its engine object's change, in place of what its removal or
    addition would say alone."""
    found = [classify(c, pools) for c in changes]
    for i, switch in handover.findings(changes, protected).items():
        found[i] = [Finding(level, reason, rule) for level, reason, rule in switch]
    return found


def _classify(change: Change) -> list[Finding]:
    if change.action == "moved" and change.before and change.before.layer == handover.PREVIEW_FOLDER:
        return _updates(change)  # a preview object now applied by the layer: nothing was applied before
    if change.action == "moved" and change.after and change.after.layer == handover.PREVIEW_FOLDER:
        assert change.before is not None  # applied by the layer, now only previewed
        return _removal(change.before, f"stops applying {change.identity} (its release's preview keeps it)", False)
    if change.action == "removed":
        assert change.before is not None
        return _removal(change.before, f"removes {change.identity}", moved=False)
    if change.action == "moved":
        assert change.before and change.after
        units = f"{change.before.unit} → {change.after.unit}"
        moved = _removal(
            change.before, f"moves {change.identity} ({units}), a delete and a create for the engine", moved=True
        )
        if not moved:
            moved = [
                Finding(
                    NOTICE,
                    f"moves {change.identity} ({units}): the engine deletes it from the old sync unit and "
                    "creates it in the new one",
                )
            ]
        return moved + _updates(change)
    if change.action in ("changed", "renamed"):
        return _updates(change)
    return []


def protected(obj: dict) -> bool:
    """Whether the engine leaves the object on the cluster when it leaves Git."""
    annotations = (obj.get("metadata") or {}).get("annotations") or {}
    if annotations.get(FLUX_PRUNE) == "disabled":
        return True
    options = str(annotations.get(ARGO_SYNC_OPTIONS, ""))
    return "Prune=false" in (o.strip() for o in options.split(","))


def _removal(placed: Placed, what: str, moved: bool) -> list[Finding]:
    """``what`` (``removes Namespace x``) with its consequence, when it has one."""
    found = _deletes(placed)
    if found is None:
        left = _orphans(placed)
        return [Finding(NOTICE, f"{what}: {left}")] if left else []
    rule, reason = found
    if protected(placed.obj):
        kept = None if moved else _kept(placed, rule)
        if kept:
            return [Finding(DANGER, f"{what}, but prune is disabled on it: {kept}", rule)]
        return [
            Finding(
                NOTICE,
                f"{what}, but prune is disabled on it: the engine leaves it on the cluster, no longer "
                "in Git (delete it by hand when that is meant)",
            )
        ]
    return [Finding(DANGER, f"{what}: {reason}", rule)]


def _kept(placed: Placed, rule: str) -> str | None:
    """What a prune-protected object kept on the cluster does once Git no longer has it, where that
    is itself a danger: the CNI runs on unmanaged, a NodePool keeps launching nodes."""
    if rule == "cni":
        return (
            "the engine leaves the CNI running unmanaged: it is never upgraded or reconfigured again, and "
            "uninstalling it by hand cuts every pod off its network"
        )
    if placed.identity.kind == "NodePool":
        return "the engine leaves it on the cluster, where it goes on launching nodes that nothing in Git describes"
    return None


def _deletes(placed: Placed) -> tuple[str, str] | None:
    """(row of RULES, what deleting the object does), for the objects whose deletion is a danger."""
    ident, obj = placed.identity, placed.obj
    found = _DELETES.get((ident.group, ident.kind))
    if found:
        return found
    if placed.layer == GITOPS:
        reason = _sync_object(ident, obj)
        return ("sync", reason) if reason else None
    if ident.group == "helm.toolkit.fluxcd.io" and ident.kind == "HelmRelease":
        return _release(placed, "helm-controller uninstalls the release")
    if ident.group == "argoproj.io" and ident.kind == "Application":
        if _argo_cascades(obj):
            return _release(placed, "Argo CD deletes the release's objects")
        if _cni(placed) and protected(obj):
            return "cni", "Argo CD leaves it"
    return None


def _orphans(placed: Placed) -> str | None:
    """What a removal leaves running unmanaged: an Argo CD Application without the resources
    finalizer is deleted alone (its objects stay, and nothing updates them any more)."""
    ident = placed.identity
    if ident.group == "argoproj.io" and ident.kind == "Application" and not _argo_cascades(placed.obj):
        what = "the CNI (Cilium)" if _cni(placed) else "its objects"
        return f"Argo CD deletes the Application alone (no resources finalizer): {what} keep running, unmanaged"
    return None


def _cni(placed: Placed) -> bool:
    return placed.component in CNI_COMPONENTS or placed.identity.name in CNI_COMPONENTS


def _release(placed: Placed, what: str) -> tuple[str, str]:
    if _cni(placed):
        return "cni", f"{what}: it is the CNI, every pod loses its network and new pods get no address"
    return "release", f"{what} and everything it installed"


def _sync_object(ident: Identity, obj: dict) -> str | None:
    if ident.kind == "Kustomization" and ident.group == "kustomize.toolkit.fluxcd.io":
        if (obj.get("spec") or {}).get("prune") is True:
            return "a deleted Flux Kustomization with prune deletes every object it applied"
        return None
    if ident.kind == "Application" and _argo_cascades(obj):
        return "a deleted Argo CD Application with the resources finalizer deletes every object it synced"
    if ident.kind in ("GitRepository", "OCIRepository", "HelmRepository"):
        return "the sync objects reading this source stop syncing"
    return None


def _argo_cascades(obj: dict) -> bool:
    return ARGO_FINALIZER in ((obj.get("metadata") or {}).get("finalizers") or [])


def _updates(change: Change) -> list[Finding]:
    assert change.before and change.after
    ident, fields = change.identity, change.fields
    out = []
    immutable = _immutable(ident, fields) + _service_addresses(change)
    if immutable:
        names = ", ".join(sorted({f.dotted for f in immutable})[:4])
        out.append(
            Finding(
                DANGER,
                f"changes {ident}'s immutable {names}: the API server refuses the update, "
                "so the sync fails until the object is deleted and recreated",
                "immutable",
            )
        )
    if change.before.layer == GITOPS and any(_under(f.path, p) for f in fields for p in _SYNC_TARGET):
        out.append(
            Finding(DANGER, f"points {ident} elsewhere: the engine prunes what the old source or path applied", "sync")
        )
    if ident.group == "apiextensions.k8s.io" and ident.kind == "CustomResourceDefinition":
        gone = _served(change.before.obj) - _served(change.after.obj)
        if gone:
            out.append(
                Finding(
                    DANGER,
                    f"drops version(s) {', '.join(sorted(gone))} of {ident}: objects stored in "
                    "them can no longer be read",
                    "crd",
                )
            )
        narrower = crdschema.narrowed(change.before.obj, change.after.obj)
        if narrower:
            more = len(narrower) - crdschema.SHOWN
            out.append(
                Finding(
                    DANGER,
                    f"narrows {ident}'s schema ({'; '.join(narrower[: crdschema.SHOWN])}"
                    + (f"; {more} more" if more > 0 else "")
                    + "): a removed field is pruned from the stored objects as they are read, and a value the "
                    "new schema refuses fails every create and every change of it",
                    "crd",
                )
            )
    if (
        ident.group == ""
        and ident.kind == "PersistentVolume"
        and any(f.path == ("spec", "storageClassName") for f in fields)
    ):
        out.append(
            Finding(
                DANGER,
                f"changes {ident}'s storageClassName: a claim of the old class no longer "
                "binds it, and the claim bound now is no longer of the volume's class",
                "immutable",
            )
        )
    out += _tolerations(change)
    out += _version(change)
    if ident.group == "kueue.x-k8s.io" and ident.kind == "ClusterQueue":
        out += _queue_quota(change)
    out += _unbound_namespaces(change)
    if ident.kind == "ResourceQuota" and any(_under(f.path, ("spec", "hard")) for f in fields):
        out.append(
            Finding(
                NOTICE,
                f"changes {ident}'s limits: usage above a lowered limit cannot be known "
                "offline; compare with `kubectl describe resourcequota` before merging",
            )
        )
    return out


def _bound_namespaces(binding: dict) -> set[str]:
    """The namespaces an admission binding selects by name (the library binds by
    ``kubernetes.io/metadata.name In [...]``)."""
    selector = ((binding.get("spec") or {}).get("matchResources") or {}).get("namespaceSelector") or {}
    return {
        ns
        for expression in selector.get("matchExpressions") or []
        if expression.get("key") == "kubernetes.io/metadata.name" and expression.get("operator") == "In"
        for ns in expression.get("values") or []
    }


def _unbound_namespaces(change: Change) -> list[Finding]:
    """A namespace an admission binding no longer selects. A workload's Namespace is never
    pruned (k.keepOnRemoval), so removing the workload leaves its pods running, no longer judged
    by the guardrail: a danger the reviewer acknowledges, or deletes the namespace for."""
    assert change.before and change.after
    ident = change.identity
    if ident.group != "admissionregistration.k8s.io" or not ident.kind.endswith("PolicyBinding"):
        return []
    dropped = sorted(_bound_namespaces(change.before.obj) - _bound_namespaces(change.after.obj))
    if not dropped:
        return []
    return [
        Finding(
            DANGER,
            f"{ident} no longer selects {', '.join(dropped)}: a removed workload's Namespace is kept with its "
            "pods, which the guardrail then no longer judges; delete the namespace, or acknowledge",
            "admission",
        )
    ]


def _immutable(ident: Identity, fields: list[FieldChange]) -> list[FieldChange]:
    def spec_field(f: FieldChange) -> str | None:
        return f.path[1] if len(f.path) > 1 and f.path[0] == "spec" else None

    if ident.group == "apps" and ident.kind == "StatefulSet":
        return [f for f in fields if spec_field(f) and spec_field(f) not in _STATEFULSET_MUTABLE]
    if ident.group == "batch" and ident.kind == "Job":
        return [f for f in fields if spec_field(f) in ("selector", *_JOB_IMMUTABLE)]
    if ident.kind in _SELECTOR_KINDS and ident.group == "apps":
        return [f for f in fields if spec_field(f) == "selector"]
    if ident.group == "storage.k8s.io" and ident.kind == "CSIDriver":
        return [f for f in fields if spec_field(f) in _CSIDRIVER_IMMUTABLE]
    if ident.group == "rbac.authorization.k8s.io" and ident.kind in ("RoleBinding", "ClusterRoleBinding"):
        return [f for f in fields if f.path[:1] == ("roleRef",)]  # ValidateRoleBindingUpdate: cannot change roleRef
    if ident.group == "storage.k8s.io" and ident.kind == "StorageClass":
        return [f for f in fields if f.path and f.path[0] in _STORAGECLASS_IMMUTABLE]
    if ident.group == "" and ident.kind == "PersistentVolume":
        return [
            f for f in fields if spec_field(f) and spec_field(f) not in _PV_MUTABLE
        ]  # source, volumeMode, nodeAffinity
    if ident.group == "" and ident.kind == "PersistentVolumeClaim":
        return [f for f in fields if spec_field(f) and not any(_under(f.path[1:], m) for m in _PVC_MUTABLE)]
    return []


def _service_addresses(change: Change) -> list[FieldChange]:
    """A Service's cluster IP or primary IP family, changed where both sides set one: the API
    server keeps the allocated address and family (ValidateServiceUpdate: ``may not change once
    set``, ``primary ipFamily can not be changed``), but for a change to or from ExternalName."""
    assert change.before and change.after
    if change.identity.group != "" or change.identity.kind != "Service":
        return []
    before, after = change.before.obj.get("spec") or {}, change.after.obj.get("spec") or {}
    if "ExternalName" in (before.get("type"), after.get("type")):
        return []
    out = []
    for key, first in (("clusterIP", None), ("clusterIPs", 0), ("ipFamilies", 0)):
        old, new = before.get(key), after.get(key)
        if first is not None:
            old = old[first] if isinstance(old, list) and old else None
            new = new[first] if isinstance(new, list) and new else None
        if old not in (None, "") and new not in (None, "") and old != new:
            path = ("spec", key) if first is None else ("spec", key, first)
            out.append(FieldChange(path, old, new))
    return out


def _under(path: tuple, prefix: tuple) -> bool:
    return path[: len(prefix)] == prefix


def _served(crd: dict) -> set[str]:
    return {str(v.get("name")) for v in (crd.get("spec") or {}).get("versions") or [] if isinstance(v, dict)}


def _tolerations(change: Change) -> list[Finding]:
    """Tolerations and taints that disappear, wherever they sit (a pod template, chart values)."""
    assert change.before and change.after
    out = []
    for key, before, after in _lists(change.before.obj, change.after.obj, ("tolerations", "taints")):
        for item in before:
            if item in after or not isinstance(item, dict):
                continue
            taint = f"{item.get('key', '*')}{'=' + str(item['value']) if item.get('value') else ''}:{item.get('effect', '*')}"
            if key == "tolerations":
                level = DANGER if _node_component(change.after) else NOTICE
                out.append(
                    Finding(
                        level,
                        f"removes the toleration {taint} from {change.identity}: its pods no "
                        "longer run on nodes with that taint (GPU nodes), and NoExecute evicts them",
                        "toleration" if level == DANGER else "",
                    )
                )
            else:
                out.append(
                    Finding(
                        DANGER,
                        f"removes the taint {taint} from {change.identity}: pods that do not "
                        "tolerate it, GPU or not, can be scheduled on those nodes",
                        "toleration",
                    )
                )
    return out


# The library stamps the cluster's Kubernetes version on every Namespace it renders (the Pod
# Security version label, libsonnet/lib/k.libsonnet): its change is the version's.
VERSION_LABEL = ("metadata", "labels", "pod-security.kubernetes.io/enforce-version")


def _version(change: Change) -> list[Finding]:
    """A lowered ``kubernetesVersion``, as the Namespaces' Pod Security version label shows it."""
    if change.identity.kind != "Namespace" or change.identity.group != "":
        return []
    for f in change.fields:
        if f.path == VERSION_LABEL and _minor(f.after) < _minor(f.before):
            return [
                Finding(
                    DANGER,
                    f"lowers kubernetesVersion ({str(f.before).lstrip('v')} → {str(f.after).lstrip('v')}): a control "
                    "plane is never downgraded, so the tree no longer matches the cluster it is synced to",
                    "version",
                )
            ]
    return []


def _minor(value: object) -> tuple[int, ...]:
    try:
        return tuple(int(x) for x in str(value).lstrip("v").split("."))
    except ValueError:
        return ()


def _node_component(placed: Placed) -> bool:
    """What runs on the nodes themselves: DaemonSets, and the releases that install them."""
    return placed.identity.kind in ("DaemonSet", "HelmRelease", "Application") or placed.layer == "40-per-node"


def _lists(a, b, keys: tuple[str, ...]):
    """(key, list before, list after) for every list under one of ``keys`` at the same place in both."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in a.keys() & b.keys():
            if key in keys and isinstance(a[key], list):
                yield key, a[key], b[key] if isinstance(b[key], list) else []
            else:
                yield from _lists(a[key], b[key], keys)
        for key in a.keys() - b.keys():
            if key in keys and isinstance(a[key], list):
                yield key, a[key], []
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for x, y in zip(a, b, strict=True):
            yield from _lists(x, y, keys)


def _nominal(cq: dict) -> dict[str, dict[str, Fraction]]:
    """flavor → resource → nominal quota of a ClusterQueue."""
    out: dict[str, dict[str, Fraction]] = {}
    for group in (cq.get("spec") or {}).get("resourceGroups") or []:
        for flavor in group.get("flavors") or []:
            out[str(flavor.get("name"))] = {
                str(r.get("name")): quantity.parse(str(r.get("nominalQuota", 0))) or Fraction(0)
                for r in flavor.get("resources") or []
            }
    return out


def _queue_quota(change: Change) -> list[Finding]:
    """A ClusterQueue that loses a flavor or nominal quota. Kueue evicts no admitted job for a
    quota change (the scheduler only checks quota when it admits), so the effect falls on the
    queued jobs: none is admitted until usage is below the new quota, and a pod set larger
    than the new ceiling never is (docs/queues.md)."""
    assert change.before and change.after
    before, after = _nominal(change.before.obj), _nominal(change.after.obj)
    out = []
    for flavor in sorted(before.keys() - after.keys()):
        out.append(
            Finding(
                DANGER,
                f"removes flavor {flavor} from {change.identity}: jobs admitted on it keep running, queued jobs "
                "are no longer admitted on that pool, and one that fits only there waits for ever",
                "queue",
            )
        )
    for flavor in sorted(before.keys() & after.keys()):
        for resource, was in sorted(before[flavor].items()):
            now = after[flavor].get(resource, Fraction(0))
            if now < was:
                out.append(
                    Finding(
                        DANGER,
                        f"shrinks {change.identity}'s nominal quota of {resource} on {flavor} from {was} to {now}: "
                        "admitted jobs keep running above it, queued jobs wait until usage falls below it, "
                        "and the cohort lends less",
                        "queue",
                    )
                )
    return out
