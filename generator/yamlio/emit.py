"""Canonical YAML: the one function that turns an object into the bytes we commit.

Keys follow the Kubernetes convention (apiVersion, kind, metadata, spec, data, then the rest
in sorted order; inside metadata: name, namespace, labels, annotations, then the rest);
nested keys are sorted; multi-line strings are literal blocks; LF and one trailing newline.
The same object always gives the same bytes.

Those bytes are defined by ruamel.yaml's safe dumper (libyaml's emitter) with the settings in
``_make_yaml``. A Python emitter writes the same bytes ~10x faster for the JSON data Kubernetes
objects are made of; any scalar whose libyaml rendering it does not model exactly
(non-printable or line-break characters other than a tab or a line feed, long lines that
libyaml would fold, block scalars that need an indentation or keep indicator, single quotes
over several lines, complex keys) sends that one object through ruamel instead.
tests/yamlio/test_emit.py holds the two to byte identity.
"""

from __future__ import annotations

import functools
import hashlib
import io
import marshal
import re
from typing import TYPE_CHECKING, Any

from generator import regex

if TYPE_CHECKING:
    from ruamel.yaml import YAML
    from ruamel.yaml.nodes import ScalarNode
    from ruamel.yaml.representer import SafeRepresenter

_TOP = ("apiVersion", "kind", "metadata", "spec", "data", "stringData")
_METADATA = ("name", "generateName", "namespace", "labels", "annotations")


def _ordered(value: Any, first: tuple[str, ...] = ()) -> Any:
    if isinstance(value, dict):
        keys = [k for k in first if k in value] + sorted(k for k in value if k not in first)
        return {k: _ordered(value[k], _METADATA if (first is _TOP and k == "metadata") else ()) for k in keys}
    if isinstance(value, list):
        return [_ordered(v) for v in value]
    return value


# Strings a YAML 1.1 reader (kubectl, PyYAML, Flux, Argo CD) would read as something else:
# booleans such as on/off/yes/no, nulls, octal/hex/sexagesimal numbers, timestamps.
_YAML11_NOT_STRING = regex.compile(
    r"""^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF
    |~|null|Null|NULL|
    |[-+]?(?:0b[01_]+|0x[0-9a-fA-F_]+|0o?[0-7_]+|[0-9][0-9_]*(?::[0-5]?[0-9])*|(?:[0-9][0-9_]*)?\.[0-9_]*(?:[eE][-+]?[0-9]+)?|[0-9][0-9_]*[eE][-+]?[0-9]+)
    |[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)
    |[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}.*)$""",
    re.VERBOSE,
)


def _represent_str(representer: SafeRepresenter, data: str) -> ScalarNode:
    if _YAML11_NOT_STRING.match(data):
        return representer.represent_scalar("tag:yaml.org,2002:str", data, style="'")
    if "\n" in data:
        # literal blocks cannot carry trailing spaces on a line or tabs reliably; keep them quoted
        if not any(line != line.rstrip() for line in data.split("\n")) and "\t" not in data:
            return representer.represent_scalar("tag:yaml.org,2002:str", data, style="|")
    return representer.represent_str(data)


def _make_yaml() -> YAML:
    from ruamel.yaml import YAML

    yaml = YAML(typ="safe", pure=False)
    yaml.default_flow_style = False
    yaml.width = 4096
    yaml.allow_unicode = True
    yaml.indent(mapping=2, sequence=2, offset=0)
    yaml.representer.add_representer(str, _represent_str)
    yaml.representer.sort_base_mapping_type_on_output = False
    return yaml


@functools.cache
def _ruamel() -> YAML:
    """The reference dumper, built on first use (importing ruamel costs startup time)."""
    return _make_yaml()


def _ruamel_dump(data: Any) -> str:
    stream = io.StringIO()
    _ruamel().dump(data, stream)
    return stream.getvalue()


# --- the fast emitter ---------------------------------------------------------------------------

WIDTH = 4096  # yaml.width: libyaml folds quoted scalars past it, so longer lines are not modelled


class _Unmodelled(Exception):
    """A value whose bytes the fast emitter does not reproduce; dump the object with ruamel."""


# characters libyaml writes as they are (printable, allow_unicode) and that are neither line
# breaks (\x85, \u2028, \u2029) nor a byte-order mark
_PRINTABLE = regex.compile(r"^[\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd]*$")
_INDICATOR_FIRST = set("#,[]{}&*!|>'\"%@`")


