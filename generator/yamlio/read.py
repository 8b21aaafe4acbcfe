"""The one YAML reader: plain data straight from libyaml's parser events, with the limits and
the position mapper of everything the project reads (cluster inputs, the config file, manifests).

kubectl and the API server read YAML with sigs.k8s.io/yaml, which decodes with go-yaml v2
(YAML 1.1 resolution) into JSON: ``yes``/``on``/``y`` are booleans, ``0777`` is octal, and
map keys become strings. ``resolve_plain`` and ``json_key`` follow go-yaml v2's
``resolve.go`` (resolveMapList, the ParseInt/ParseUint/ParseFloat chain) and
sigs.k8s.io/yaml's ``convertToJSONableObject``, so a ConfigMap with ``enabled: yes`` fails
its schema here as it does on the cluster (``GO_YAML``, lint's resolution). Cluster inputs and
the config file are read with YAML 1.2 resolution (``Resolution`` is the reader's parameter,
``generator.yamlio.positions`` defines theirs).

ruamel's safe loader spends most of its time in Python, so this reader has two paths over
libyaml, and keeps no parser event: positions come from a second read of the few documents a
position is asked of (``Positions``, the one path → line and column lookup).

- The compiled path (``generator.yamlio._cread``, built at install where libyaml's headers
  are found, see setup.py) builds the data in C, calling the resolution's Python functions
  only for plain scalars that may be something other than a string. It takes the documents
  that need no more than that and raises ``Slow`` for any other, having built nothing.
- The event path (``generator.yamlio.events``, which imports ruamel.yaml when the first
  document needs it) reads ruamel's C parser events (a Python object each, 4× slower) and
  takes every document the compiled path sends on; it raises what stops it.

Anchors, aliases, explicit tags, complex keys, duplicate keys and more than one document raise
``Fallback`` inside the reader; ``build`` returns them, and the texts the parser refuses, as a
``Handover`` to the full loader of what the caller needs (``yamlio.backend``), which uses
the same scalar resolution and words the errors. The test suite checks all three give the same data
(tests/yamlio/test_yamlread_paths.py, a differential test on the fuzzer's mutated manifests).
"""

from __future__ import annotations

import functools
import math

from generator import regex
from generator.record import Frozen
from generator.yamlio import backend
from generator.yamlio.backend import _cread
from generator.yamlio.terms import Fallback, Handover, Mark, Resolution, TooDeep, Written

TYPE_CHECKING = False  # typing's flag without importing typing (PEP 781; mypy reads it as True)
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any


class Limits(Frozen):
    """What the reader accepts for one purpose; past a bound, a located error, never a hang,
    a crash or gigabytes of memory. The values differ by what is read:

    - ``file_bytes``: a cluster input or the config file is a few kilobytes, so 1 MiB means the
      wrong file; manifests are whole rendered trees or chart output (64 MiB).
    - ``document_bytes``: kubeconform's per-document buffer (4 MiB) for manifests; an input is
      one document, bounded as its file is.
    - ``depth``: a cluster input nests ~6 deep, so 64 levels is generous, and ruamel's round-trip
      loader (inputs' fallback) recurses, seconds per thousand levels; manifests need more (CRD
      schemas nest a few dozen levels), 256 stays shallow enough for the rules and validators,
      which recurse over the data.
    - ``alias_nodes``: nodes aliases may add beyond those written out ("billion laughs"), the
      same for both: YAML reuses small blocks, if any (``generator.yamlio.aliases``).
    - ``nodes``: all nodes of an input once aliases are expanded (ruamel's round-trip data is
      copied into plain data, ``yamlpos.to_plain``); manifests have no such bound (None): each
      document is dropped once checked, and its size and aliases are bounded already.
    - ``values``: nodes as written (keys, items, scalars, collections). The example clusters
      hold 120 to 270; an input that needs ruamel's round-trip loader (a tag, a duplicate key,
      a syntax error to word) is scanned in Python at ~0.3 ms a node, so 3,000 keeps any input
      under a second where 50,000 keys in 780 KB took 30 s. Manifests: None (the reader builds
      them in C, and ruamel reads only the documents that need it, each bounded in bytes).
    """

    __slots__ = _fields = ("file_bytes", "document_bytes", "depth", "alias_nodes", "nodes", "values")

    file_bytes: int
    document_bytes: int
    depth: int
    alias_nodes: int
    nodes: int | None
    values: int | None

    def __init__(
        self,
        file_bytes: int,
        document_bytes: int,
        depth: int,
        alias_nodes: int,
        nodes: int | None,
        values: int | None = None,
    ):
        put = object.__setattr__
        put(self, "file_bytes", file_bytes)
        put(self, "document_bytes", document_bytes)
        put(self, "depth", depth)
        put(self, "alias_nodes", alias_nodes)
        put(self, "nodes", nodes)
        put(self, "values", values)


