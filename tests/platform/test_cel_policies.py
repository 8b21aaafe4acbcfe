"""Every rendered ValidatingAdmissionPolicy's CEL, checked beyond what cel-python evaluates
(tests/platform/test_gpu_admission_cel.py, tests/platform/test_gpu_node_labeller_policy.py):

- parsed by a second, independent CEL implementation (the ``common-expression-language``
  dependency, ANTLR grammar of the CEL spec), so an expression cel-python accepts by leniency
  fails here;
- every function is one the API server documents for admission CEL (the CEL standard
  definitions and the Kubernetes libraries:
  https://kubernetes.io/docs/reference/using-api/cel/, v1.30), and docs/gpu.md names exactly
  the ones the policies use;
- every identifier is one the API server binds (``object``, ``oldObject``, ``request``,
  ``variables``, ...) or a comprehension's own variable, every ``variables.<name>`` is declared
  before it is read;
- a type check of every field selection: each ``object.<path>`` / ``oldObject.<path>`` exists
  in the OpenAPI schema of a kind the policy matches (the API server types ``object`` from it and
  refuses the policy otherwise), and each ``request.<path>`` in admission.k8s.io/v1
  AdmissionRequest (k8s.io/api/admission/v1 types.go).

Not checked offline: the API server's cost estimate. Each validation runs within the runtime
budget of 10^7 cost units per policy evaluation (k8s.io/apiserver pkg/apis/cel/config.go
RuntimeCELCostBudget); the policies' comprehensions run over a pod's containers and their
resource maps, or a Node's labels, far below it.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import cel
import pytest
from conftest import EXAMPLES, REPO
from ruamel.yaml import YAML

from generator.validate.kubernetes import schema_root

# CEL standard functions and operators (cel-spec langdef.md "Standard Definitions") and the
# Kubernetes libraries (kubernetes.io/docs/reference/using-api/cel/: lists, strings, regex, URLs,
# authorizer, quantity, IP/CIDR, format, semver): what admission CEL may call.
DOCUMENTED = {
    # standard
    "size", "string", "int", "uint", "double", "bytes", "bool", "type", "dyn", "duration", "timestamp",
    "matches", "startsWith", "endsWith", "contains",
    # macros
    "has", "all", "exists", "exists_one", "filter", "map",
    # Kubernetes list library
    "isSorted", "sum", "min", "max", "indexOf", "lastIndexOf",
    # strings extension
    "charAt", "lowerAscii", "upperAscii", "replace", "split", "substring", "trim", "join", "format", "quote",
    # regex, URLs, quantity, IP/CIDR, semver
    "find", "findAll", "url", "isURL", "quantity", "isQuantity", "ip", "isIP", "cidr", "isCIDR", "semver", "isSemver",
}  # fmt: skip
# Identifiers a ValidatingAdmissionPolicy's expressions are given (ValidatingAdmissionPolicy
# docs, "Validation expression": object, oldObject, request, params, namespaceObject,
# authorizer, authorizer.requestResource, variables).
BOUND = {"object", "oldObject", "request", "params", "namespaceObject", "authorizer", "variables"}
# admission.k8s.io/v1 AdmissionRequest (k8s.io/api/admission/v1 types.go), as `request` binds it.
REQUEST = {
    "uid": None,
    "kind": {"group": None, "version": None, "kind": None},
    "resource": {"group": None, "version": None, "resource": None},
    "subResource": None,
    "requestKind": {"group": None, "version": None, "kind": None},
    "requestResource": {"group": None, "version": None, "resource": None},
    "requestSubResource": None,
    "name": None,
    "namespace": None,
    "operation": None,
    "userInfo": {"username": None, "uid": None, "groups": None, "extra": None},
    "dryRun": None,
    "options": None,
}
MACRO = re.compile(r"\b(has|all|exists|exists_one|filter|map)\(")


def policies() -> list[tuple[str, dict]]:
    """Every ValidatingAdmissionPolicy of the committed trees, found by its file's name (render
    names a file after its object's kind, the frozen scheme tests/render/test_render.py holds it
    to): only those files are read when each xdist worker collects this module."""
    yaml = YAML(typ="safe")
    out = []
    for cluster in EXAMPLES:
        for path in sorted((REPO / "rendered" / cluster).rglob("validatingadmissionpolicy_*.yaml")):
            policy = yaml.load(path.read_text(encoding="utf-8"))
            assert policy["kind"] == "ValidatingAdmissionPolicy", path
            out.append((f"{cluster}/{policy['metadata']['name']}", policy))
    return out


def expressions(policy: dict) -> list[tuple[str, str]]:
    """(where, expression) in the order the API server evaluates them."""
    spec = policy["spec"]
    out = [(f"matchConditions[{c['name']}]", c["expression"]) for c in spec.get("matchConditions", [])]
    out += [(f"variables[{v['name']}]", v["expression"]) for v in spec.get("variables", [])]
    for i, v in enumerate(spec["validations"]):
        out.append((f"validations[{i}]", v["expression"]))
        if "messageExpression" in v:
            out.append((f"validations[{i}].messageExpression", v["messageExpression"]))
    return out


def functions_of(expression: str) -> set[str]:
    called = {f for f in cel.compile(expression).functions() if f[0].isalpha()}
    return called | set(MACRO.findall(expression))


@cache
def definitions() -> dict:
    folder = Path(schema_root(), "v1.33.0-local-strict")
    return json.loads((folder / "_definitions.json").read_text(encoding="utf-8"))["$defs"]


def kind_schema(group: str, resource: str) -> dict:
    kind = resource.removesuffix("s")
    name = f"{kind}-{group}-v1.json" if group else f"{kind}-v1.json"
    return json.loads((Path(schema_root(), "v1.33.0-local-strict") / name).read_text(encoding="utf-8"))


def resolve(schema: dict) -> dict:
    while "$ref" in schema:
        schema = definitions()[schema["$ref"].rsplit("/", 1)[1]]
    return schema


def has_path(schema: dict, path: list[str]) -> bool:
    for field in path:
        schema = resolve(schema)
        if "properties" in schema:
            if field not in schema["properties"]:
                return False
            schema = schema["properties"][field]
        elif isinstance(schema.get("additionalProperties"), dict):
            return True  # a map: any key
        else:
            return False  # a scalar or a list: no field to select
    return True


def selections(expression: str, root: str) -> list[list[str]]:
    """The field chains selected from ``root``, up to the first method call or index."""
    chains = []
    for match in re.finditer(rf"(?<![\w.]){root}((?:\.\w+)+)", expression):
        fields, end = [], match.start(1)
        for part in re.finditer(r"\.(\w+)", match.group(1)):
            after = expression[end + part.end() : end + part.end() + 1]
            if after == "(":
                break
            fields.append(part.group(1))
        chains.append(fields)
    return chains


POLICIES = policies()


@pytest.mark.parametrize(("name", "policy"), POLICIES, ids=[n for n, _ in POLICIES])
def test_every_expression_parses_and_stays_in_the_documented_library(name, policy):
    for where, expression in expressions(policy):
        undocumented = functions_of(expression) - DOCUMENTED
        assert not undocumented, (where, undocumented)


@pytest.mark.parametrize(("name", "policy"), POLICIES, ids=[n for n, _ in POLICIES])
def test_every_identifier_is_bound_and_every_variable_declared_first(name, policy):
    declared: list[str] = []
    for where, expression in expressions(policy):
        for ident in cel.compile(expression).variables():
            comprehension = re.search(rf"\.(all|exists|exists_one|filter|map)\(\s*{ident}\s*,", expression)
            assert ident in BOUND or comprehension, (where, ident)
        for used in re.findall(r"\bvariables\.(\w+)", expression):
            assert used in declared, (where, used)
        if where.startswith("variables["):
            declared.append(where.removeprefix("variables[").removesuffix("]"))


@pytest.mark.parametrize(("name", "policy"), POLICIES, ids=[n for n, _ in POLICIES])
def test_every_field_selection_exists_in_the_matched_types(name, policy):
    kinds = [
        kind_schema(group, resource)
        for rule in policy["spec"]["matchConstraints"]["resourceRules"]
        for group in rule["apiGroups"]
        for resource in rule["resources"]
    ]
    for where, expression in expressions(policy):
        for root in ("object", "oldObject"):
            for chain in selections(expression, root):
                assert any(has_path(k, chain) for k in kinds), (where, root + "." + ".".join(chain))
        for chain in selections(expression, "request"):
            node: dict | None = REQUEST
            for field in chain:
                assert isinstance(node, dict) and field in node, (where, "request." + ".".join(chain))
                node = node[field]


def test_the_type_check_refuses_a_field_the_type_lacks():
    """The check itself: a misspelt field or a field selected on a list is refused."""
    pod = kind_schema("", "pods")
    assert has_path(pod, ["spec", "containers"]) and has_path(pod, ["metadata", "labels", "any"])
    assert not has_path(pod, ["spec", "container"]) and not has_path(pod, ["spec", "containers", "name"])
    assert selections("has(object.spec.x) && object.spec.containers.exists(c, c.y)", "object") == [
        ["spec", "x"],
        ["spec", "containers"],
    ]


def test_the_docs_name_the_functions_the_policies_use():
    used = set().union(*(functions_of(e) for _, p in POLICIES for _, e in expressions(p)))
    text = (Path(REPO) / "docs" / "gpu.md").read_text(encoding="utf-8")
    (line,) = re.findall(r"CEL functions the policies use: (.*)\.", text)
    assert set(re.findall(r"`(\w+)`", line)) == used
