"""The CEL rules of a CRD schema (``x-kubernetes-validations``), evaluated as the API server does.

Each rule is evaluated with ``self`` bound to the value at its schema node, after pruning and
defaulting; a rule that returns false is a problem worded with the rule's own ``message``, or
its ``messageExpression``, or "failed rule: <rule>" (the API server's wording). Kubernetes docs:
https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#validation-rules
Transition rules (those that read ``oldSelf``) only run on updates and are skipped. Of the
Kubernetes CEL libraries (https://kubernetes.io/docs/reference/using-api/cel/#cel-options-language-features-and-libraries)
all those the API server offers CRD rules are provided (``cellib``: strings, lists, sets,
regex, quantity, URLs, IP and CIDR, semver, format); a rule this evaluator still cannot run (a
type it reads differently, the ``.?`` optional field syntax) is skipped with one warning per
rule, never reported as a failure; ``unevaluated`` lists them for a schema.

The evaluator is the Rust-backed ``common-expression-language`` package: a compiled rule of the
shape the shipped CRDs use (``has``, ``size``, ``all``, ternaries) evaluates in about 8 µs,
against about 2.6 ms with the pure-Python cel-python, on this project's 2-core machines.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any

from generator.validate.cellib import LIBRARY, NAMESPACES

if TYPE_CHECKING:
    from cel import Context, Program

Path = tuple[str | int, ...]


@functools.cache
def _cel() -> ModuleType:
    """The evaluator, loaded when a rule first runs: the compiled module of the
    ``common-expression-language`` package (``cel/cel.<abi>.so``) on its own. Importing the
    package also imports its command line (typer, rich, prompt_toolkit): 0.15 s in every lint
    worker that evaluates a rule, against 7 ms for the module. It is registered as ``cel.cel``,
    where the package's ``__init__`` finds it should anything import the package later (the
    module initialises once per process); where it is not found, the package is imported."""
    import importlib.machinery
    import importlib.util

    if "cel.cel" in sys.modules:
        return sys.modules["cel.cel"]
    spec = importlib.util.find_spec("cel")
    folder = os.path.dirname(spec.origin) if spec is not None and spec.origin else ""
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = os.path.join(folder, "cel" + suffix)
        if folder and os.path.isfile(path):
            loader = importlib.machinery.ExtensionFileLoader("cel.cel", path)
            module = importlib.util.module_from_spec(importlib.machinery.ModuleSpec("cel.cel", loader, origin=path))
            loader.exec_module(module)
            sys.modules["cel.cel"] = module
            return module
    import cel

    return cel


def _execute(program: Program, value: object) -> Any:
    """Run a program with ``self`` bound; the library functions and namespaces only when it uses them."""
    functions = LIBRARY.keys() & set(program.functions())
    namespaces = {name: NAMESPACES[name] for name in NAMESPACES.keys() & set(program.variables())}
    if not functions and not namespaces:
        return program.execute({"self": value})
    context = _cel().Context(variables={"self": value, **namespaces})
    for name in functions:
        context.add_function(name, LIBRARY[name])
    return program.execute(context)


def context(variables: dict) -> Context:
    """An evaluation context holding ``variables`` (an admission policy's ``object``,
    ``request``, ...) and the library functions: the values are converted for the evaluator
    once, for every expression ``run`` in it."""
    found = _cel().Context(variables={**NAMESPACES, **variables})
    for name, function in LIBRARY.items():
        found.add_function(name, function)
    return found


def run(expression: str, where: Context) -> Any:
    """Evaluate ``expression`` in the context ``where`` (made by ``context``); raises
    ``ValueError`` when it does not compile and whatever the evaluator raises when it fails."""
    program = _program(expression)
    if isinstance(program, str):
        raise ValueError(program)
    return program.execute(where)


@functools.lru_cache(maxsize=4096)
def _program(rule: str) -> Program | str:
    """The compiled rule, or the reason it cannot be compiled."""
    try:
        return _cel().compile(rule)
    except (ValueError, RuntimeError) as exc:
        return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def _message(rule: dict, value: object) -> str:
    expression = rule.get("messageExpression")
    if isinstance(expression, str) and expression:
        program = _program(expression)
        if not isinstance(program, str):
            try:
                text = _execute(program, value)
                if isinstance(text, str) and text.strip():
                    return text
            except Exception:  # noqa: BLE001 (the API server falls back to message on any failure)
                pass
    message = rule.get("message")
    return message if isinstance(message, str) and message else f"failed rule: {rule.get('rule')}"


def check(
    schema: object, value: object, skipped: Callable[[str, str], None], path: Path = ()
) -> list[tuple[Path, str]]:
    """``(path, message)`` for every rule that ``value`` fails; ``skipped(rule, why)`` for the rest."""
    if not isinstance(schema, dict) or value is None:
        return []
    out: list[tuple[Path, str]] = []
    for rule in schema.get("x-kubernetes-validations") or []:
        text = rule.get("rule") if isinstance(rule, dict) else None
        if not isinstance(text, str):
            continue
        program = _program(text)
        if isinstance(program, str):
            skipped(text, program)
            continue
        if "oldSelf" in program.variables():
            continue  # a transition rule: it compares with the stored object, there is none here
        try:
            verdict = _execute(program, value)
        except Exception as exc:  # noqa: BLE001 (any evaluator failure skips the rule, never fails the object)
            skipped(text, str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
            continue
        if verdict is False:
            out.append((path, _message(rule, value)))
        elif verdict is not True:
            skipped(text, f"it returned {type(verdict).__name__}, not bool")
    if isinstance(value, dict):
        props = schema.get("properties") or {}
        extra = schema.get("additionalProperties")
        for key, item in value.items():
            sub = props.get(key, extra if isinstance(extra, dict) else None)
            if sub is not None:
                out += check(sub, item, skipped, path + (key,))
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, item in enumerate(value):
            out += check(schema["items"], item, skipped, path + (i,))
    return out


# what the evaluator itself provides: standard CEL's functions and the optional type's
STANDARD = frozenset(
    "size contains startsWith endsWith matches int uint double string bytes bool timestamp duration dyn type "
    "getFullYear getMonth getDayOfYear getDayOfMonth getDate getDayOfWeek getHours getMinutes getSeconds "
    "getMilliseconds of none hasValue value orValue or ofNonZeroValue".split()
)


def unevaluated(schema: object) -> list[tuple[str, str]]:
    """``(rule, why)`` for every ``x-kubernetes-validations`` rule of ``schema`` that cannot run
    here: it does not compile, or calls a function neither standard CEL nor ``cellib`` has."""
    out: list[tuple[str, str]] = []
    if isinstance(schema, dict):
        for rule in schema.get("x-kubernetes-validations") or []:
            text = rule.get("rule") if isinstance(rule, dict) else None
            if not isinstance(text, str):
                continue
            program = _program(text)
            if isinstance(program, str):
                out.append((text, program))
                continue
            unknown = sorted(
                f for f in program.functions() if f[:1] not in "_!@" and f not in STANDARD and f not in LIBRARY
            )
            if unknown:
                out.append((text, f"no function {', '.join(unknown)}"))
        for value in schema.values():
            out += unevaluated(value)
    elif isinstance(schema, list):
        for item in schema:
            out += unevaluated(item)
    return out
