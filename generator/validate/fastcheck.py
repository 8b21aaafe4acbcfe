"""A compiled yes/no check for the JSON Schema subset the Kubernetes schemas use.

``jsonschema`` walks the schema for every object (and every ``$ref``), which makes it the
slowest step of lint. Most objects are valid, so each kind's schema is compiled once into
nested closures that only answer "valid?"; ``jsonschema`` runs only when the answer is no,
to produce the messages. A schema using any keyword outside the supported subset is not
compiled (``Unsupported``) and that kind always goes through ``jsonschema``, so the fast
path can never accept what ``jsonschema`` would reject. Definitions behind a ``$ref`` are
compiled when an object first reaches them, so ``Unsupported`` can also come from a check:
the caller then treats the kind as not compiled.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sized

TYPE_CHECKING = False  # typing's flag without importing typing (PEP 781; mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any


Check = Callable[[object], bool]

# keywords that never affect validity (format is not checked: format_checker=None)
_ANNOTATIONS = frozenset(
    {
        "description",
        "title",
        "default",
        "format",
        "example",
        "examples",
        "$schema",
        "$id",
        "$defs",
        "definitions",
        "$comment",
        "deprecated",
        "readOnly",
        "writeOnly",
    }
)


def _affects_validity(key: str) -> bool:
    """Whether a schema key is a keyword that can refuse a value: not an annotation, and not an
    ``x-`` extension (jsonschema ignores unknown keywords, ``x-kubernetes-*`` included)."""
    return key not in _ANNOTATIONS and not key.startswith("x-")


_TYPES: dict[str, Callable[[object], bool]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer()),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
}
# ``type: [T, "null"]`` (the strict standalone schemas' way of every optional field) as one test
_NULLABLE: dict[str, Callable[[object], bool]] = {
    "object": lambda v: v is None or isinstance(v, dict),
    "array": lambda v: v is None or isinstance(v, list),
    "string": lambda v: v is None or isinstance(v, str),
    "boolean": lambda v: v is None or isinstance(v, bool),
}
_NULLABLE["integer"] = lambda v: (
    v is None or (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer())
)
_NULLABLE["number"] = lambda v: v is None or (isinstance(v, (int, float)) and not isinstance(v, bool))
# the type tests above that are one ``isinstance``: a fused object check makes it inline
_ISINSTANCE: dict[Callable[[object], bool], tuple[type, ...]] = {
    **{_TYPES[name]: (kind,) for name, kind in (("object", dict), ("array", list), ("string", str), ("boolean", bool))},
    **{
        _NULLABLE[name]: (kind, type(None))
        for name, kind in (("object", dict), ("array", list), ("string", str), ("boolean", bool))
    },
}


def _all(checks: list[Check]) -> Check:
    """All of ``checks``, without a generator for the common two or three."""
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:
        first, second = checks
        return lambda v: first(v) and second(v)
    if len(checks) == 3:
        first, second, third = checks
        return lambda v: first(v) and second(v) and third(v)
    return lambda v: all(c(v) for c in checks)


class Unsupported(Exception):
    """The schema uses a keyword this compiler does not implement."""


def _length(kind: type[Sized], at_least: bool) -> Callable[[Compiler, Any, dict], Check]:
    """The handler of a length bound (minLength/maxLength, minItems/maxItems,
    minProperties/maxProperties): it holds for values of ``kind``; values of other types pass."""

    def handler(compiler: Compiler, bound: object, schema: dict) -> Check:
        limit = _count(bound)
        if at_least:
            return lambda v: not isinstance(v, kind) or len(v) >= limit
        return lambda v: not isinstance(v, kind) or len(v) <= limit

    return handler


class Compiler:
    """Compiles schemas whose ``$ref``s point into one shared definitions document."""

    def __init__(self, definitions: Mapping[str, Any], ref_prefixes: tuple[str, ...]):
        self.definitions = definitions
        self.ref_prefixes = ref_prefixes
        self._refs: dict[str, Check] = {}
        self._cells: dict[Check, list[Check]] = {}  # a ``$ref``'s check → the cell holding its target's

    def compile(self, schema: object) -> Check:
        if schema is True or schema == {}:
            return lambda v: True
        if schema is False:
            return lambda v: False
        if not isinstance(schema, dict):
            raise Unsupported(repr(schema))
        fused = self._object(schema) or self._container(schema)
        if fused is not None:
            return fused
        checks: list[Check] = []
        for key in schema:
            if not _affects_validity(key):
                continue
            handler = self._KEYWORDS.get(key)
            if handler is None:
                raise Unsupported(key)
            check = handler(self, schema[key], schema)
            if check is not None:
                checks.append(check)
        if not checks:
            return lambda v: True
        return _all(checks)

    def _object(self, schema: dict) -> Check | None:
        """The commonest Kubernetes schema (``type: object`` with ``properties``, and optionally
        ``required`` and ``additionalProperties``) as one loop over the object's keys instead of
        three checks; None for any other schema."""
        keys = {k for k in schema if _affects_validity(k)}
        kind = schema.get("type")
        nullable = kind in (["object", "null"], ["null", "object"])
        if (
            (kind != "object" and not nullable)
            or "properties" not in keys
            or not keys <= {"type", "properties", "required", "additionalProperties"}
        ):
            return None
        # per property: an ``isinstance`` tuple for a bare type test, the cell of a ``$ref``'s
        # target, or the check: one call per value, not two or three; each compiled when a value
        # first reaches it (a PodSpec has 40 properties, an object sets a handful)
        properties = schema["properties"]
        compiled: dict[str, Any] = {}
        required = tuple(schema.get("required", ()))
        extra = schema.get("additionalProperties", True)
        closed = extra is False
        other = None if extra is True or closed else self.compile(extra)

        def first(name: str) -> Any:
            test = self.compile(properties[name])
            found = compiled[name] = _ISINSTANCE.get(test) or self._cells.get(test) or test
            return found

        def check(v: Any) -> bool:
            if v.__class__ is not dict and not isinstance(v, dict):
                return nullable and v is None
            for key, value in v.items():
                sub = compiled.get(key)
                if sub is None:
                    if key in properties:
                        sub = first(key)
                    elif closed or (other is not None and not other(value)):
                        return False
                    else:
                        continue
                kind = sub.__class__
                if kind is tuple:
                    if not isinstance(value, sub):
                        return False
                elif kind is list:
                    if not sub[0](value):
                        return False
                elif not sub(value):
                    return False
            for name in required:
                if name not in v:
                    return False
            return True

        return check

    def _container(self, schema: dict) -> Check | None:
        """An array with ``items`` or a map (an object with only ``additionalProperties``), each
        of a bare or nullable type, as one loop over the values, each value's check inline as
        in ``_object``; None for any other schema."""
        keys = {k for k in schema if _affects_validity(k)}
        kind = schema.get("type")
        if keys == {"type", "items"} and kind in ("array", ["array", "null"], ["null", "array"]):
            container: type = list
            sub_schema = schema["items"]
            if not isinstance(sub_schema, dict):
                raise Unsupported("items as a list")
        elif keys == {"type", "additionalProperties"} and kind in ("object", ["object", "null"], ["null", "object"]):
            container = dict
            sub_schema = schema["additionalProperties"]
            if not isinstance(sub_schema, dict):
                return None  # true or false: the generic checks
        else:
            return None
        nullable = isinstance(kind, list)
        test = self.compile(sub_schema)
        sub: Any = _ISINSTANCE.get(test) or self._cells.get(test) or test
        values: Callable[[Any], Any] = iter if container is list else dict.values

        def check(v: Any) -> bool:
            if v.__class__ is not container and not isinstance(v, container):
                return nullable and v is None
            how = sub.__class__
            if how is tuple:
                for value in values(v):
                    if not isinstance(value, sub):
                        return False
            elif how is list:
                for value in values(v):
                    if not sub[0](value):
                        return False
            else:
                for value in values(v):
                    if not sub(value):
                        return False
            return True

        return check

    def _ref(self, ref: str, schema: dict) -> Check:
        for prefix in self.ref_prefixes:
            if ref.startswith(prefix):
                name = ref[len(prefix) :]
                break
        else:
            raise Unsupported(ref)
        if name not in self._refs:
            target = self.definitions.get(name)
            if target is None:
                raise Unsupported(ref)

            def first(v: object) -> bool:
                """Compile the definition when an object first reaches it: a kind's schema
                reaches hundreds of definitions, an object a few dozen."""
                cell[0] = self.compile(target)
                return cell[0](v)

            cell: list[Check] = [first]
            self._refs[name] = lambda v: cell[0](v)  # recursive definitions refer to themselves
            self._cells[self._refs[name]] = cell
        return self._refs[name]

    def _type(self, value: Any, schema: dict) -> Check:
        names = [value] if isinstance(value, str) else list(value)
        if any(n not in _TYPES for n in names):
            raise Unsupported(f"type {value}")
        nullable = "null" in names
        tests = [_TYPES[n] for n in names if n != "null"]
        if not tests:
            return _TYPES["null"]
        if nullable and len(names) == 2:
            return _NULLABLE[next(n for n in names if n != "null")]
        test = tests[0] if len(tests) == 1 else (lambda v: any(t(v) for t in tests))
        return (lambda v: v is None or test(v)) if nullable else test

    def _enum(self, values: Any, schema: dict) -> Check:
        if all(isinstance(x, str) for x in values):
            allowed = frozenset(values)
            return lambda v: isinstance(v, str) and v in allowed
        if all(x is None or isinstance(x, str) for x in values):
            allowed = frozenset(values)
            return lambda v: (v is None or isinstance(v, str)) and v in allowed
        raise Unsupported("enum of mixed types")

    def _required(self, names: Any, schema: dict) -> Check:
        names = tuple(names)
        return lambda v: not isinstance(v, dict) or all(n in v for n in names)

    def _properties(self, props: Any, schema: dict) -> Check:
        compiled = {name: self.compile(sub) for name, sub in props.items()}

        def check(v: Any) -> bool:
            if not isinstance(v, dict):
                return True
            for key, value in v.items():
                sub = compiled.get(key)
                if sub is not None and not sub(value):
                    return False
            return True

        return check

    def _additionalProperties(self, extra: Any, schema: dict) -> Check | None:  # noqa: N802 (JSON Schema's name)
        if "patternProperties" in schema:
            raise Unsupported("patternProperties")
        known = frozenset(schema.get("properties", {}))
        if extra is False:
            return lambda v: not isinstance(v, dict) or all(k in known for k in v)
        sub = self.compile(extra)
        return lambda v: not isinstance(v, dict) or all(sub(x) for k, x in v.items() if k not in known)

    def _items(self, items: Any, schema: dict) -> Check:
        if not isinstance(items, dict):
            raise Unsupported("items as a list")
        sub = self.compile(items)

        def check(v: Any) -> bool:
            if v.__class__ is not list and not isinstance(v, list):
                return True
            for item in v:  # a loop, not ``all`` over a generator: arrays of objects are common
                if not sub(item):
                    return False
            return True

        return check

    # The keywords below, as jsonschema 4 decides them (``_keywords``, ``_utils.equal`` and
    # ``uniq``), for the input schemas (schemas/cluster.schema.json): JSON equality, where true
    # is not 1 and 1 is 1.0; ``then`` and ``else`` apply only beside an ``if``.

    def _const(self, value: Any, schema: dict) -> Check:
        return lambda v: _equal(v, value)

    def _uniqueItems(self, flag: Any, schema: dict) -> Check | None:  # noqa: N802 (JSON Schema's name)
        if flag is False:
            return None
        if flag is not True:
            raise Unsupported(f"uniqueItems {flag!r}")
        return lambda v: not isinstance(v, list) or _unique(v)

    def _propertyNames(self, sub: Any, schema: dict) -> Check:  # noqa: N802 (JSON Schema's name)
        inner = self.compile(sub)
        return lambda v: not isinstance(v, dict) or all(inner(k) for k in v)

    def _if(self, sub: Any, schema: dict) -> Check:
        test, then, other = (
            self.compile(sub),
            self.compile(schema.get("then", True)),
            self.compile(schema.get("else", True)),
        )
        return lambda v: then(v) if test(v) else other(v)

    def _beside_if(self, sub: Any, schema: dict) -> None:
        """``then``/``else``: compiled by ``_if``, ignored without one."""
        return None

    def _oneOf(self, options: Any, schema: dict) -> Check:  # noqa: N802 (JSON Schema's name)
        subs = [self.compile(o) for o in options]
        if len(subs) == 2:  # int-or-string, quantities: exactly one of two, without a generator
            first, second = subs
            return lambda v: (not first(v)) is not (not second(v))
        return lambda v: sum(1 for s in subs if s(v)) == 1

    # The keywords below, as jsonschema 4's ``_keywords`` module decides them (custom resource
    # schemas use them: patterns, bounds, anyOf of int-or-string). Each applies to one JSON
    # type and passes any other value; comparisons are written as jsonschema's failure test
    # negated, so a NaN is judged alike.

    def _anyOf(self, options: Any, schema: dict) -> Check:  # noqa: N802 (JSON Schema's name)
        subs = [self.compile(o) for o in _subschemas(options)]
        return lambda v: any(s(v) for s in subs)

    def _allOf(self, options: Any, schema: dict) -> Check:  # noqa: N802 (JSON Schema's name)
        return _all([self.compile(o) for o in _subschemas(options)])

    def _not(self, sub: Any, schema: dict) -> Check:
        inner = self.compile(sub)
        return lambda v: not inner(v)

    def _pattern(self, pattern: Any, schema: dict) -> Check:
        if not isinstance(pattern, str):
            raise Unsupported("pattern that is not a string")
        import re  # a schema with a pattern: only then

        try:
            search = re.compile(pattern).search
        except re.error:
            raise Unsupported(f"pattern {pattern!r}") from None
        return lambda v: not isinstance(v, str) or search(v) is not None

    def _minimum(self, bound: Any, schema: dict) -> Check:
        bound = _bound(bound)
        return lambda v: not _is_number(v) or not v < bound

    def _maximum(self, bound: Any, schema: dict) -> Check:
        bound = _bound(bound)
        return lambda v: not _is_number(v) or not v > bound

    def _exclusiveMinimum(self, bound: Any, schema: dict) -> Check:  # noqa: N802 (JSON Schema's name)
        bound = _bound(bound)
        return lambda v: not _is_number(v) or not v <= bound

    def _exclusiveMaximum(self, bound: Any, schema: dict) -> Check:  # noqa: N802 (JSON Schema's name)
        bound = _bound(bound)
        return lambda v: not _is_number(v) or not v >= bound

    # keyword → handler; a keyword not here is not compiled (``Unsupported``)
    _KEYWORDS: dict[str, Callable[[Compiler, Any, dict], Check | None]] = {
        "$ref": _ref,
        "type": _type,
        "enum": _enum,
        "required": _required,
        "properties": _properties,
        "additionalProperties": _additionalProperties,
        "items": _items,
        "oneOf": _oneOf,
        "anyOf": _anyOf,
        "allOf": _allOf,
        "not": _not,
        "pattern": _pattern,
        "minLength": _length(str, at_least=True),
        "maxLength": _length(str, at_least=False),
        "minItems": _length(list, at_least=True),
        "maxItems": _length(list, at_least=False),
        "minProperties": _length(dict, at_least=True),
        "maxProperties": _length(dict, at_least=False),
        "minimum": _minimum,
        "maximum": _maximum,
        "exclusiveMinimum": _exclusiveMinimum,
        "exclusiveMaximum": _exclusiveMaximum,
        "const": _const,
        "uniqueItems": _uniqueItems,
        "propertyNames": _propertyNames,
        "if": _if,
        "then": _beside_if,
        "else": _beside_if,
    }


def _equal(one: object, two: object) -> bool:
    """JSON equality: true and false equal only themselves, numbers compare by value."""
    if isinstance(one, bool) or isinstance(two, bool):
        return isinstance(one, bool) and isinstance(two, bool) and one == two
    if isinstance(one, str) or isinstance(two, str):
        return one == two
    if isinstance(one, list) and isinstance(two, list):
        return len(one) == len(two) and all(_equal(a, b) for a, b in zip(one, two, strict=True))
    if isinstance(one, dict) and isinstance(two, dict):
        return one.keys() == two.keys() and all(_equal(one[k], two[k]) for k in one)
    if isinstance(one, (list, dict)) or isinstance(two, (list, dict)):
        return False
    return one == two


def _unique(items: list) -> bool:
    return all(not _equal(items[i], items[j]) for i in range(len(items)) for j in range(i + 1, len(items)))


def _is_number(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _count(bound: object) -> int:
    """A length bound; any other value is left to jsonschema."""
    if isinstance(bound, bool) or not isinstance(bound, int):
        raise Unsupported(f"length bound {bound!r}")
    return bound


def _bound(bound: object) -> int | float:
    """A numeric bound (draft 6 and later: a number, not draft 4's boolean flag)."""
    if not _is_number(bound):
        raise Unsupported(f"numeric bound {bound!r}")
    return bound  # type: ignore[return-value]


def _subschemas(options: object) -> list:
    if not isinstance(options, list) or not options:
        raise Unsupported("a list of subschemas that is not a non-empty list")
    return options
