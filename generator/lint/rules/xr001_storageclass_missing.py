"""A PersistentVolumeClaim names a StorageClass that is not in the linted set.

Rationale: a claim whose class does not exist stays Pending, and so does every pod that
mounts it. This rule runs only when the linted set holds StorageClasses (a workload file
linted alone gets no finding), so it checks a whole cluster tree.

Fix: correct ``storageClassName``, or add the StorageClass to the manifests.

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

from generator.lint import references
from generator.lint.model import Hit

ID = "XR001"
NAME = "storageclass-missing"
SEVERITY = "error"
SUMMARY = "A PersistentVolumeClaim references a StorageClass not in the linted set"
SCOPE = "set"


def facts(res, ctx):
    """The StorageClass's name; a claim's class name, with its finding should the class be missing."""
    if res.kind == "StorageClass":
        yield ("class", res.name), None
    elif res.kind == "PersistentVolumeClaim":
        yield from _claim(res.obj.get("spec"), ("spec",))
    elif res.kind == "StatefulSet":
        spec = res.obj.get("spec")
        templates = spec.get("volumeClaimTemplates") if isinstance(spec, dict) else None
        for i, template in enumerate(templates if isinstance(templates, list) else []):
            if isinstance(template, dict):
                yield from _claim(template.get("spec"), ("spec", "volumeClaimTemplates", i, "spec"))


def check(facts, ctx):
    return references.undefined(facts, "claim")


def _claim(spec, path):
    name = spec.get("storageClassName") if isinstance(spec, dict) else None
    if isinstance(name, str) and name:
        yield (
            ("claim", name),
            Hit(f'storageclass.storage.k8s.io "{name}" not found', path + ("storageClassName",), at_value=True),
        )
