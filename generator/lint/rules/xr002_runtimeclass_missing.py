"""A pod names a RuntimeClass that is not in the linted set.

Rationale: the RuntimeClass admission plugin rejects the pod
(``pod rejected: RuntimeClass "nvidia" not found``), so the controller never gets a pod
running. The GPU operator creates ``nvidia`` itself only when its toolkit is deployed.
This rule runs only when the linted set holds RuntimeClasses.

Fix: correct ``runtimeClassName``, or add the RuntimeClass to the manifests.

PASS:

    apiVersion: node.k8s.io/v1
    kind: RuntimeClass
    metadata:
      name: nvidia
    handler: nvidia
    ---
    apiVersion: v1
    kind: Pod
    metadata:
      name: smi
      namespace: gpu-training
    spec:
      runtimeClassName: nvidia
      containers:
        - {name: smi, image: "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04"}

FAIL:

    apiVersion: node.k8s.io/v1
    kind: RuntimeClass
    metadata:
      name: nvidia
    handler: nvidia
    ---
    apiVersion: v1
    kind: Pod
    metadata:
      name: smi
      namespace: gpu-training
    spec:
      runtimeClassName: nvidia-cdi
      containers:
        - {name: smi, image: "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04"}
"""

from generator.lint import pods
from generator.lint.model import Hit

ID = "XR002"
NAME = "runtimeclass-missing"
SEVERITY = "error"
SUMMARY = "A pod references a RuntimeClass not in the linted set"
SCOPE = "set"


def check(index, ctx):
    classes = index.get("RuntimeClass")
    if not classes:
        return
    known = {r.name for r in classes}
    for resources in index.values():
        for res in resources:
            for pod in pods.templates(res.obj):
                name = pod.spec.get("runtimeClassName")
                if isinstance(name, str) and name not in known:
                    yield res, Hit(f'pod rejected: RuntimeClass "{name}" not found',
                                   pod.path + ("runtimeClassName",), at_value=True)
