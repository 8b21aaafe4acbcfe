"""A document without ``apiVersion`` or ``kind``.

Rationale: without both the API server cannot decode the object, and no schema can be
chosen. The messages are kubeconform's, so existing CI logs read the same. Kustomize's own
files (``kustomization.yaml``, ``kustomization.yml``, ``Kustomization``) need neither and
are skipped, as is anything under ``kustomize.config.k8s.io``.

Fix: add ``apiVersion`` and ``kind`` (for example ``apiVersion: apps/v1`` and
``kind: Deployment``), or remove the stray document.

PASS:

    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: flags

FAIL:

    apiVersion: v1
    metadata:
      name: flags
"""

from collections.abc import Iterator

from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, ObjectRule
from generator.rulemeta import RuleMeta

META = RuleMeta("K8S002", "missing-kind", "error", "A document has no apiVersion or no kind", __doc__)


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    # kubeconform checks kind first
    if not isinstance(res.obj.get("kind"), str) or not res.obj.get("kind"):
        yield Hit("missing 'kind' key", ("kind",) if "kind" in res.obj else (), hint=_HINT)
    elif not isinstance(res.obj.get("apiVersion"), str) or not res.obj.get("apiVersion"):
        yield Hit("missing 'apiVersion' key", hint=_HINT)


_HINT = "give the object `apiVersion` and `kind` as strings (e.g. `apiVersion: v1`, `kind: ConfigMap`), or remove the document"


RULE = ObjectRule(meta=META, check=check, untyped=True)
