"""A Karpenter NodePool's ``nodeClassRef`` names a node class that is not in the linted set.

Rationale: Karpenter launches no node for a NodePool whose node class does not exist (its
``NodeClassReady`` condition stays False, "NodeClass not found"), so every pod that only fits
that pool stays Pending. The reference is by group, kind and name: an ``EC2NodeClass`` of the
right name does not satisfy a reference to an ``AKSNodeClass``. This rule runs only when the
linted set holds node classes (``EC2NodeClass``, ``AKSNodeClass``), so it checks a whole
cluster tree (Karpenter v1.14.1: ``karpenter.sh_nodepools.yaml`` ``nodeClassRef``; node classes
are cluster-scoped).

Fix: correct ``spec.template.spec.nodeClassRef``, or add the node class to the manifests.

PASS:

    apiVersion: karpenter.k8s.aws/v1
    kind: EC2NodeClass
    metadata:
      name: h100
    spec:
      role: KarpenterNodeRole-demo
      amiSelectorTerms: [{alias: al2023@v20260724}]
      subnetSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
      securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
    ---
    apiVersion: karpenter.sh/v1
    kind: NodePool
    metadata:
      name: h100
    spec:
      template:
        spec:
          nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: h100}
          requirements:
            - {key: node.kubernetes.io/instance-type, operator: In, values: [p5.48xlarge]}

FAIL:

    apiVersion: karpenter.k8s.aws/v1
    kind: EC2NodeClass
    metadata:
      name: h100
    spec:
      role: KarpenterNodeRole-demo
      amiSelectorTerms: [{alias: al2023@v20260724}]
      subnetSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
      securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
    ---
    apiVersion: karpenter.sh/v1
    kind: NodePool
    metadata:
      name: h100
    spec:
      template:
        spec:
          nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: gpu}
          requirements:
            - {key: node.kubernetes.io/instance-type, operator: In, values: [p5.48xlarge]}
"""

from collections.abc import Iterable, Iterator, Sequence

from generator.diagnostic import Diagnostic
from generator.lint import references
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, SetRule
from generator.lint.references import NameFact
from generator.lint.settings import COMPLETE_SET
from generator.rulemeta import RuleMeta

META = RuleMeta(
    "XR006", "nodeclass-missing", "error", "A Karpenter NodePool references a node class not in the linted set", __doc__
)

# The node class kinds of the Karpenter providers gpu-gitops renders for, by API group.
NODE_CLASSES = {"karpenter.k8s.aws": "EC2NodeClass", "karpenter.azure.com": "AKSNodeClass"}


def facts(res: Resource, ctx: Context) -> Iterator[tuple[NameFact, Hit | None]]:
    """A node class's group/kind/name; a NodePool's reference, with its finding should it be missing."""
    group = res.ref.api_version.split("/")[0]
    if NODE_CLASSES.get(group) == res.kind:
        yield ("class", f"{group}/{res.kind}/{res.name}"), None
    if res.kind != "NodePool" or not res.ref.api_version.startswith("karpenter.sh/"):
        return
    spec = res.obj.get("spec")
    template = spec.get("template") if isinstance(spec, dict) else None
    inner = template.get("spec") if isinstance(template, dict) else None
    ref = inner.get("nodeClassRef") if isinstance(inner, dict) else None
    if isinstance(ref, dict) and all(isinstance(ref.get(k), str) for k in ("group", "kind", "name")):
        yield (
            ("nodepool", f"{ref['group']}/{ref['kind']}/{ref['name']}"),
            Hit(
                f'{ref["kind"]}.{ref["group"]} "{ref["name"]}" not found: the NodePool launches no node',
                ("spec", "template", "spec", "nodeClassRef", "name"),
                at_value=True,
            ),
        )


def check(facts: Sequence[tuple[NameFact, Diagnostic | None]], ctx: Context) -> Iterable[Diagnostic]:
    return references.undefined(facts, "nodepool")


RULE = SetRule(
    meta=META,
    facts=facts,
    check=check,
    options={"completeSet": COMPLETE_SET},
    kinds=frozenset({*NODE_CLASSES.values(), "NodePool"}),
)