INPUTS = Limits(
    file_bytes=1024 * 1024, document_bytes=1024 * 1024, depth=64, alias_nodes=100_000, nodes=200_000, values=3_000
)
MANIFESTS = Limits(
    file_bytes=64 * 1024 * 1024, document_bytes=4 * 1024 * 1024, depth=256, alias_nodes=100_000, nodes=None
)


# go-yaml v2 resolve.go, resolveMapList
_MAP: dict[str, bool | float | None] = {
    **dict.fromkeys(("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True),
    **dict.fromkeys(("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False),
    **dict.fromkeys(("", "~", "null", "Null", "NULL"), None),
    **dict.fromkeys((".nan", ".NaN", ".NAN"), math.nan),
    **dict.fromkeys((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), math.inf),
    **dict.fromkeys(("-.inf", "-.Inf", "-.INF"), -math.inf),
}
# first characters go-yaml looks further at (its resolveTable hints); others are strings
_HINTED = frozenset("+-0123456789.yYnNtTfFoO~")
# Go's strconv.ParseInt/ParseUint with base 0 (underscores already removed)
_GO_INT = regex.compile(r"([-+]?)(?:0[xX]([0-9a-fA-F]+)|0[oO]([0-7]+)|0[bB]([01]+)|0([0-7]+)|([1-9][0-9]*|0))")
_GO_UINT = regex.compile(r"\+?(?:0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]+|[1-9][0-9]*|0)")
_YAML_FLOAT = regex.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")  # yamlStyleFloat
_GO_DOT_FLOAT = regex.compile(r"\.[0-9]+(?:[eE][-+]?[0-9]+)?")  # ParseFloat of ".5" forms
# every character of the forms above: a scalar with any other ("500m", "1Gi") is no number.
# With the decimal integers told by ``_go_int`` alone, the patterns compile only for a file that
# holds a number of another form: compiling _GO_INT and _YAML_FLOAT is 0.34 ms even warm
# (``python -m timeit -s "import re" "re.compile(A); re.compile(B); re.purge()"``), in a
# lint after an edit whose file has neither form
_NUMBER_CHARACTERS = frozenset("+-0123456789.eExXoObBaAcCdDfF")
_INT64 = (-(1 << 63), (1 << 63) - 1)
_UINT64_MAX = (1 << 64) - 1
MAX_NUMBER_DIGITS = 400  # past float64's range: go-yaml leaves such a number a string


def resolve_plain(value: str) -> str | int | float | bool | None:
    """The value go-yaml v2 gives a plain (unquoted, untagged) scalar."""
    if not value:
        return None
    if value[0] not in _HINTED:
        return value
    return _resolve_hinted(value)


@functools.lru_cache(maxsize=65536)
def _resolve_hinted(value: str) -> str | int | float | bool | None:
    if value in _MAP:
        return _MAP[value]
    first = value[0]
    if first == ".":
        return _finite(value) if _GO_DOT_FLOAT.fullmatch(value) else value
    if first not in "+-0123456789":
        return value
    # timestamps (2024-01-01) fall through to a string, as go-yaml v2 decodes them into interface{}
    plain = value.replace("_", "")
    if not _NUMBER_CHARACTERS.issuperset(plain):
        return value  # "500m", "1Gi", "3d": no number form has these characters
    number = _go_int(plain)
    if number is not None:
        return number
    if len(plain) <= MAX_NUMBER_DIGITS and _YAML_FLOAT.fullmatch(plain):
        result = _finite(plain)
        if isinstance(result, float):
            return result
    return value


def _go_int(plain: str) -> int | None:
    """ParseInt(plain, 0, 64), else ParseUint(plain, 0, 64), else None."""
    digits = plain[1:] if plain[:1] in ("+", "-") else plain
    if digits.isdigit() and digits.isascii() and len(digits) < 19 and (digits[0] != "0" or len(digits) == 1):
        return -int(digits) if plain[0] == "-" else int(digits)  # decimal, within int64: the usual case
    match = _GO_INT.fullmatch(plain) if len(plain) <= MAX_NUMBER_DIGITS else None
    if not match:
        return None
    sign, hexa, octal_o, binary, octal, decimal = match.groups()
    digits, base = next(
        (d, b) for d, b in ((hexa, 16), (octal_o, 8), (binary, 2), (octal, 8), (decimal, 10)) if d is not None
    )
    number = int(digits, base) * (-1 if sign == "-" else 1)
    if _INT64[0] <= number <= _INT64[1] or (0 <= number <= _UINT64_MAX and _GO_UINT.fullmatch(plain)):
        return number
    return None


def _finite(text: str) -> float | str:
    """ParseFloat(text, 64): a float, or ``text`` itself when out of range (Go's ErrRange)."""
    number = float(text)
    return text if math.isinf(number) else number


def out_of_range(text: str) -> str:
    """What a plain number go-yaml keeps as a string is ('' for anything else)."""
    digits = text.lstrip("+-")
    if digits.isdigit() and isinstance(resolve_plain(text), str):
        return f"a {len(digits)}-digit number, beyond 64-bit integers and floats: Kubernetes reads it as a string"
    return ""


def describe(text: str) -> str:
    """A scalar's text for a message: what it is, shortened when long."""
    shown = f"`{text[:20]}…`" if len(text) > 60 else f"`{text}`"
    if out_of_range(text):
        return f"{shown} ({out_of_range(text)})"
    if len(text) > 60:
        return f"{shown} ({len(text)} characters)"
    kind = {bool: "a boolean", int: "an integer", float: "a float", type(None): "null"}.get(
        type(resolve_plain(text)), "a string"
    )
    return f"{shown} ({kind})"


def json_key(key: object) -> str:
    """A decoded map key as sigs.k8s.io/yaml writes it into JSON; ValueError for null keys."""
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int):
        return str(key)
    if isinstance(key, float):
        return _go_float32_g(key)
    raise ValueError(f"a {'null' if key is None else type(key).__name__} map key has no JSON form")


def _go_float32_g(number: float) -> str:
    """strconv.FormatFloat(number, 'g', -1, 32), with go-yaml's names for infinities and NaN."""
    if math.isnan(number):
        return ".nan"
    if math.isinf(number):
        return ".inf" if number > 0 else "-.inf"
    import struct  # a float32 field: rare

    single = struct.unpack("f", struct.pack("f", number))[0]
    precision = next(
        p for p in range(1, 10) if struct.unpack("f", struct.pack("f", float(f"{single:.{p - 1}e}")))[0] == single
    )
    mantissa, exponent = f"{single:.{precision - 1}e}".split("e")
    exp = int(exponent)
    if exp < -4 or exp >= 6:
        return f"{mantissa}e{'+' if exp >= 0 else '-'}{abs(exp):02d}"
    return f"{single:.{max(precision - exp - 1, 0)}f}"


def _plain_key(text: str) -> str:
    """A plain map key as the JSON object key it becomes (a null key: the full loader words it)."""
    key = resolve_plain(text)
    if key.__class__ is str:
        return key
    try:
        return json_key(key)
    except ValueError:
        raise Fallback from None


# manifests, read as the API server reads them (go-yaml v2, YAML 1.1; keys as JSON keys)
GO_YAML = Resolution(_HINTED, resolve_plain, _plain_key)


def load(text: str, resolution: Resolution = GO_YAML, max_depth: int | None = None) -> Any:
    """The one document in ``text`` (None when empty); raises Fallback, the parser's YAMLError, or
    ``TooDeep`` for a collection more than ``max_depth`` collections deep.

    Only the data is built: each event is dropped as soon as it is read. Where things are
    written is found again, from the same text, when a position is asked for (``locate``)."""
    return _load(text, resolution, max_depth)[0]


def _load(text: str, resolution: Resolution, max_depth: int | None) -> tuple[Any, bool]:
    """``load``'s document, and whether the compiled reader read the text whole."""
    compiled = _compiled(resolution, max_depth)
    if compiled is not None:
        try:
            return compiled.load(text), True
        except _cread.Slow:
            pass  # the event path reads it again, and raises what stops it
    from generator.yamlio import events  # ruamel.yaml: imported by the first text that needs it

    return events.load(text, resolution, max_depth), False


def build(text: str, resolution: Resolution = GO_YAML, max_depth: int | None = None) -> Any:
    """``load``'s document, or a ``Handover`` where the backends leave it to the caller's full
    loader (``yamlio.backend`` names them); raises ``TooDeep`` past ``max_depth``."""
    return build_located(text, resolution, max_depth)[0]


def build_located(
    text: str, resolution: Resolution = GO_YAML, max_depth: int | None = None
) -> tuple[Any, Positions | None]:
    """``build``'s document and the position map to locate in it (None for a ``Handover``).
    A map of a text the compiled reader read whole may stop reading once its paths are found."""
    try:
        data, whole = _load(text, resolution, max_depth)
    except Fallback as exc:
        return Handover(str(exc) or "needs the full loader"), None
    except TooDeep:
        raise
    except Exception as exc:
        from ruamel.yaml.error import YAMLError  # only the event path raises it, having imported ruamel

        if isinstance(exc, YAMLError):
            return Handover(str(getattr(exc, "problem", None) or exc)), None
        raise
    return data, Positions(text, None if resolution is GO_YAML else resolution, whole=whole)


def load_data(text: str, resolution: Resolution = GO_YAML, max_depth: int | None = None) -> Any:
    """Plain data of one document, for what needs no more (the ``safe`` full loader): the backends',
    else ruamel's safe loader; raises ``TooDeep`` and the safe loader's ``YAMLError``."""
    built = build(text, resolution, max_depth)
    if not isinstance(built, Handover):
        return built
    from ruamel.yaml import YAML

    return YAML(typ="safe", pure=True).load(text)


@functools.cache
def _compiled(resolution: Resolution, max_depth: int | None) -> _cread.Reader | None:
    """The compiled reader of one resolution and depth bound (None when the event backend is
    the one in use, ``yamlio.backend``)."""
    if backend.compiled() is None:
        return None
    hinted = "".join(sorted(resolution.hinted))
    return _cread.Reader(hinted, resolution.scalar, resolution.key, -1 if max_depth is None else max_depth)


def locate(text: str, resolution: Resolution = GO_YAML) -> tuple[Any, Any]:
    """Where each part of a document ``load`` read is written: ``(root_event, where)``.

    ``where`` mirrors the data: a mapping's is ``{key: (key_event, value_event, value_where)}``,
    a sequence's ``[(item_event, item_where)]``, a scalar's None. The events carry the marks
    (line, column) and the scalar's style. Only called for text ``load`` took, so the checks
    that send a document to the full loader are not made again. The compiled path's nodes are
    ``Written`` (mark, text and style); the event path's are its events."""
    compiled = _compiled(resolution, None)
    if compiled is not None:
        try:
            return compiled.locate(text, _written)
        except _cread.Slow:
            pass
    from generator.yamlio import events

    return events.locate(text, resolution)


_tuple_new = tuple.__new__


def _written(line: int, column: int, value: str | None, style: str | None) -> Written:
    """``Written(Mark(line, column), value, style)``, built as the named tuples' own ``__new__``
    builds them, without calling it: the compiled path calls this once per node of a document."""
    return _tuple_new(Written, (_tuple_new(Mark, (line, column)), value, style))


def plain_text(node: object) -> str | None:
    """The text of a scalar written unquoted, from any node a position map holds; None for
    anything else (a quoted or block scalar, a collection, no node)."""
    if node is None:
        return None
    if not isinstance(node, Written):
        from ruamel.yaml.events import ScalarEvent  # the event path's node: ruamel is loaded already

        if not isinstance(node, ScalarEvent):
            return None
    return node.value if node.style == "" else None


class Positions:
    """The position map of one document, and the one lookup of a path in it (``find``).

    Inputs and lint both locate through it. Built from text ``load`` read, the map is
    ``locate``'s, made when first asked for: most documents have nothing to report, and keeping
    every event of every document costs more than reading again the few that need it
    (``resolution`` None: the manifests' resolution, ``locate``'s default). ``of`` takes a map
    built otherwise (the same shape: ``(root, where)``, nodes with a ``start_mark``).
    Pickled without the events (documents go to and from worker processes): a copy reads again.
    ``whole``: the compiled reader loaded ``text`` (``build_located``), so a lookup may stop
    reading once its answers are settled: what follows can neither change them nor be refused.
    """

    __slots__ = ("_text", "_resolution", "_located", "_whole")

    def __init__(self, text: str, resolution: Resolution | None = None, whole: bool = False):
        self._text: str | None = text
        self._resolution = resolution
        self._located: tuple | None = None
        self._whole = whole

    @classmethod
    def of(cls, located: tuple) -> Positions:
        positions = cls("")
        positions._text, positions._located = None, located
        return positions

    def _map(self) -> tuple:
        if self._located is None:
            text = self._text or ""
            self._located = locate(text) if self._resolution is None else locate(text, self._resolution)
        return self._located

    def __getstate__(self) -> tuple:
        return self._text, self._resolution, self._located if self._text is None else None, self._whole

    def __setstate__(self, state: tuple) -> None:
        self._text, self._resolution, self._located, self._whole = state

    def find(self, path: tuple | list, at_value: bool = False) -> tuple[Any, Any]:
        """``(node, mark)``: what is written at ``path`` (None when the path does not exist) and
        the 0-based start mark of the deepest part of ``path`` that exists: a key's, an item's,
        or, with ``at_value``, the value's of a last part that is a key (None when not even the
        first part exists; the root has no mark of its own)."""
        return self.find_all([(path, at_value)])[0]

    def find_all(self, queries: Sequence[tuple[tuple | list, bool]]) -> list[tuple[Any, Any]]:
        """``find`` of each ``(path, at_value)``, in one read of the text.

        Until the map is built, the compiled reader answers by reading the text again and
        keeping only the nodes on the paths: a document is mostly located for one to a few
        findings, and the whole map costs several times that read."""
        if self._located is None and self._text is not None:
            compiled = _compiled(GO_YAML if self._resolution is None else self._resolution, None)
            if compiled is not None:
                try:
                    found = compiled.find(self._text, queries, _written, self._whole)
                except _cread.Slow:
                    pass
                else:
                    return [
                        (node, None if line < 0 else _tuple_new(Mark, (line, column))) for node, line, column in found
                    ]
        return [self._find_in_map(path, at_value) for path, at_value in queries]

    def _find_in_map(self, path: tuple | list, at_value: bool) -> tuple[Any, Any]:
        node, inner = self._map()
        mark = None
        last = len(path) - 1
        for i, part in enumerate(path):
            if isinstance(inner, dict) and part in inner:
                key_node, node, inner = inner[part]
                mark = node.start_mark if (i == last and at_value) else key_node.start_mark
            elif isinstance(inner, list) and isinstance(part, int) and 0 <= part < len(inner):
                node, inner = inner[part]
                mark = node.start_mark
            else:
                return None, mark
        return node, mark

    def table(self) -> dict[tuple, tuple[Mark, Mark]]:
        """Every path of the document and the marks of its key (its item, in a sequence) and value."""
        table: dict[tuple, tuple[Mark, Mark]] = {}
        stack: list[tuple[tuple, Any]] = [((), self._map()[1])]
        while stack:
            path, where = stack.pop()
            if isinstance(where, dict):
                for key, (key_node, value_node, inner) in where.items():
                    table[(*path, key)] = (_mark(key_node), _mark(value_node))
                    stack.append(((*path, key), inner))
            elif isinstance(where, list):
                for index, (item_node, inner) in enumerate(where):
                    table[(*path, index)] = (_mark(item_node),) * 2
                    stack.append(((*path, index), inner))
        return table


def _mark(node: Any) -> Mark:
    return Mark(node.start_mark.line, node.start_mark.column)
