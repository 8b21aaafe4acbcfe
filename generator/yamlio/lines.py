"""Lines as YAML counts them: every line, column and document boundary the project reports in
a YAML text is found here, so a file saved with CRLF or CR-only line endings reads as it does
with LF ones.

libyaml, which go-yaml ports (``yaml_private.go`` ``is_break``, ``scannerc.go`` ``skip_line``),
breaks lines at LF, at CR and at CR LF (one break). Its marks count lines that way; a count of
``\\n`` alone puts every mark of a CR-only file on line 1, and a ``---`` after a CR is not seen
as a document boundary. NEL, LS and PS are breaks to libyaml as well, but ruamel's scanner reads
them otherwise (yamlio.read sends such texts to the event path); they are left out here, as
the splitter and the event path agree on them as text.
"""

from __future__ import annotations

from collections.abc import Iterator

from generator import regex

BREAK = regex.compile(r"\r\n|[\r\n]")

# a line that starts with `---` followed by nothing, or by a space or tab and anything
_SEPARATOR = regex.compile(r"(?:(?<=[\r\n])|\A)---(?:[ \t][^\r\n]*)?(?=[\r\n]|\Z)")


def count(text: str, start: int = 0, end: int | None = None) -> int:
    """The number of line breaks in ``text[start:end]``."""
    end = len(text) if end is None else end
    if text.find("\r", start, end) < 0:
        return text.count("\n", start, end)  # LF alone: no list of every break
    return len(BREAK.findall(text, start, end))


def line_col(text: str, offset: int) -> tuple[int, int]:
    """The 1-based line and column (in characters) of ``text[offset]``."""
    breaks = list(BREAK.finditer(text, 0, offset))
    return len(breaks) + 1, offset - (breaks[-1].end() if breaks else 0) + 1


def split(text: str) -> list[str]:
    """The lines of ``text``, without their breaks (a last empty one after a final break)."""
    return BREAK.split(text)


def line(text: str, number: int) -> str:
    """Line ``number`` (0-based) of ``text``; empty past the end."""
    lines = split(text)
    return lines[number] if 0 <= number < len(lines) else ""


def split_documents(text: str) -> Iterator[tuple[int, str]]:
    """``(first_line, text)`` per document, split on lines that start with ``---`` (0-based
    first line; each text without the break before the next separator). The text is never split
    into lines as a whole."""
    lf_only = "\r" not in text
    start, first = 0, 0
    for at in _separators_lf(text) if lf_only else (match.start() for match in _SEPARATOR.finditer(text)):
        if at == 0:
            continue
        end = at - 1 if lf_only or not text.startswith("\r\n", at - 2) else at - 2
        yield first, text[start:end]
        first += text.count("\n", start, at) if lf_only else count(text, start, at)
        start = at
    yield first, text[start:]


def _separators_lf(text: str) -> Iterator[int]:
    """Where the separator lines of a text without CR start (``_SEPARATOR`` where lines end at
    LF alone), found by ``str.find``: a regular expression tries a match at every character."""
    if text.startswith("---"):
        at = 0
    elif (found := text.find("\n---")) >= 0:
        at = found + 1
    else:
        return
    while True:
        after = text[at + 3 : at + 4]  # the line ends at the separator, or a space or tab follows it
        if not after or after in " \t\n":
            yield at
        found = text.find("\n---", at + 3)
        if found < 0:
            return
        at = found + 1


def unseen_by_kubectl(text: str) -> Iterator[int]:
    """The 0-based lines of the ``---`` separators (those ``split_documents`` splits on) that
    follow a CR-only line end, which kubectl does not see.

    kubectl splits a file into documents by lines read up to LF alone (apimachinery's
    ``util/yaml`` ``YAMLReader`` over ``bufio.Reader.ReadLine``; a CR LF end is trimmed, a lone
    CR is not), then decodes each with go-yaml v2's ``Unmarshal``, which reads only the first
    YAML document of its input: the objects after such a separator, up to the next one after an
    LF, are never applied (``kubectl label --local -f`` on a CR-only file of two objects prints
    one)."""
    line, counted = 0, 0
    for match in _SEPARATOR.finditer(text):
        at = match.start()
        if at and text[at - 1] == "\r":
            line += count(text, counted, at)
            counted = at
            yield line


def refused_by_kubectl(text: str) -> bool:
    """Whether kubectl refuses the whole file ("invalid Yaml document separator"): its first line,
    read up to LF, starts with ``---`` and holds more than a comment after it, which a ``---``
    line ended by a CR alone does (the same reader as ``unseen_by_kubectl``)."""
    if not text.startswith("---"):
        return False
    end = text.find("\n")
    rest = text[3 : end if end >= 0 else len(text)].strip()
    return "\r" in text[3 : end if end >= 0 else len(text)] and bool(rest) and not rest.startswith("#")