def _plain_allowed(text: str) -> bool:
    """libyaml's ``block_plain_allowed`` (yaml_emitter_analyze_scalar) for one line of printable text."""
    if not text or text[0] == " " or text[-1] == " " or text.startswith(("---", "...")):
        return False
    first = text[0]
    if first in _INDICATOR_FIRST or (first in "-?:" and (len(text) == 1 or text[1] == " ")):
        return False
    return not (": " in text or " #" in text or text.endswith(":"))


# The strings of a fleet's objects repeat (keys, images, labels) but for the few that name a
# cluster: the recently used 8,192 keep the shared ones, and a fleet's render holds the same
# memory whatever its size (65,536 of them grew the render by ~13 MB over 4,000 clusters).
@functools.lru_cache(maxsize=8192)
def _string_style(text: str) -> str:
    """``plain``, ``single``, ``double`` or ``literal``: the style libyaml picks for this string
    as the representer above requests it; raises ``_Unmodelled`` for the rest."""
    if not _PRINTABLE.match(text.replace("\n", "").replace("\t", "")):
        raise _Unmodelled(text)
    # libyaml allows neither single quotes nor a block for a tab (not printable to it) or a space
    # before a line break (yaml_emitter_analyze_scalar: special_characters, space_break), nor
    # single quotes for a space after one (break_space): double quotes, whatever was asked for,
    # where the representer does not ask for a literal block (no tab, no line ending in a space)
    if "\t" in text or " \n" in text:
        return "double"
    if "\n" not in text:
        if _YAML11_NOT_STRING.match(text) or _resolves_to_other_than_str(text) or not _plain_allowed(text):
            return "single"
        return "plain"
    literal = (
        not _YAML11_NOT_STRING.match(text)
        and "\t" not in text
        and not any(line != line.rstrip() for line in text.split("\n"))
    )
    if not literal and "\n " in text:
        return "double"
    # an indentation indicator (leading space or break) or the keep indicator "+"
    # (ends in two breaks) is not modelled, nor single quotes over several lines
    if not literal or text[0] in " \n" or text.endswith("\n\n") or text == "\n":
        raise _Unmodelled(text)
    return "literal"


# yaml_emitter_write_double_quoted's escapes of the characters _string_style lets through
_DOUBLE_ESCAPES = str.maketrans({"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t"})


@functools.cache
def _implicit_resolvers() -> dict:
    """The dumper's table of implicit scalar types by first character (YAML 1.2), read once:
    going through ``resolver.resolve`` costs ~20 us a call."""
    return _ruamel().resolver.versioned_resolver


def _resolves_to_other_than_str(text: str) -> bool:
    """Whether a plain ``text`` would read back as another type (``VersionedResolver.resolve``)."""
    table = _implicit_resolvers()
    candidates = table.get(text[0] if text else "", []) + table.get(None, [])
    return any(regexp.match(text) for _tag, regexp in candidates)


def _scalar(value: Any, column: int, indent: int) -> str:
    """A scalar written at ``column``; block scalar lines are indented by ``indent``."""
    if isinstance(value, str):
        style = _string_style(value)
        if style == "literal":
            pad = " " * indent
            body = value[:-1] if value.endswith("\n") else value
            lines = "".join(f"{pad}{line}\n" if line else "\n" for line in body.split("\n"))
            return ("|\n" if value.endswith("\n") else "|-\n") + lines
        if style == "double":
            value = value.translate(_DOUBLE_ESCAPES)
        if column + len(value) + 2 >= WIDTH:  # libyaml would fold the line at a space
            raise _Unmodelled(value)
        if style == "double":
            return f'"{value}"\n'
        return (f"'{value.replace(chr(39), chr(39) * 2)}'" if style == "single" else value) + "\n"
    if value is None:
        return "null\n"
    if value is True or value is False:
        return "true\n" if value else "false\n"
    if isinstance(value, int):
        return f"{value}\n"
    if isinstance(value, float) and value - value == 0:  # finite
        return f"{repr(value).lower()}\n"
    raise _Unmodelled(value)


