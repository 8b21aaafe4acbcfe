"""A cluster's ValidatingAdmissionPolicies applied to linted objects, as the API server applies them.

The policy's own CEL is evaluated (``validate.celrules.run``), so lint and admission cannot
disagree: the resource rules of ``matchConstraints`` select the request (operation CREATE, as
a GitOps engine's first apply), then ``matchConditions``, the ``variables`` in order and every
validation; a validation that is false reports its ``messageExpression`` (its ``message`` when
that fails, as the API server does). Objects of kinds the policy does not match but that
carry pod templates (Ray, JobSet, Kubeflow, ...) are judged by the pods their controllers
will create: each template as a Pod in the object's namespace, which the policy sees at the
pods' CREATE, long after the GitOps engine reported the custom resource applied.

Resource quantities reach admission in canonical form (``1`` and ``"1"`` and ``1000m`` are
one value), so they are made comparable here before the CEL sees them.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from generator import regex
from generator.contract.model import Policy
from generator.kube import pods, quantity
from generator.validate import celrules

if TYPE_CHECKING:
    from cel import Context


@dataclass(frozen=True)
class Denial:
    policy: str
    action: str  # Deny, Warn or Audit (the binding's validationActions)
    message: str
    path: tuple  # the pod template the message's paths are relative to; () for the object itself


def judge(policy: Policy, obj: dict, namespace: str, resource_tolerations: bool = False) -> list[Denial]:
    """What ``policy`` says about creating ``obj`` (or the pods it will make) in ``namespace``.

    ``resource_tolerations``: the API server runs the ExtendedResourceToleration plugin, a
    mutating plugin that runs before validating policies and adds to a Pod (not to a pod
    template) a toleration for each extended resource it requests."""
    if policy.namespaces and namespace not in policy.namespaces:
        return []
    group, _, _version = str(obj.get("apiVersion", "")).rpartition("/")
    kind = str(obj.get("kind", ""))
    if _matches(policy, group, kind):
        containers = [c for pod in pods.templates(obj) for c in pod.containers]
        if kind == "Pod" and group == "" and resource_tolerations:
            obj = _with_resource_tolerations(obj)
        return [
            Denial(policy.name, a, m, ())
            for m in _failures(policy.spec, _comparable(obj, containers), group, kind)
            for a in _actions(policy)
        ]
    if not _matches(policy, "", "Pod"):
        return []
    found = []
    for pod in pods.templates(obj):
        if pod.partial:
            continue  # completed by a runtime: the pods are not all written here
        as_pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"namespace": namespace}, "spec": pod.spec}
        if resource_tolerations:
            as_pod = _with_resource_tolerations(as_pod)
        comparable = _comparable(as_pod, pods.containers(("spec",), pod.spec))
        for message in _failures(policy.spec, comparable, "", "Pod"):
            found += [Denial(policy.name, a, message, pod.path) for a in _actions(policy)]
    return found


def _with_resource_tolerations(pod: dict) -> dict:
    """The Pod as ExtendedResourceToleration leaves it (kubernetes plugin/pkg/admission/
    extendedresourcetoleration/admission.go: key = resource name, operator Exists, effect NoSchedule)."""
    spec = pod.get("spec")
    if not isinstance(spec, dict):
        return pod
    names = sorted({name for _, c in pods.containers(("spec",), spec) for name in pods.gpu_names(c) | _extended(c)})
    if not names:
        return pod
    tolerations = list(spec.get("tolerations") or [])
    tolerations += [{"key": name, "operator": "Exists", "effect": "NoSchedule"} for name in names]
    return {**pod, "spec": {**spec, "tolerations": tolerations}}  # a new pod; the linted object is left as it is


def _extended(container: dict) -> set[str]:
    requests, limits = pods.resources(container)
    return {n for n in (*requests, *limits) if isinstance(n, str) and pods.is_extended(n)}


def _actions(policy: Policy) -> list[str]:
    """Deny wins over Warn; Audit alone is only recorded in the audit log."""
    actions: list[str] = [a for a in ("Deny", "Warn") if a in policy.actions]
    return actions[:1]


@functools.lru_cache(maxsize=4096)
def _matches(policy: Policy, group: str, kind: str) -> bool:
    """Whether the policy's resource rules select creating ``kind`` of ``group`` (asked for each
    linted object: remembered per policy and kind)."""
    resource = _plural(kind)
    for rule in (policy.spec.get("matchConstraints") or {}).get("resourceRules") or []:
        if (
            group in rule.get("apiGroups", [])
            and resource in rule.get("resources", [])
            and any(op in ("CREATE", "*") for op in rule.get("operations", []))
        ):
            return True
    return False


def _plural(kind: str) -> str:
    """The resource of a core workload kind (all of them plural with ``s``)."""
    return kind.lower() + "s"


def _failures(spec: dict, obj: dict, group: str, kind: str) -> list[str]:
    request = {"operation": "CREATE", "kind": {"group": group, "version": "v1", "kind": kind}}
    context = celrules.context({"object": obj, "oldObject": None, "request": request})
    try:
        for condition in spec.get("matchConditions") or []:
            if celrules.run(condition["expression"], context) is not True:
                return []
        variables: dict = {}
        for variable in spec.get("variables") or []:
            variables[variable["name"]] = _run(variable["expression"], context, variables)
        failed = []
        for validation in spec.get("validations") or []:
            if _run(validation["expression"], context, variables) is False:
                failed.append(_message(validation, context, variables))
        return failed
    except Exception:  # noqa: BLE001 (an evaluation error is the policy's failurePolicy, not a lint finding)
        return []


def _run(expression: str, context: Context, variables: dict) -> object:
    """``expression`` run in ``context`` with the policy's ``variables`` computed so far: only
    those it names are handed to the evaluator, which converts them on every run (a variable
    holds the pod spec, or its containers)."""
    named = _named_variables(expression)
    context.add_variable(
        "variables", variables if named is None else {n: variables[n] for n in named if n in variables}
    )
    return celrules.run(expression, context)


_VARIABLE = regex.compile(r"\bvariables\.([A-Za-z_][A-Za-z0-9_]*)")


@functools.cache
def _named_variables(expression: str) -> tuple[str, ...] | None:
    """The names an expression reads as ``variables.<name>``; None when it uses ``variables``
    otherwise too (``variables[k]``, ``size(variables)``): then it gets all of them."""
    named = _VARIABLE.findall(expression)
    return tuple(named) if len(named) == expression.count("variables") else None


def _message(validation: dict, context: Context, variables: dict) -> str:
    expression = validation.get("messageExpression")
    if expression:
        try:
            text = _run(expression, context, variables)
            if isinstance(text, str) and text.strip():
                return text
        except Exception:  # noqa: BLE001 (the API server falls back to message)
            pass
    return validation.get("message") or "denied by the admission policy"


def _comparable(obj: dict, containers: Iterable[tuple[tuple, dict]]) -> dict:
    """``obj`` with the requests and limits of ``containers`` (``(path, container)`` in ``obj``)
    in one spelling per value. Only the dicts and lists on the way to a value respelt are
    copied; the rest is shared with ``obj``, which the evaluator only reads."""
    for cpath, container in containers:
        for section, values in zip(("requests", "limits"), pods.resources(container), strict=True):
            respelt = {name: _canonical(value) for name, value in values.items()}
            if respelt != values:
                obj = _replaced(obj, pods.resources_path(cpath) + (section,), respelt)
    return obj


def _canonical(value: object) -> object:
    parsed = quantity.parse(value)
    if parsed is None:
        return value
    return str(parsed.numerator) if parsed.denominator == 1 else str(parsed)


def _replaced(node: Any, path: tuple, value: object) -> Any:
    """``node`` with ``value`` at ``path``: a copy of each dict and list on the way, the rest shared."""
    if not path:
        return value
    copied = copy.copy(node)
    copied[path[0]] = _replaced(node[path[0]], path[1:], value)
    return copied
