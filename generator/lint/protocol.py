"""What a lint rule is to the engine: its metadata, its typed checks, what it is run on.

A rule module defines its checks and one frozen rule object, ``RULE``: a ``DocumentRule``,
``ObjectRule`` or ``SetRule`` holding the rule's ``RuleMeta`` (``generator.rulemeta``: ID,
name, default severity, summary, docstring), its checks, and what lets the engine skip it.
The class says what the check receives:

- ``DocumentRule``: one parsed document (``DocumentCheck``);
- ``ObjectRule``: one resource (``ObjectCheck``). It sees only objects whose apiVersion and
  kind are strings unless ``untyped`` (the rule that reports a missing kind); with
  ``pod_templates`` the engine calls it only for objects with pod templates (it reads nothing
  else), with ``device_pods`` only for those with a pod asking for a device (GPUs, huge
  pages, resource claims: ``pods.uses_devices``), with ``extended_pods`` only for those with a
  container naming an extended resource (``pods.names_extended``); tests hold every such rule
  to its flags;
- ``SetRule``: cross-resource. ``facts(resource, ctx)`` yields ``(fact, hit or None)`` per
  object: a small tuple of what the decision needs and the hit to report should the decision
  go against it; ``check(facts, ctx)`` receives every object's facts, each hit located as a
  finding (None when suppressed), and yields the findings that stand.

A rule that judges only some kinds of object declares them, ``kinds`` (the ``kind`` values;
None for any kind): the engine calls it, or for a set rule its ``facts``, for objects of those
kinds only, besides what its other flags ask (an object meets only the rules for its kind);
tests hold every such rule to its kinds. A set rule whose facts come from a few kinds and from
the pods of any workload (the class a pod names, the namespace of GPU pods) also sets
``with_pods``: the engine then calls its ``facts`` for objects of its ``kinds`` and for any
object with pod templates (``pods.templates``), and for no other.

Every rule may declare ``options`` (name → ``options.Option``, set under ``lint.rules.<ID>``)
and ``checkov``, the checkov checks it matches (it puts the one a hit corresponds to on the
hit, so checkov's skip annotation suppresses the hit too). A rule with ``cluster`` judges
against the target cluster (``lint --cluster``): the engine runs it only with a contract,
which it reads as ``ctx.contract``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet

from generator.diagnostic import Diagnostic
from generator.kube import pods
from generator.lint.model import Document, Hit, Resource
from generator.lint.options import Option
from generator.lint.settings import Settings
from generator.record import Frozen, Record
from generator.rulemeta import RuleMeta

TYPE_CHECKING = False  # typing's flag without importing typing (PEP 781; mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any, Protocol, TypeVar

    from generator.contract.model import Contract
    from generator.validate import SchemaValidator

    # The checks' shapes, for type checkers only: a lint never imports ``typing`` (~3 ms: bench/bench_import_cost.py).
    F = TypeVar("F", bound=tuple)
    F_co = TypeVar("F_co", bound=tuple, covariant=True)
    F_contra = TypeVar("F_contra", bound=tuple, contravariant=True)

    class DocumentCheck(Protocol):
        """A document rule's check: the hits in one parsed document."""

        def __call__(self, doc: Document, ctx: Context, /) -> Iterable[Hit]: ...

    class ObjectCheck(Protocol):
        """An object rule's check: the hits in one resource."""

        def __call__(self, res: Resource, ctx: Context, /) -> Iterable[Hit]: ...

    class FactsCheck(Protocol[F_co]):
        """A set rule's view of one resource: its facts, each with the hit to report should the decision go against it."""

        def __call__(self, res: Resource, ctx: Context, /) -> Iterable[tuple[F_co, Hit | None]]: ...

    class SetCheck(Protocol[F_contra]):
        """A set rule's decision over every object's facts, each hit located (None when suppressed)."""

        def __call__(
            self, facts: Sequence[tuple[F_contra, Diagnostic | None]], ctx: Context, /
        ) -> Iterable[Diagnostic]: ...