@functools.lru_cache(maxsize=65536)
def _key(key: Any) -> str:
    if not isinstance(key, str) or len(key) > 100 or "\n" in key:  # libyaml's simple keys: <= 128 chars
        raise _Unmodelled(key)
    style = _string_style(key)
    if style == "double":  # a simple key: libyaml's rules differ there
        raise _Unmodelled(key)
    return f"'{key.replace(chr(39), chr(39) * 2)}'" if style == "single" else key


def _keys(data: dict, ordered: bool, first: tuple[str, ...]) -> Any:
    """The keys in the order they are written: as given, or ``first`` and then sorted (``_ordered``)."""
    if not ordered:
        return data
    if not first:
        return sorted(data)
    return [k for k in first if k in data] + sorted(k for k in data if k not in first)


def _mapping(data: dict, indent: int, out: list[str], ordered: bool, first: tuple = (), inline: bool = False) -> None:
    """Block mapping at ``indent``; ``inline``: its first key continues the current line.

    ``ordered`` writes the keys in ``_ordered``'s order without building the ordered copy."""
    pad = " " * indent
    for i, key in enumerate(_keys(data, ordered, first)):
        value = data[key]
        head = ("" if inline and i == 0 else pad) + _key(key) + ":"
        if isinstance(value, dict):
            if value:
                out.append(head + "\n")
                nested = _METADATA if (first is _TOP and key == "metadata") else ()
                _mapping(value, indent + 2, out, ordered, nested)
            else:
                out.append(head + " {}\n")
        elif isinstance(value, list):
            if value:
                out.append(head + "\n")
                _sequence(value, indent, out, ordered)  # libyaml indents no sequence inside a mapping
            else:
                out.append(head + " []\n")
        else:
            out.append(f"{head} {_scalar(value, indent + len(head) + 1, indent + 2)}")


def _sequence(items: list, indent: int, out: list[str], ordered: bool, inline: bool = False) -> None:
    pad = " " * indent
    for i, item in enumerate(items):
        out.append("- " if inline and i == 0 else pad + "- ")
        if isinstance(item, dict):
            if item:
                _mapping(item, indent + 2, out, ordered, inline=True)
            else:
                out.append("{}\n")
        elif isinstance(item, list):
            if item:
                _sequence(item, indent + 2, out, ordered, inline=True)
            else:
                out.append("[]\n")
        else:
            out.append(_scalar(item, indent + 2, indent + 2))


def _fast(data: Any, ordered: bool = False, first: tuple[str, ...] = ()) -> str:
    out: list[str] = []
    if isinstance(data, dict) and data:
        _mapping(data, 0, out, ordered, first)
    elif isinstance(data, list) and data:
        _sequence(data, 0, out, ordered)
    elif isinstance(data, dict | list):
        out.append("{}\n" if isinstance(data, dict) else "[]\n")
    else:
        raise _Unmodelled(data)  # a top-level scalar ends with a document end marker
    return "".join(out)


def _dump(data: Any, ordered: bool, first: tuple[str, ...] = ()) -> str:
    """The fast emitter's text, or ruamel's for data it does not model (of the ordered copy)."""
    try:
        return _fast(data, ordered, first)
    except _Unmodelled:
        return _ruamel_dump(_ordered(data, first) if ordered else data)


def to_yaml(obj: dict) -> str:
    """One Kubernetes object as canonical YAML text."""
    return _dump(obj, True, _TOP)


# The YAML of objects one process emits alike many times (a fleet's platform objects in every
# cluster, a chart's CRDs in every inflation of it), made once: by the digest of the object's
# marshalled bytes, which read back as the same object, types included (True is not 1, 1.0 is
# not 1), so the same digest is the same text. Marshalling costs a twentieth of emitting.
# Bounded: emptied when full (~10 MB of text at most).
_ONCE: dict[bytes, str] = {}
_ONCE_MAX = 4096


def to_yaml_once(obj: dict) -> str:
    """``to_yaml(obj)``, remembered for the next object of the same content (``_ONCE``)."""
    try:
        key = hashlib.blake2b(marshal.dumps(obj), digest_size=16).digest()
    except ValueError:  # a type marshal does not write, or nesting too deep for it
        return to_yaml(obj)
    text = _ONCE.get(key)
    if text is None:
        if len(_ONCE) >= _ONCE_MAX:
            _ONCE.clear()
        text = _ONCE[key] = to_yaml(obj)
    return text


def to_yaml_plain(data: Any) -> str:
    """Any data (e.g. a kustomization) in the same style, keys in the given order."""
    return _dump(data, False)
