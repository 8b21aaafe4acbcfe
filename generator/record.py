"""Records: classes of named fields, equal when their fields are, with their ``__init__`` in source.

``dataclasses.dataclass`` compiles a class's methods from generated source when its module is
imported: six ``exec`` calls for a frozen class, about 3 M instructions on Python 3.11, paid by
every command for every record it imports (a lint answered from its cache built 34). A record
class lists its fields in ``_fields``, in order, and writes its ``__init__`` by hand; this
base gives what the dataclass gave: equality by the fields in order between objects of the
same class, the dataclass's repr (``_unshown`` fields left out), ``replace`` (what
``dataclasses.replace`` did) and pickling as a call of the class with the fields. ``Frozen``
records refuse assignment as a frozen dataclass does and hash by their fields; a mutable
record is unhashable, as a dataclass with ``eq`` is. Its ``__init__`` sets fields with
``object.__setattr__``, as the frozen dataclass's did.

May import: nothing of generator.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's flag without importing typing (PEP 781; mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any


class Record:
    """A mutable record: fields in ``_fields``, set by the subclass's ``__init__``."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()
    _unshown: tuple[str, ...] = ()  # left out of the repr
    __hash__ = None  # type: ignore[assignment]  # equal by mutable fields: unhashable, as a dataclass

    def _values(self) -> tuple:
        return tuple([getattr(self, name) for name in self._fields])

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields if name not in self._unshown)
        return f"{self.__class__.__qualname__}({shown})"

    def __reduce__(self) -> tuple[type, tuple]:
        return self.__class__, self._values()

    def replace(self, **changes: Any) -> Any:
        """A copy with ``changes``, made through ``__init__`` as ``dataclasses.replace`` does."""
        values = {name: getattr(self, name) for name in self._fields}
        unknown = set(changes) - values.keys()
        if unknown:
            raise TypeError(f"{self.__class__.__qualname__} has no field {sorted(unknown)[0]!r}")
        return self.__class__(**{**values, **changes})


class Frozen(Record):
    """An immutable record, hashable by its fields."""

    __slots__ = ()

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(self._values())

    def __setattr__(self, name: str, value: object) -> None:
        from dataclasses import FrozenInstanceError  # a programming error: its import only then

        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        from dataclasses import FrozenInstanceError

        raise FrozenInstanceError(f"cannot delete field {name!r}")


class _NamedTupleType(type):
    """Makes each class written ``class Name(NamedTuple)`` the ``collections.namedtuple`` of its
    annotated fields, in order, the values assigned to the last ones their defaults, with the
    class's docstring and other attributes: what ``typing.NamedTuple`` makes of it.

    Why not ``typing.NamedTuple``: importing ``typing`` is ~3 ms and 150 pages of a lint that needs
    nothing else of it (``bench/bench_import_cost.py typing``), and it makes a ``ForwardRef`` of each postponed (string) annotation and compiles
    it (~1 M instructions a field). Only the field names are read here. Type checkers see
    ``typing.NamedTuple`` (the modules import it under ``TYPE_CHECKING``), so the fields' types
    are checked as before."""

    def __new__(mcs, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> type:
        import collections

        fields = tuple(namespace.get("__annotations__", ()))
        defaults = [namespace[field] for field in fields if field in namespace]
        if fields[len(fields) - len(defaults) :] != tuple(field for field in fields if field in namespace):
            raise TypeError(f"{name}: a field without a default follows one with a default")
        make: Any = collections.namedtuple  # called with the class's fields, not with literals
        made: type = make(name, fields, defaults=defaults, module=namespace.get("__module__"))
        for key, value in namespace.items():
            if key not in fields and key not in ("__annotations__", "__module__", "__qualname__"):
                setattr(made, key, value)
        return made


# the base of a typed named tuple at run time (``class Mark(NamedTuple): line: int ...``)
NamedTuple = type.__new__(_NamedTupleType, "NamedTuple", (), {})