class Context(Record):
    """What rules may consult besides the object: settings, schemas, and from the registry the
    known rule IDs and ``checkov`` (a checkov check → the rule that finds the same thing).

    ``namespace_allows_privileged`` answers from the configuration; a namespace it says no
    for is remembered (``asked``), as a Namespace in another file may still allow it.
    """

    __slots__ = _fields = ("settings", "validator", "rule_ids", "checkov", "asked")

    def __init__(
        self,
        settings: Settings,
        validator: SchemaValidator | None,
        rule_ids: AbstractSet[str],
        checkov: dict[str, str],
        asked: str = "",
    ):
        self.settings = settings
        self.validator = validator
        self.rule_ids = rule_ids
        self.checkov = checkov
        self.asked = asked

    @property
    def contract(self) -> Contract:
        """The target cluster's contract, for the rules marked ``cluster`` (run only when there is one)."""
        contract = self.settings.contract
        assert contract is not None, "only a rule marked cluster=True reads ctx.contract"
        return contract

    def restricted_templates(self, res: Resource, rule_id: str) -> tuple[pods.PodTemplate, ...]:
        """The pod templates a Pod Security rule checks: core workloads outside the namespaces
        that rule allows host access (custom resources' pods get their security context from operators)."""
        if self.namespace_allows_privileged(res.namespace, rule_id):
            return ()
        return pods.templates(res.obj, custom=False)

    def namespace_allows_privileged(self, namespace: str, rule_id: str) -> bool:
        """Host access is expected where the configuration says so or where Pod Security
        admission lets privileged pods in (``pod-security.kubernetes.io/enforce: privileged``
        on a linted Namespace, settled in ``Engine.finish``)."""
        if self.settings.privileged_allowed(namespace, rule_id):
            return True
        self.asked = namespace
        return False


class _Rule(Frozen):
    """What every kind of rule has besides its checks (keyword arguments only).

    ``kinds``: the only kinds of object it judges, None for any; ``options``: name →
    ``options.Option``; ``checkov``: the checkov checks it matches; ``cluster``: it judges
    against the target cluster."""

    __slots__: tuple[str, ...] = ("meta", "kinds", "options", "checkov", "cluster")
    _fields: tuple[str, ...] = __slots__

    meta: RuleMeta
    kinds: frozenset[str] | None
    options: Mapping[str, Option]
    checkov: tuple[str, ...]
    cluster: bool

    def __init__(
        self,
        *,
        meta: RuleMeta,
        kinds: frozenset[str] | None = None,
        options: Mapping[str, Option] | None = None,
        checkov: tuple[str, ...] = (),
        cluster: bool = False,
    ):
        put = object.__setattr__
        put(self, "meta", meta)
        put(self, "kinds", kinds)
        put(self, "options", {} if options is None else options)
        put(self, "checkov", checkov)
        put(self, "cluster", cluster)


class DocumentRule(_Rule):
    __slots__ = ("check",)
    _fields = (*_Rule._fields, "check")

    check: DocumentCheck

    def __init__(self, *, check: DocumentCheck, **common: Any):
        super().__init__(**common)
        object.__setattr__(self, "check", check)


class ObjectRule(_Rule):
    __slots__ = ("check", "untyped", "pod_templates", "device_pods", "extended_pods")
    _fields = (*_Rule._fields, *__slots__)

    check: ObjectCheck
    untyped: bool
    pod_templates: bool
    device_pods: bool
    extended_pods: bool

    def __init__(
        self,
        *,
        check: ObjectCheck,
        untyped: bool = False,
        pod_templates: bool = False,
        device_pods: bool = False,
        extended_pods: bool = False,
        **common: Any,
    ):
        super().__init__(**common)
        put = object.__setattr__
        put(self, "check", check)
        put(self, "untyped", untyped)
        put(self, "pod_templates", pod_templates)
        put(self, "device_pods", device_pods)
        put(self, "extended_pods", extended_pods)


class SetRule(_Rule):
    """A rule over every object's facts. Its facts' type ties ``facts`` to ``check`` where it is
    made (``__init__`` is generic in it), not in the class: a generic class needs ``typing`` at
    run time."""

    __slots__ = ("facts", "check", "with_pods")
    _fields = (*_Rule._fields, *__slots__)

    facts: FactsCheck[Any]
    check: SetCheck[Any]
    with_pods: bool  # besides its ``kinds``, any object with pod templates

    def __init__(self, *, facts: FactsCheck[F], check: SetCheck[F], with_pods: bool = False, **common: Any):
        super().__init__(**common)
        object.__setattr__(self, "facts", facts)
        object.__setattr__(self, "check", check)
        object.__setattr__(self, "with_pods", with_pods)


Rule = DocumentRule | ObjectRule | SetRule
