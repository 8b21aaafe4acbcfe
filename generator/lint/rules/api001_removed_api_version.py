"""An object uses an API version that the target Kubernetes version no longer serves.

Rationale: after a removal (``batch/v1beta1`` CronJob in 1.25, ``policy/v1beta1``
PodDisruptionBudget in 1.25, ``autoscaling/v2beta2`` in 1.26, ...) the API server answers
``no matches for kind`` and the GitOps sync fails for the whole set. The target version is
``--kubernetes-version`` (else ``lint.kubernetesVersion``, else the newest bundled).

Fix: move the object to the replacement API version named in the message; check the
fields that changed between the versions (the migration guide lists them).

PASS:

    apiVersion: batch/v1
    kind: CronJob
    metadata:
      name: nightly
    spec:
      schedule: "0 2 * * *"
      jobTemplate:
        spec:
          template:
            spec:
              restartPolicy: OnFailure
              containers: [{name: main, image: "busybox:1.36"}]

FAIL:

    apiVersion: batch/v1beta1
    kind: CronJob
    metadata:
      name: nightly
    spec:
      schedule: "0 2 * * *"
      jobTemplate:
        spec:
          template:
            spec:
              restartPolicy: OnFailure
              containers: [{name: main, image: "busybox:1.36"}]
"""

from collections.abc import Iterator

from generator.kube import deprecations
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, ObjectRule
from generator.rulemeta import RuleMeta

META = RuleMeta(
    "API001",
    "removed-api-version",
    "error",
    "The apiVersion of the object was removed in the target Kubernetes version",
    __doc__,
)


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    api_version, kind = res.obj.get("apiVersion"), res.obj.get("kind")
    entry = deprecations.lookup(api_version, kind)
    target = ctx.settings.target_version
    if entry and target >= entry.removed:
        yield Hit(
            f'no matches for kind "{kind}" in version "{api_version}": removed in Kubernetes '
            f"{entry.removed[0]}.{entry.removed[1]} (target {target[0]}.{target[1]}); use {entry.replacement}",
            ("apiVersion",),
            at_value=True,
        )


RULE = ObjectRule(meta=META, check=check, kinds=frozenset(kind for _api_version, kind in deprecations.TABLE))
