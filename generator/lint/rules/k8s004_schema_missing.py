"""A kind with no schema in the bundled Kubernetes schemas, the configured locations or the synced set.

Rationale: an object that is not checked may carry any typo. Until ``gpu-gitops schemas sync``
has installed the pinned upstream CRD schemas, custom resources have none, so a missing schema
is a warning (the same one render and check give); ``--require-schemas`` (or
``requireSchemas: true``) makes it an error, as kubeconform does, and ``--ignore-missing-schemas``
skips it and says how many objects it skipped. Kustomize's own files (``kustomization.yaml``)
are not cluster objects and are not checked. An apiVersion removed in the target version is
reported by API001 instead, and a built-in one the target version does not serve by API004.

Fix: run ``gpu-gitops schemas sync`` (``--from DIR`` with a local mirror when offline), add a
schema location for the kind (``--schema-location`` or ``schemaLocations`` in
``.gpu-gitops.yaml``; ``gpu-gitops schemas import`` makes schemas from CRDs), or check that
apiVersion and kind are spelled right for the target Kubernetes version.

PASS:

    apiVersion: kustomize.config.k8s.io/v1beta1
    kind: Kustomization
    resources: [deployment.yaml]

FAIL:

    apiVersion: example.com/v1
    kind: TrainingRun
    metadata:
      name: run
    spec: {}
"""

import functools
from collections.abc import Iterator

from generator.kube import deprecations
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, ObjectRule
from generator.lint.rules.api004_api_version_not_served import not_served
from generator.rulemeta import RuleMeta

META = RuleMeta(
    "K8S004", "schema-missing", "warning", "No schema was found for the object's apiVersion and kind", __doc__
)


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    obj = res.obj
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if ctx.validator is None or not isinstance(api_version, str) or not isinstance(kind, str):
        return
    if not api_version or not kind or _told_elsewhere(api_version, kind, ctx.settings.target_version):
        return
    if not ctx.validator.has_schema(api_version, kind):
        yield Hit(f"could not find schema for {obj['kind']}", ("kind",), at_value=True)


@functools.cache
def _told_elsewhere(api_version: str, kind: str, target: tuple[int, int]) -> bool:
    """A version the target removed (API001 says why, with the replacement) or a built-in it does
    not serve (API004 says from when): asked for every object, of a few kinds."""
    return deprecations.is_removed(api_version, kind, target) or bool(not_served(api_version, kind, target))


RULE = ObjectRule(meta=META, check=check)
