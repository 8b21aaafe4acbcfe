"""An object uses an API version that is deprecated in the target Kubernetes version.

Rationale: a deprecated version still works but is scheduled for removal; the API server
returns a deprecation warning on every apply, and the next upgrade breaks the sync.

Fix: move the object to the replacement API version named in the message before upgrading.

PASS:

    # gpu-gitops-config: {lint: {kubernetesVersion: "1.30"}}
    apiVersion: flowcontrol.apiserver.k8s.io/v1
    kind: FlowSchema
    metadata:
      name: gpu-jobs
    spec:
      priorityLevelConfiguration: {name: workload-high}
      matchingPrecedence: 1000

FAIL:

    # gpu-gitops-config: {lint: {kubernetesVersion: "1.30"}}
    apiVersion: flowcontrol.apiserver.k8s.io/v1beta3
    kind: FlowSchema
    metadata:
      name: gpu-jobs
    spec:
      priorityLevelConfiguration: {name: workload-high}
      matchingPrecedence: 1000
"""

from collections.abc import Iterator

from generator.kube import deprecations
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, ObjectRule
from generator.rulemeta import RuleMeta

META = RuleMeta(
    "API002",
    "deprecated-api-version",
    "warning",
    "The apiVersion of the object is deprecated in the target Kubernetes version",
    __doc__,
)


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    api_version, kind = res.obj.get("apiVersion"), res.obj.get("kind")
    entry = deprecations.lookup(api_version, kind)
    target = ctx.settings.target_version
    if entry and entry.deprecated <= target < entry.removed:
        yield Hit(
            f"{api_version} {kind} is deprecated in Kubernetes {entry.deprecated[0]}.{entry.deprecated[1]} "
            f"and removed in {entry.removed[0]}.{entry.removed[1]}; use {entry.replacement}",
            ("apiVersion",),
            at_value=True,
        )


RULE = ObjectRule(meta=META, check=check, kinds=frozenset(kind for _api_version, kind in deprecations.TABLE))
