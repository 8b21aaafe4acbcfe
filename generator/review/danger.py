"""Which object changes can destroy something on the cluster, and why, in words a reviewer acts on.

``danger``: the change deletes what cannot come back by itself (data, every custom resource
of a kind, the pod network, a guardrail), or the API server refuses it (an immutable field),
so the sync stalls until someone deletes and recreates the object. ``notice``: worth a look,
not a failure (an object kept on the cluster because the engine may not prune it, a lowered
quota whose usage cannot be known offline).

Sources: immutable fields as the API server validates them (kubernetes
pkg/apis/apps/validation/validation.go ``ValidateStatefulSetUpdate``, ``ValidateDeploymentUpdate``,
``ValidateDaemonSetUpdate``; pkg/apis/core/validation ``ValidatePersistentVolumeUpdate``,
``ValidatePersistentVolumeClaimUpdate``; pkg/apis/storage/validation
``ValidateStorageClassUpdate``, v1.32); pruning as the engines do it (kustomize-controller v1.x
garbage collection of its inventory, skipped for ``kustomize.toolkit.fluxcd.io/prune: disabled``;
Argo CD sync option ``Prune=false``); a deleted HelmRelease is uninstalled by helm-controller;
a deleted Argo CD Application deletes its resources only with the
``resources-finalizer.argocd.argoproj.io`` finalizer.
"""

from __future__ import annotations

from dataclasses import dataclass

from generator.review import workloads
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
    ("apiextensions.k8s.io", "CustomResourceDefinition"): "deleting a CRD deletes every custom resource of its kind",
    ("", "Namespace"): "deleting a Namespace deletes every object in it (workloads, secrets, claims)",
    ("", "PersistentVolume"): "deleting a PersistentVolume releases its data (reclaimPolicy Delete erases it)",
    ("", "PersistentVolumeClaim"): "deleting a claim releases its volume (reclaimPolicy Delete erases it)",
    ("storage.k8s.io", "StorageClass"): "claims of a deleted StorageClass are no longer provisioned or bound",
    # Karpenter v1: a deleted NodePool's NodeClaims are deleted, which drains and terminates their nodes
    ("karpenter.sh", "NodePool"): "deleting a NodePool terminates every node it launched, with the pods on them",
    ("karpenter.k8s.aws", "EC2NodeClass"): "the NodePools that launch with this node class launch no more nodes",
    ("karpenter.azure.com", "AKSNodeClass"): "the NodePools that launch with this node class launch no more nodes",
    **{("admissionregistration.k8s.io", kind): "the admission guardrail stops being enforced" for kind in _ADMISSION},
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
_SELECTOR_KINDS = ("Deployment", "DaemonSet", "ReplicaSet", "Job")  # spec.selector is immutable
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
# where a sync object's path or source is: pointed elsewhere, the engine prunes what it applied
_SYNC_TARGET = (
    ("spec", "path"),
    ("spec", "sourceRef"),
    ("spec", "source", "path"),
    ("spec", "source", "repoURL"),
    ("spec", "destination"),
)


@dataclass(frozen=True)
class Finding:
    level: str  # DANGER or NOTICE
    reason: str


def classify(change: Change, pools: tuple[workloads.Pool, ...] = ()) -> list[Finding]:
    """What is dangerous about one change (empty: nothing); ``pools`` name the nodes a rollout reaches."""
    return _classify(change) + [Finding(level, reason) for level, reason in workloads.findings(change, pools)]


def _classify(change: Change) -> list[Finding]:
    if change.action == "removed":
        assert change.before is not None
        return _removal(change.before, f"removes {change.identity}")
    if change.action == "moved":
        assert change.before and change.after
        units = f"{change.before.unit} → {change.after.unit}"
        moved = _removal(change.before, f"moves {change.identity} ({units}), a delete and a create for the engine")
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


def _removal(placed: Placed, what: str) -> list[Finding]:
    """``what`` (``removes Namespace x``) with its consequence, when it has one."""
    reason = _deletes(placed)
    if reason is None:
        left = _orphans(placed)
        return [Finding(NOTICE, f"{what}: {left}")] if left else []
    if protected(placed.obj):
        return [
            Finding(
                NOTICE,
                f"{what}, but prune is disabled on it: the engine leaves it on the cluster, no longer "
                "in Git (delete it by hand when that is meant)",
            )
        ]
    return [Finding(DANGER, f"{what}: {reason}")]


