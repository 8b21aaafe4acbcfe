"""ruamel's YAML error texts reworded for users, and the hints that go with them.

ruamel says ``found duplicate key "x" with value "1" (original value: "2")``; users need
the key. The cluster-input loader and the lint loader word errors and hints the same way:
bytes that are not UTF-8 and characters YAML refuses are named here for both.
"""

from __future__ import annotations

DUPLICATE_KEY_HINT = "each key may appear once in a mapping; remove or merge the repeated one"
SYNTAX_HINT = "check indentation and quoting around this line"
TAB_HINT = "this line has a tab: YAML indents with spaces only; replace the tab with spaces"
BAD_CHARACTER_HINT = 'remove the character, or write it as an escape inside a double-quoted string ("\\x01")'
TAG_HINT = "remove the !!tag, or fix the value it applies to"
NOT_UTF8_HINT = "save the file as UTF-8"
TOO_DEEP_HINT = "flatten the document: objects nest a few levels"
ALIAS_HINT = "use fewer or shallower YAML anchors and aliases"
KEY_HINT = "keys are strings: quote the key, or write the value as a plain mapping"


def too_large(what: str, limit: int, size: int | None = None) -> str:
    """A file or document past its size limit (its size when known: a stream is not read to its end)."""
    return f"{what} is {f'{size} bytes, ' if size is not None else ''}larger than the {limit} byte limit"


def too_deep(levels: int) -> str:
    return f"YAML nesting is deeper than {levels} levels"


def not_utf8(exc: UnicodeDecodeError) -> tuple[str, int, int]:
    """The message for bytes that do not decode, and the 0-based line and column (in characters)
    of the first bad byte."""
    data = exc.object
    line = data.count(b"\n", 0, exc.start)
    col = len(data[data.rfind(b"\n", 0, exc.start) + 1 : exc.start].decode("utf-8", "replace"))
    return f"file is not UTF-8 text: byte 0x{data[exc.start]:02X} at offset {exc.start} ({exc.reason})", line, col


def duplicate_key(problem: str) -> str:
    """``duplicate key 'x'`` from ruamel's DuplicateKeyError problem text (as is when unparsable)."""
    parts = problem.split('"')
    return f"duplicate key {parts[1]!r}" if len(parts) > 2 else problem


def syntax_hint(problem: str, line_text: str) -> str:
    """The hint for a syntax error: tabs are named, as they are invisible in most editors."""
    if "\t" in line_text or "tab" in problem or "'\\t'" in problem:
        return TAB_HINT
    return SYNTAX_HINT


def bad_character(character: str | int) -> str:
    """A character YAML refuses, named so it can be found (``control character U+0001``);
    the C reader gives its code, the Python one the character."""
    if isinstance(character, int):
        character = chr(character)
    if not isinstance(character, str) or len(character) != 1:
        return "a character"
    import unicodedata  # its tables load with it: only a file with a refused character needs them

    code = ord(character)
    name = unicodedata.name(character, "")
    kind = "control character" if unicodedata.category(character) == "Cc" else "character"
    return f"{kind} U+{code:04X}" + (f" ({name})" if name else "")
