"""The data lint passes around: documents, resources and hits (a rule's report, which the
engine locates into a ``generator.diagnostic.Diagnostic``).

A ``Document`` is one YAML document of one file. The fast parse keeps, beside the data, the
reader's position map (``where``, ``yamlread.Positions``: the document is read again for it
when a finding first needs a position). Documents the full loader had to read (anchors,
tags, what the bundled libyaml refuses) are composed by ruamel instead, and only then.
"""

from __future__ import annotations

from generator.diagnostic import ObjectRef
from generator.record import Frozen, Record
from generator.yamlio import lines as yamllines
from generator.yamlio.read import Positions, plain_text

TYPE_CHECKING = False  # typing's flag without importing typing (PEP 781; mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any, Literal

    from ruamel.yaml.nodes import Node


class Hit(Frozen):
    """What a rule reports: a message and the JSON path (inside the object) it is about.

    ``severity``: lower than the rule's when the rule lacks context (a config override wins);
    ``checkov``: the checkov check that flags the same thing (its skip annotation suppresses
    the hit); ``at``: a document's hit the reader located, 1-based file line and column."""

    __slots__ = _fields = ("message", "path", "at_value", "hint", "severity", "checkov", "at")

    message: str
    path: tuple
    at_value: bool
    hint: str
    severity: str
    checkov: str
    at: tuple[int, int] | None

    def __init__(
        self,
        message: str,
        path: tuple = (),
        at_value: bool = False,
        hint: str = "",
        severity: str = "",
        checkov: str = "",
        at: tuple[int, int] | None = None,
    ):
        put = object.__setattr__
        put(self, "message", message)
        put(self, "path", path)
        put(self, "at_value", at_value)
        put(self, "hint", hint)
        put(self, "severity", severity)
        put(self, "checkov", checkov)
        put(self, "at", at)