def _deletes(placed: Placed) -> str | None:
    ident, obj = placed.identity, placed.obj
    found = _DELETES.get((ident.group, ident.kind))
    if found:
        return found
    if placed.layer == GITOPS:
        return _sync_object(ident, obj)
    if ident.group == "helm.toolkit.fluxcd.io" and ident.kind == "HelmRelease":
        return _release(placed, "helm-controller uninstalls the release")
    if ident.group == "argoproj.io" and ident.kind == "Application" and _argo_cascades(obj):
        return _release(placed, "Argo CD deletes the release's objects")
    return None


def _orphans(placed: Placed) -> str | None:
    """What a removal leaves running unmanaged: an Argo CD Application without the resources
    finalizer is deleted alone (its objects stay, and nothing updates them any more)."""
    ident = placed.identity
    if ident.group == "argoproj.io" and ident.kind == "Application" and not _argo_cascades(placed.obj):
        what = "the CNI (Cilium)" if placed.component in CNI_COMPONENTS else "its objects"
        return f"Argo CD deletes the Application alone (no resources finalizer): {what} keep running, unmanaged"
    return None


def _release(placed: Placed, what: str) -> str:
    if placed.component in CNI_COMPONENTS or placed.identity.name in CNI_COMPONENTS:
        return f"{what}: it is the CNI, every pod loses its network and new pods get no address"
    return f"{what} and everything it installed"


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
    immutable = _immutable(ident, fields)
    if immutable:
        names = ", ".join(sorted({f.dotted for f in immutable})[:4])
        out.append(
            Finding(
                DANGER,
                f"changes {ident}'s immutable {names}: the API server refuses the update, "
                "so the sync fails until the object is deleted and recreated",
            )
        )
    if change.before.layer == GITOPS and any(_under(f.path, p) for f in fields for p in _SYNC_TARGET):
        out.append(Finding(DANGER, f"points {ident} elsewhere: the engine prunes what the old source or path applied"))
    if ident.group == "apiextensions.k8s.io" and ident.kind == "CustomResourceDefinition":
        gone = _served(change.before.obj) - _served(change.after.obj)
        if gone:
            out.append(
                Finding(
                    DANGER,
                    f"drops version(s) {', '.join(sorted(gone))} of {ident}: objects stored in "
                    "them can no longer be read",
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
            )
        )
    out += _tolerations(change)
    if ident.kind == "ResourceQuota" and any(_under(f.path, ("spec", "hard")) for f in fields):
        out.append(
            Finding(
                NOTICE,
                f"changes {ident}'s limits: usage above a lowered limit cannot be known "
                "offline; compare with `kubectl describe resourcequota` before merging",
            )
        )
    return out


def _immutable(ident: Identity, fields: list[FieldChange]) -> list[FieldChange]:
    def spec_field(f: FieldChange) -> str | None:
        return f.path[1] if len(f.path) > 1 and f.path[0] == "spec" else None

    if ident.group == "apps" and ident.kind == "StatefulSet":
        return [f for f in fields if spec_field(f) and spec_field(f) not in _STATEFULSET_MUTABLE]
    if ident.kind in _SELECTOR_KINDS and ident.group in ("apps", "batch"):
        return [f for f in fields if spec_field(f) == "selector"]
    if ident.group == "storage.k8s.io" and ident.kind == "StorageClass":
        return [f for f in fields if f.path and f.path[0] in _STORAGECLASS_IMMUTABLE]
    if ident.group == "" and ident.kind == "PersistentVolume":
        return [
            f for f in fields if spec_field(f) and spec_field(f) not in _PV_MUTABLE
        ]  # source, volumeMode, nodeAffinity
    if ident.group == "" and ident.kind == "PersistentVolumeClaim":
        return [f for f in fields if spec_field(f) and not any(_under(f.path[1:], m) for m in _PVC_MUTABLE)]
    return []


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
                    )
                )
            else:
                out.append(
                    Finding(
                        DANGER,
                        f"removes the taint {taint} from {change.identity}: pods that do not "
                        "tolerate it, GPU or not, can be scheduled on those nodes",
                    )
                )
    return out


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
