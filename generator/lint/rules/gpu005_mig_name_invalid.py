"""A MIG resource name that the NVIDIA device plugin never advertises.

Rationale: with the ``mixed`` MIG strategy the device plugin advertises one resource per
profile, named ``nvidia.com/mig-<G>g.<M>gb`` (``nvidia.com/mig-1g.5gb``,
``nvidia.com/mig-3g.40gb``). Any other ``nvidia.com/mig-*`` name is a typo; no node ever has
it, so the pod stays Pending for ever.

Fix: use a profile of the target GPU, for example ``nvidia.com/mig-1g.10gb`` on an
A100-80GB, spelled exactly so.

PASS:

    apiVersion: v1
    kind: Pod
    metadata:
      name: train
      namespace: gpu-training
    spec:
      tolerations:
        - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
      containers:
        - name: main
          image: nvcr.io/nvidia/pytorch:24.05-py3
          resources:
            limits:
              nvidia.com/mig-1g.10gb: 1
              memory: 4Gi

FAIL:

    apiVersion: v1
    kind: Pod
    metadata:
      name: train
      namespace: gpu-training
    spec:
      tolerations:
        - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
      containers:
        - name: main
          image: nvcr.io/nvidia/pytorch:24.05-py3
          resources:
            limits:
              nvidia.com/mig-1g10gb: 1
              memory: 4Gi
"""

from collections.abc import Iterator

from generator import regex
from generator.kube import pods
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, ObjectRule
from generator.rulemeta import RuleMeta

META = RuleMeta(
    "GPU005", "mig-name-invalid", "error", "A nvidia.com/mig-* resource name is not a valid MIG profile name", __doc__
)

_MIG = regex.compile(r"^nvidia\.com/mig-\d+g\.\d+gb$")


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    for cpath, _container, requests, limits in pods.container_resources(res.obj):
        for section, values in (("limits", limits), ("requests", requests)):
            for name in values:
                if name.startswith("nvidia.com/mig") and not _MIG.match(name):
                    yield Hit(
                        f"{name} is not a MIG resource name: the device plugin advertises "
                        "nvidia.com/mig-<G>g.<M>gb (e.g. nvidia.com/mig-1g.10gb)",
                        pods.resources_path(cpath) + (section, name),
                    )


RULE = ObjectRule(meta=META, check=check, pod_templates=True, device_pods=True)