class Document(Record):
    """One YAML document of a file; ``first_line`` is its 0-based offset in the file.

    ``notes``: what the reader reports but read past (repeated keys); ``where``: the reader's
    position map, when the reader read the document."""

    _fields = (
        "file",
        "text",
        "first_line",
        "data",
        "error",
        "error_line",
        "error_col",
        "notes",
        "where",
        "_positions",
    )
    _unshown = ("where", "_positions")

    def __init__(
        self,
        file: str,
        text: str,
        first_line: int,
        data: Any = None,
        error: Hit | None = None,
        error_line: int = 0,
        error_col: int = 0,
        notes: list[Hit] | None = None,
        where: Positions | None = None,
        _positions: Any = None,
    ):
        self.file = file
        self.text = text
        self.first_line = first_line
        self.data = data
        self.error = error
        self.error_line = error_line
        self.error_col = error_col
        self.notes = [] if notes is None else notes
        self.where = where
        self._positions = _positions

    def _tree(self) -> Node | Literal[False] | None:
        if self._positions is None:
            from ruamel.yaml import YAML  # only for documents the full loader read
            from ruamel.yaml.error import YAMLError

            self._positions = False
            for pure in (False, True):  # the Python parser reads what old libyaml refuses ({url: http://a:1})
                try:
                    self._positions = YAML(typ="safe", pure=pure).compose(self.text)
                    break
                except (YAMLError, RecursionError):
                    continue
        return self._positions

    def position(self, path: tuple, at_value: bool = False) -> tuple[int, int]:
        """1-based file line and column of the deepest node of ``path`` that exists; the empty
        path is the document's first line of content, found without reading it again."""
        return self.positions([(path, at_value)])[0]

    def positions(self, queries: list[tuple[tuple, bool]]) -> list[tuple[int, int]]:
        """``position`` of each ``(path, at_value)``: the reader reads the document once for all
        of them (an object with several findings is located in one read)."""
        marks = None
        if self.where is not None and any(path for path, _ in queries):
            marks = iter([mark for _node, mark in self.where.find_all([q for q in queries if q[0]])])
        out = []
        for path, at_value in queries:
            if not path:
                line, col = first_content_line(self.text), 0
            elif marks is not None:
                mark = next(marks)
                line, col = (mark.line, mark.column) if mark else (first_content_line(self.text), 0)
            else:
                _node, line, col = self._walk(path, at_value)
            out.append((self.first_line + line + 1, col + 1))
        return out

    def plain_scalar(self, path: tuple) -> str | None:
        """The text of the unquoted scalar at ``path``, if that is what is written there."""
        node, _line, _col = self._walk(path, True)
        if self.where is None:  # ruamel's node, or None
            from ruamel.yaml.nodes import ScalarNode

            if isinstance(node, ScalarNode):
                return None if node.style else node.value
        return plain_text(node)

    def _walk(self, path: tuple, at_value: bool) -> tuple[Any, int, int]:
        """The node at ``path`` (the position map's, or ruamel's; None when it does not exist) and the
        0-based line and column of the deepest part of it that does."""
        if self.where is not None:
            event, mark = self.where.find(path, at_value)
            return (event, mark.line, mark.column) if mark else (event, first_content_line(self.text), 0)
        node = self._tree()
        line, col = first_content_line(self.text), 0
        if not node:
            return None, line, 0
        from ruamel.yaml.nodes import MappingNode, SequenceNode  # loaded already: ruamel composed the node

        for i, part in enumerate(path):
            last = i == len(path) - 1
            if isinstance(node, MappingNode):
                pair = next((kv for kv in reversed(node.value) if kv[0].value == part), None)
                if pair is None:
                    return None, line, col
                mark = pair[1].start_mark if (last and at_value) else pair[0].start_mark
                node = pair[1]
            elif isinstance(node, SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
                node = node.value[part]
                mark = node.start_mark
            else:
                return None, line, col
            line, col = mark.line, mark.column
        return node, line, col


def first_content_line(text: str) -> int:
    """The first line that is not blank, a comment or a ``---`` marker (where the object starts),
    found without splitting the rest of the document into lines."""
    start, line = 0, 0
    while True:
        found = yamllines.BREAK.search(text, start)
        stripped = text[start : found.start() if found else len(text)].strip()
        if stripped and not stripped.startswith("#") and stripped != "---":
            return line
        if found is None:
            return 0
        start, line = found.end(), line + 1


class Resource(Record):
    """One Kubernetes object: a document, or one item of a ``kind: List`` (``base`` = its path)."""

    _fields = ("obj", "document", "base")

    def __init__(self, obj: dict, document: Document, base: tuple = ()):
        self.obj = obj
        self.document = document
        self.base = base
        # read by many rules per object, which never change the object: ``kind`` is taken
        # here, ``ref`` when first asked for (``functools.cached_property`` takes a lock on
        # each first read, a cost per object of its own)
        self.kind = _text(obj.get("kind"))
        self._ref: ObjectRef | None = None

    @property
    def ref(self) -> ObjectRef:
        ref = self._ref
        if ref is None:
            meta = self.obj.get("metadata")
            meta = meta if isinstance(meta, dict) else {}
            name = _text(meta.get("name"))
            ref = self._ref = ObjectRef(
                _text(self.obj.get("apiVersion")),
                self.kind,
                _text(meta.get("namespace")),
                name,
                "" if name else _text(meta.get("generateName")),
            )
        return ref

    @property
    def namespace(self) -> str:
        meta = self.obj.get("metadata")
        return _text(meta.get("namespace")) if isinstance(meta, dict) else ""

    @property
    def name(self) -> str:
        meta = self.obj.get("metadata")
        return _text(meta.get("name")) if isinstance(meta, dict) else ""

    @property
    def annotations(self) -> dict:
        meta = self.obj.get("metadata")
        ann = meta.get("annotations") if isinstance(meta, dict) else None
        return ann if isinstance(ann, dict) else {}

    def position(self, hit: Hit) -> tuple[int, int]:
        return self.positions([hit])[0]

    def positions(self, hits: list[Hit]) -> list[tuple[int, int]]:
        """Where each hit is, in one read of the document."""
        base = self.base
        return self.document.positions([(base + tuple(hit.path), hit.at_value) for hit in hits])


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""
