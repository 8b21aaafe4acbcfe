"""Records behave as the dataclasses they replace: equality, hashing, repr, pickling, replace."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from generator.addresses import Problem
from generator.cli.lintrun import LintArgs
from generator.config import Config
from generator.diagnostic import Diagnostic, Location, ObjectRef
from generator.kube.pods import PodTemplate
from generator.lint.engine import FileResult, Result, _KindRules
from generator.lint.loader import Source
from generator.lint.model import Document, Hit, Resource
from generator.lint.options import Option
from generator.lint.protocol import Context, DocumentRule, ObjectRule, SetRule
from generator.lint.settings import Settings
from generator.paths import Project
from generator.record import Frozen, NamedTuple, Record
from generator.report import Report
from generator.ruledoc import Example
from generator.rulemeta import RuleMeta
from generator.validate.locations import SchemaLocation
from generator.validate.schemaset import SchemaSet
from generator.validate.validator import SchemaProblem, _Kind
from generator.validate.webhooks import Default
from generator.yamlio.read import Limits
from generator.yamlio.terms import Resolution


class Pair(Frozen):
    __slots__ = _fields = ("left", "right")

    def __init__(self, left: object, right: object = ()):
        object.__setattr__(self, "left", left)
        object.__setattr__(self, "right", right)


@dataclasses.dataclass(frozen=True)
class PairDataclass:
    left: object
    right: object = ()


class Box(Record):
    _fields = ("value", "hidden")
    _unshown = ("hidden",)

    def __init__(self, value: object, hidden: object = None):
        self.value = value
        self.hidden = hidden


def test_the_records_every_lint_builds_at_start_up_are_no_dataclasses():
    """Each dataclass compiles its methods when its module is imported (3 M instructions)."""
    records = (Diagnostic, Location, ObjectRef, Hit, Document, Resource, Source, Context)
    records += (DocumentRule, ObjectRule, SetRule, RuleMeta, Option, Example)
    records += (FileResult, Result, _KindRules, PodTemplate, SchemaProblem, _Kind)
    records += (Report, Project, LintArgs, Config, Resolution, Limits, Settings, SchemaSet, Default, SchemaLocation)
    records += (Problem,)
    for cls in records:
        assert not dataclasses.is_dataclass(cls), cls


def test_a_diagnostic_pickles_as_a_call_with_its_fields_and_defaults_to_no_object():
    finding = Diagnostic(Location("a.yaml", 3, 5), "error", "m", "h", "K8S003", ObjectRef("v1", "Pod", "ns", "p"))
    assert pickle.loads(pickle.dumps(finding)) == finding and hash(finding) == hash(pickle.loads(pickle.dumps(finding)))
    assert finding.__reduce__()[0] is Diagnostic
    assert Diagnostic(Location(), "warning", "m").ref == ObjectRef() and not hasattr(finding, "__dict__")
    moved = finding.replace(location=finding.location.replace(path="b.yaml"))
    assert (moved.file, moved.line, moved.col, moved.rule) == ("b.yaml", 3, 5, "K8S003")


def test_a_frozen_record_compares_hashes_and_prints_as_a_frozen_dataclass():
    pair, same, other = Pair(1, (2,)), Pair(1, (2,)), Pair(1)
    assert pair == same and pair != other and hash(pair) == hash(same)
    assert pair != PairDataclass(1, (2,)) and pair != (1, (2,))
    assert repr(pair) == repr(PairDataclass(1, (2,))).replace("PairDataclass", "Pair")
    assert len({pair, same, other}) == 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        pair.left = 2  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del pair.left


def test_a_record_pickles_and_is_replaced_through_its_init():
    pair = Pair("a", ("b",))
    assert pickle.loads(pickle.dumps(pair)) == pair
    assert pair.replace(right=()) == Pair("a") and pair == Pair("a", ("b",))
    with pytest.raises(TypeError):
        pair.replace(middle=1)


def test_a_mutable_record_is_unhashable_and_leaves_unshown_fields_out_of_its_repr():
    box = Box([1], hidden="x")
    assert box == Box([1], "x") and box != Box([1], "y")
    with pytest.raises(TypeError):
        hash(box)
    assert repr(box) == "Box(value=[1])"
    box.value.append(2)
    assert box == Box([1, 2], "x")


def test_rules_take_keyword_arguments_only_with_the_dataclass_defaults():
    meta = RuleMeta("X001", "x", "error", "summary", "doc")
    rule = ObjectRule(meta=meta, check=lambda res, ctx: ())
    assert (rule.kinds, rule.options, rule.checkov, rule.cluster) == (None, {}, (), False)
    assert (rule.untyped, rule.pod_templates, rule.device_pods, rule.extended_pods) == (False, False, False, False)
    with pytest.raises(TypeError):
        ObjectRule(meta, lambda res, ctx: ())  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        rule.cluster = True  # type: ignore[misc]
    assert ObjectRule(meta=meta, check=rule.check) == rule


def _subclasses(cls: type) -> list[type]:
    found = []
    for sub in cls.__subclasses__():
        found += [sub, *_subclasses(sub)]
    return found


def _init_names(cls: type) -> tuple[list[str], bool]:
    """The parameters ``cls.__init__`` takes (through ``**common`` to its base's) and whether
    any is keyword-only."""
    import inspect

    names, keyword_only = [], False
    for param in list(inspect.signature(cls.__init__).parameters.values())[1:]:
        if param.kind is param.VAR_KEYWORD:
            inherited, _ = _init_names(cls.__mro__[1])
            names += inherited
            keyword_only = True
        else:
            names.append(param.name)
            keyword_only |= param.kind is param.KEYWORD_ONLY
    return names, keyword_only


def test_every_record_of_the_package_sets_each_of_its_fields_in_its_init():
    """A field added to ``_fields`` but not to ``__init__`` would break ``replace``; one in
    another order would break pickling across lint's workers: ``__reduce__`` calls the class
    with the fields' values in ``_fields`` order (records built by keyword only are never
    pickled: the rules, made in each process by importing their modules)."""
    records = [cls for cls in _subclasses(Record) if cls.__module__.startswith("generator.")]
    assert len(records) >= 14
    for cls in records:
        if cls.__init__ is Record.__init__:  # an abstract base that sets no field
            continue
        names, keyword_only = _init_names(cls)
        if keyword_only:
            assert sorted(names) == sorted(cls._fields), cls
        else:
            assert tuple(names) == cls._fields, cls


def test_a_file_result_is_made_copied_and_pickled_as_the_dataclass_was():
    """Fresh lists per result (the dataclass's ``default_factory``), ``moved`` through
    ``replace``, and pickling (workers send results back) as a call with the fields in order."""
    first, second = FileResult("a.yaml"), FileResult("a.yaml")
    first.findings.append((Diagnostic(Location("a.yaml", 1, 1), "error", "m", rule="X"), ""))
    assert second.findings == [] and first != second
    moved = first.moved("b.yaml")
    assert moved.display == "b.yaml" and moved.findings[0][0].location == Location("b.yaml", 1, 1)
    assert first.findings[0][0].file == "a.yaml"
    assert pickle.loads(pickle.dumps(moved)) == moved
    assert Result([], []).passed_by == [] and PodTemplate(("spec",), {}, ()).partial is False
    assert SchemaProblem("invalid", "m") == SchemaProblem("invalid", "m", ())
    assert hash(SchemaProblem("invalid", "m")) == hash(SchemaProblem("invalid", "m"))


def test_the_settings_schema_sets_and_locations_keep_the_dataclasses_behaviour(tmp_path):
    """Settings: fresh collections per object, the version parsed, a dict of the fields (the
    cache's key); a schema set's equality and hash leave its origins out; a location names
    the bundled schemas for "default" and refuses an unknown variable."""
    first, second = Settings(), Settings()
    first.rules["GPU001"] = "off"
    assert second.rules == {} and first != second and Settings() == Settings()
    assert Settings(kubernetes_version="1.30").target_version == (1, 30)
    assert list(Settings().as_dict()) == list(Settings._fields)
    one, other = SchemaSet("1", tmp_path, 2, (), {"a": "b"}), SchemaSet("1", tmp_path, 2)
    assert one == other and hash(one) == hash(other) and SchemaSet("2", tmp_path, 2) != one
    assert SchemaLocation("default").template != "default"
    with pytest.raises(Exception, match="unknown variable"):
        SchemaLocation("{{.Nope}}")
    assert pickle.loads(pickle.dumps(Limits(1, 2, 3, 4, None))) == Limits(1, 2, 3, 4, None, None)


def test_every_typed_named_tuple_takes_the_records_base_at_run_time():
    """``typing.NamedTuple`` makes a ``ForwardRef`` of each postponed annotation and compiles it
    (~1 M instructions a field), and ``typing`` is ~3 ms to import: a module defining a typed
    named tuple imports ``typing``'s only under ``TYPE_CHECKING``, ``record.NamedTuple`` else."""
    import ast

    from conftest import REPO

    wrong = []
    for path in sorted((REPO / "generator").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        named = any(
            isinstance(node, ast.ClassDef) and any(ast.unparse(base).endswith("NamedTuple") for base in node.bases)
            for node in ast.walk(tree)
        )
        at_run_time = [
            node.module
            for node in tree.body
            if isinstance(node, ast.ImportFrom) and any(alias.name == "NamedTuple" for alias in node.names)
        ]
        runs = [
            sub.module
            for node in tree.body
            if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
            for sub in node.orelse
            if isinstance(sub, ast.ImportFrom)
        ]
        if named and (at_run_time or "generator.record" not in runs) and path.name != "record.py":
            wrong.append(str(path.relative_to(REPO)))
    assert wrong == []


class _Spot(NamedTuple):
    """A place."""

    line: int
    column: int = 0
    where: str | None = None

    def shown(self) -> str:
        return f"{self.line}:{self.column}"


def test_a_named_tuple_is_what_typings_would_be():
    """``record.NamedTuple`` makes the class ``typing.NamedTuple`` makes: the annotated fields in
    order, defaults, docstring, methods, a tuple that pickles; postponed annotations compile nothing."""
    import collections
    import typing

    class Typed(typing.NamedTuple):
        line: int
        column: int = 0
        where: str | None = None

    spot = _Spot(3)
    assert spot == (3, 0, None) and spot._fields == Typed._fields and _Spot._field_defaults == Typed._field_defaults
    assert spot._replace(column=4).shown() == "3:4" and _Spot.__doc__ == "A place." and _Spot.__module__ == __name__
    assert pickle.loads(pickle.dumps(spot)) == spot and repr(spot) == repr(Typed(3)).replace("Typed", "_Spot")
    assert issubclass(_Spot, tuple) and not issubclass(_Spot, collections.abc.Mapping)
    with pytest.raises(TypeError, match="without a default follows"):

        class Broken(NamedTuple):
            first: int = 0
            second: int
