"""A PersistentVolumeClaim names a storage class that nothing in the linted set provides.

Rationale: a claim binds to a PersistentVolume of its ``storageClassName`` (one written in the
manifests: static provisioning needs no StorageClass object), or to one a StorageClass of that
name provisions; with neither it stays Pending, and so does every pod that mounts it
(kubernetes.io docs, "Persistent Volumes", Binding and Class). StorageClasses and
PersistentVolumes both provide their class. Without a target cluster the rule runs only when
the linted set holds StorageClasses or PersistentVolumes (a workload file linted alone gets no
finding); with one (``lint --cluster``) the cluster's rendered StorageClasses count too, and a
class in neither is a warning, as the provider may create classes of its own.

Fix: correct ``storageClassName``, or add the StorageClass (or the PersistentVolume) to the manifests.

PASS:

    apiVersion: storage.k8s.io/v1
    kind: StorageClass
    metadata:
      name: local-nvme
    provisioner: kubernetes.io/no-provisioner
    ---
    apiVersion: v1
    kind: PersistentVolumeClaim
    metadata:
      name: dataset
      namespace: gpu-training
    spec:
      storageClassName: local-nvme
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 100Gi}}

FAIL:

    apiVersion: storage.k8s.io/v1
    kind: StorageClass
    metadata:
      name: local-nvme
    provisioner: kubernetes.io/no-provisioner
    ---
    apiVersion: v1
    kind: PersistentVolumeClaim
    metadata:
      name: dataset
      namespace: gpu-training
    spec:
      storageClassName: local-nvm
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 100Gi}}
"""

from collections.abc import Iterator, Sequence

from generator.diagnostic import Diagnostic
from generator.lint import references
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, SetRule
from generator.lint.references import NameFact
from generator.lint.settings import COMPLETE_SET
from generator.rulemeta import RuleMeta

META = RuleMeta(
    "XR001",
    "storageclass-missing",
    "error",
    "A PersistentVolumeClaim references a storage class nothing in the linted set provides",
    __doc__,
)


def facts(res: Resource, ctx: Context) -> Iterator[tuple[NameFact, Hit | None]]:
    """The StorageClass's name, or the class a PersistentVolume provides; a claim's class
    name, with its finding should the class be missing."""
    if res.kind == "StorageClass":
        yield ("class", res.name), None
    elif res.kind == "PersistentVolume":
        spec = res.obj.get("spec")
        name = spec.get("storageClassName") if isinstance(spec, dict) else None
        if isinstance(name, str) and name:
            yield ("class", name), None
    elif res.kind == "PersistentVolumeClaim":
        yield from _claim(res.obj.get("spec"), ("spec",))
    elif res.kind == "StatefulSet":
        spec = res.obj.get("spec")
        templates = spec.get("volumeClaimTemplates") if isinstance(spec, dict) else None
        for i, template in enumerate(templates if isinstance(templates, list) else []):
            if isinstance(template, dict):
                yield from _claim(template.get("spec"), ("spec", "volumeClaimTemplates", i, "spec"))


def check(facts: Sequence[tuple[NameFact, Diagnostic | None]], ctx: Context) -> Iterator[Diagnostic]:
    contract = ctx.settings.contract
    for finding in references.undefined(facts, "claim", contract.storage_classes if contract else None, contract):
        if contract is not None and "XR001" not in ctx.settings.rules:
            # the provider's own classes (managed-csi, gp2, standard-rwo) are not in the cluster's input
            finding = finding.replace(
                severity="warning", hint="unless the provider creates it: check `kubectl get storageclass`"
            )
        yield finding


def _claim(spec: object, path: tuple) -> Iterator[tuple[NameFact, Hit]]:
    name = spec.get("storageClassName") if isinstance(spec, dict) else None
    if isinstance(name, str) and name:
        yield (
            ("claim", name),
            Hit(f'storageclass.storage.k8s.io "{name}" not found', path + ("storageClassName",), at_value=True),
        )


RULE = SetRule(
    meta=META,
    facts=facts,
    check=check,
    options={"completeSet": COMPLETE_SET},
    kinds=frozenset({"StorageClass", "PersistentVolume", "PersistentVolumeClaim", "StatefulSet"}),
)
