"""Read YAML with line and column numbers kept, for error messages that point at the input.

ruamel.yaml's round-trip loader records where every key and item came from; ``Located``
keeps that document next to its plain-data copy so a JSON path can be turned back into
``file:line:col``. Duplicate keys are refused, as the API server's strict decoding does.
"""

from __future__ import annotations

import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.constructor import DuplicateKeyError
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from generator.errors import InputError
from generator.yamlmessages import duplicate_key, syntax_hint

MAX_INPUT_BYTES = 1024 * 1024


@dataclass
class Located:
    """A parsed YAML document: plain data plus the positions of every node."""

    path: str
    data: Any
    node: Any

    def position(self, json_path: tuple | list) -> tuple[int, int]:
        """1-based line and column of the deepest node on ``json_path`` that exists."""
        node, line, col = self.node, 1, 1
        for part in json_path:
            if isinstance(node, CommentedMap) and part in node:
                line, col = node.lc.key(part)
                line, col = line + 1, col + 1
                node = node[part]
            elif isinstance(node, CommentedSeq) and isinstance(part, int) and 0 <= part < len(node):
                line, col = node.lc.item(part)
                line, col = line + 1, col + 1
                node = node[part]
            else:
                break
        return line, col

    def value_position(self, json_path: tuple | list) -> tuple[int, int]:
        """Position of the value at ``json_path`` (not its key), falling back to the key."""
        *parent_path, last = json_path or [None]
        parent = self.node
        for part in parent_path:
            try:
                parent = parent[part]
            except (KeyError, IndexError, TypeError):
                return self.position(json_path)
        if isinstance(parent, CommentedMap) and last in parent:
            line, col = parent.lc.value(last)
            return line + 1, col + 1
        return self.position(json_path)

    def error(self, message: str, json_path=(), hint: str = "", *, at_value: bool = False) -> InputError:
        line, col = self.value_position(json_path) if at_value else self.position(json_path)
        return InputError(message, path=self.path, line=line, col=col, hint=hint)


MAX_NODES = 200_000


def to_plain(node: Any) -> Any:
    """Round-trip containers → dicts and lists; scalars → str/int/float/bool/None.

    Aliases are expanded here, so the node count is capped: a few kilobytes of nested
    aliases ("billion laughs") would otherwise expand into gigabytes.
    """
    budget = [MAX_NODES]

    def plain(value: Any) -> Any:
        budget[0] -= 1
        if budget[0] < 0:
            raise ValueError("too many nodes")
        if isinstance(value, dict):
            return {str(k): plain(v) for k, v in value.items()}
        if isinstance(value, list):
            return [plain(v) for v in value]
        if isinstance(value, bool) or value is None:
            return value
        if isinstance(value, int):
            return int(value)
        if isinstance(value, float):
            return float(value)
        # strings, and timestamps or other YAML-only types no input contract uses
        return str(value)

    return plain(node)


def load_file(path: Path, display: str | None = None) -> Located:
    """Parse one single-document YAML file; every failure is an ``InputError`` at its line."""
    shown = display or str(path)
    try:
        info = path.stat()
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror}", path=shown) from None
    if not stat.S_ISREG(info.st_mode):
        raise InputError("not a regular file", path=shown, hint="give the path of a YAML file")
    size = info.st_size
    if size > MAX_INPUT_BYTES:
        raise InputError(
            f"file is {size} bytes, larger than the {MAX_INPUT_BYTES} byte limit for inputs",
            path=shown,
            hint="a cluster input is a few kilobytes; check that this is the right file",
        )
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"file is not UTF-8 text ({exc.reason})", path=shown) from None
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror or exc}", path=shown) from None
    return load_text(text, shown)


def load_text(text: str, display: str) -> Located:
    yaml = YAML(typ="rt")
    yaml.allow_duplicate_keys = False
    try:
        node = yaml.load(text)
    except DuplicateKeyError as exc:
        mark = exc.problem_mark
        raise InputError(
            duplicate_key(exc.problem),
            path=display,
            line=mark.line + 1,
            col=mark.column + 1,
            hint="each key may appear once in a mapping; remove or merge the repeated one",
        ) from None
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise InputError(
            f"YAML syntax error: {exc.problem or exc.context}",
            path=display,
            line=(mark.line + 1) if mark else 0,
            col=(mark.column + 1) if mark else 0,
            hint=syntax_hint(str(exc.problem or exc.context),
                             "\n".join(text.split("\n")[mark.line:mark.line + 1]) if mark else ""),
        ) from None
    except YAMLError as exc:
        raise InputError(f"YAML error: {exc}".splitlines()[0], path=display) from None
    except (ValueError, TypeError) as exc:
        # an explicit tag whose value does not fit it (`!!float abc`); ruamel gives no position
        raise InputError(f"YAML value does not match its tag: {exc}", path=display,
                         hint="remove the !!tag, or fix the value it applies to") from None
    except RecursionError:
        raise InputError("YAML nesting is too deep", path=display, hint="flatten the document") from None
    try:
        data = to_plain(node)
    except (ValueError, RecursionError):
        raise InputError(f"the document expands to more than {MAX_NODES} nodes (nested aliases?)", path=display,
                         hint="use fewer or shallower YAML anchors and aliases") from None
    return Located(display, data, node)
