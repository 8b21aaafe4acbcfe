"""An object is placed in a namespace the target cluster does not have.

Rationale: the API server refuses to create an object in a namespace that does not exist
(``namespaces "team-a" not found``), and Flux or Argo CD keep retrying the whole sync. The
namespaces of a cluster are the ones its rendered tree creates (the workload namespaces of
the input, the platform's own) and the API server's (``default``, ``kube-system``,
``kube-public``, ``kube-node-lease``); a Namespace in the linted files counts too.

Each file reports a missing namespace once, at its first object in it.

Fix: use one of the cluster's workload namespaces (``workloads[].namespace`` in its input),
add the namespace to the input, or add the Namespace object to the manifests.

PASS:

    # gpu-gitops-config: {lint: {cluster: ocp-a100-tuned}}
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: settings
      namespace: notebooks
    data: {mode: interactive}

FAIL:

    # gpu-gitops-config: {lint: {cluster: ocp-a100-tuned}}
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: settings
      namespace: notebook
    data: {mode: interactive}
"""

from collections.abc import Iterator, Sequence

from generator.diagnostic import Diagnostic
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, SetRule
from generator.lint.references import NameFact
from generator.rulemeta import RuleMeta

META = RuleMeta(
    "CL004", "namespace-not-managed", "error", "An object is in a namespace the cluster does not have", __doc__
)


def facts(res: Resource, ctx: Context) -> Iterator[tuple[NameFact, Hit | None]]:
    contract = ctx.contract
    if res.kind == "Namespace":
        _first_in_file(res.document.file, res.name, contract.cluster)  # the file's later objects in it need no fact
        yield ("class", res.name), None
        return
    namespace = res.namespace
    if namespace and not contract.manages(namespace) and _first_in_file(res.document.file, namespace, contract.cluster):
        # once per file and namespace, at the object's first line: a set rule's hit is located
        # before the decision, and the object's start needs no second read of the document
        # (most such objects are in a namespace a linted Namespace creates)
        yield (
            ("use", namespace),
            Hit(f'namespaces "{namespace}" not found: cluster {contract.cluster} does not create it', ()),
        )


# ((cluster, file), namespaces reported or created in it): a file's objects are checked in a row,
# for one cluster at a time; the cluster is part of the key, since one file is linted for each
# cluster it maps to and may be the last file of one cluster's run and the first of the next one's
_seen: list = [("", ""), set()]


def _first_in_file(file: str, namespace: str, cluster: str) -> bool:
    """Whether ``namespace`` is met in ``file`` for the first time, remembering it."""
    if _seen[0] != (cluster, file):
        _seen[:] = (cluster, file), set()
    if namespace in _seen[1]:
        return False
    _seen[1].add(namespace)
    return True


def check(facts: Sequence[tuple[NameFact, Diagnostic | None]], ctx: Context) -> Iterator[Diagnostic]:
    contract = ctx.contract
    defined = {fact[1] for fact, _ in facts if fact[0] == "class"}
    for fact, finding in facts:
        if fact[0] == "use" and finding is not None and fact[1] not in defined:
            import difflib  # with a finding only: difflib imports heapq, for every lint that loads the rules

            close = difflib.get_close_matches(fact[1], contract.namespaces, n=1)
            hint = (f"did you mean {close[0]}? " if close else "") + _HINT
            yield finding.replace(hint=hint)


_HINT = "the cluster's namespaces are its input's workloads[].namespace and the platform's; or add the Namespace"


RULE = SetRule(meta=META, cluster=True, facts=facts, check=check)
