"""Find manifest files and parse them fast: files → documents → resources.

Documents are split on ``---`` lines (as kubeconform and kubectl do), so each keeps its
line offset in the file and a syntax error in one document leaves the others intact.
Parsing builds data from the C parser's events (``yamlread``, with its ``MANIFESTS``
limits), falling back to ruamel's C-backed safe loader for the YAML features manifests
rarely use (anchors, tags, duplicate keys, errors to word), and to its Python parser for
what the bundled libyaml is too old to read. Either way scalars and keys come out as the
API server's reader makes them (go-yaml v2, YAML 1.1: ``yamlread.resolve_plain``);
timestamps stay strings, as they are in the JSON the API server receives. A repeated key
takes the later value, as kubectl's YAML to JSON conversion (go-yaml v2) does; with ``--strict``
each repeat is a K8S001 error (kubeconform ``-strict`` refuses the document), and the rest of
the document is still checked.

The fallback is ruamel's safe loader, not the round-trip loader cluster inputs fall back to
(``yamlpos``): it takes go-yaml's resolution and tag rules (``yamlio.goyaml``, beside the
reader's other backends), which decide what a manifest means on the cluster, and keeps no positions, which only the
few documents with a finding need (``model.Document`` composes those again). Inputs keep
YAML 1.2 and the round-trip loader's positions and wording, so the two differ by purpose.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable, Iterator

from generator import pathmatch
from generator.errors import InputError
from generator.lint import nonmanifests
from generator.lint.model import Document, Hit, Resource, first_content_line
from generator.paths import plain, walk
from generator.record import Record
from generator.yamlio import depth as yamldepth
from generator.yamlio import lines as yamllines
from generator.yamlio import messages as yamlmessages
from generator.yamlio import read as yamlread
from generator.yamlio.lines import split_documents

SUFFIXES = (".yaml", ".yml", ".json")


# kubectl apply (default --validate=strict, server-side field validation) converts YAML to JSON
# on the client with go-yaml v2, which keeps a repeated key's last value: the API server never
# sees the repeat (kubernetes/kubernetes#125885). kubeconform -strict refuses it.
def _repeated_key(key: object) -> str:
    return (
        f"duplicate key {str(key)!r}: kubectl apply keeps the last value and drops the earlier without a "
        "word (the API server never sees it); kubeconform -strict rejects the document"
    )


class Source(Record):
    """One input file (or stdin) and what came out of it."""

    _fields = ("display", "documents")

    def __init__(self, display: str, documents: list[Document] | None = None):
        self.display = display
        self.documents = [] if documents is None else documents

    @property
    def resources(self) -> list[Resource]:
        out = []
        for doc in self.documents:
            out.extend(resources_of(doc))
        return out


def discover(paths: list[str], excludes: list[str], display: Callable[[str], str]) -> list[str]:
    """Every file to lint, in a stable order; a missing or special path given by name is a usage error.

    Inside folders, manifests that are not regular files (FIFOs, devices, symlinks to them)
    are kept: ``read`` reports them without opening them. A folder that cannot be listed is
    kept too, in its place: ``read`` reports it, so nothing is skipped without a word.
    """
    found: list[str] = []
    for raw in paths:
        if raw == "-":
            found.append(raw)
            continue
        path = plain(raw)  # a folder's files are named from it as Path spelt it ("a//b/" is "a/b")
        if os.path.isdir(path):
            _walk(path, found)
        elif os.path.isfile(path):
            found.append(raw)
        elif os.path.exists(path):
            raise InputError("not a regular file", path=raw, hint="pass manifest files, folders or - for stdin")
        else:
            raise InputError("no such file or directory", path=raw, hint="pass files, folders or - for stdin")
    if not excludes:
        return found
    return [f for f in found if f == "-" or not _excluded(display(f), excludes)]


def _walk(top: str, found: list[str]) -> None:
    """The manifests under folder ``top`` (``walk``, hidden folders left out): each file's path,
    or a folder's that cannot be listed, in its place."""
    for entry, relative in walk(top, _visible, lambda exc: found.append(exc.filename)):
        if entry.name.lower().endswith(SUFFIXES) and not nonmanifests.skipped(relative):
            found.append(entry.path)


def _visible(name: str) -> bool:
    return not name.startswith(".")


def _excluded(shown: str, patterns: list[str]) -> bool:
    return pathmatch.matches(shown, patterns)


def read(path: str, display: str, strict: bool = True) -> Source:
    """Parse one file into memory; problems become error documents, never exceptions."""
    return Source(display, list(documents(raw(path), display, path.lower().endswith(".json"), strict)))


def raw(path: str) -> bytes | str:
    """The bytes of a manifest file (``-``: stdin), or the message saying why it cannot be linted
    (a folder here is one ``discover`` could not list)."""
    try:
        info = os.stat(path) if path != "-" else None
        if info is not None and stat.S_ISDIR(info.st_mode):
            os.listdir(path)
            return "cannot read folder"
        data = _read_bytes(path, info)
    except OSError as exc:
        return f"cannot read {'folder' if os.path.isdir(path) else 'file'}: {exc.strerror or exc}"
    if data is None:
        return "not a regular file"
    limit = yamlread.MANIFESTS.file_bytes
    if len(data) > limit:
        return yamlmessages.too_large("file", limit)
    return data


def documents(data: bytes | str, display: str, is_json: bool = False, strict: bool = True) -> Iterator[Document]:
    """The documents of what ``raw`` gave, one at a time: a file of many documents is never all in memory."""
    if isinstance(data, str):
        yield _failed(display, "", 0, data, 0, 0, _unread_hint(data))
        return
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        message, line, col = yamlmessages.not_utf8(exc)
        yield _failed(display, "", 0, message, line, col, yamlmessages.NOT_UTF8_HINT)
        return
    yield from iter_text(text, display, is_json=is_json, strict=strict)


def _read_bytes(path: str, info: os.stat_result | None) -> bytes | None:
    """At most one byte past the size limit (stdin, /dev/zero and growing files have no size
    to check first); None for a FIFO or device, which could block or never end. ``info``: the
    file's ``os.stat``, taken once by ``raw``."""
    limit = yamlread.MANIFESTS.file_bytes
    if info is None:  # stdin
        return sys.stdin.buffer.read(limit + 1)
    if not stat.S_ISREG(info.st_mode):
        return None
    fd = os.open(path, os.O_RDONLY)
    try:
        # a buffer the size of the file, not of the limit: allocating the limit for every file
        # costs more than reading the file
        data = os.read(fd, min(info.st_size, limit) + 1)
        while len(data) > info.st_size and len(data) <= limit:  # it grew since it was measured
            more = os.read(fd, limit + 1 - len(data))
            if not more:
                break
            data += more
    finally:
        os.close(fd)
    return data


def parse_text(text: str, display: str, is_json: bool = False, strict: bool = True) -> list[Document]:
    """The documents of one file, as a list."""
    return list(iter_text(text, display, is_json=is_json, strict=strict))


def iter_text(text: str, display: str, is_json: bool = False, strict: bool = True) -> Iterator[Document]:
    """The documents of one file, one at a time; JSON and YAML documents get the same checks."""
    if is_json and text.lstrip().startswith(("{", "[")):
        import json  # a .json manifest: json's decoder, with re, only then

        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            pass  # let the YAML parser report it with a line
        else:
            # deeper than YAML may nest: the YAML parser reports it, located, in the same words
            if yamldepth.nesting(data, yamlread.MANIFESTS.depth) <= yamlread.MANIFESTS.depth:
                doc = Document(display, text, 0, data)
                _check_object(doc)
                if doc.error is not None or doc.data is not None:
                    yield doc
                return
    yaml = None
    limits = yamlread.MANIFESTS
    unseen = set(yamllines.unseen_by_kubectl(text)) if "\r" in text else None
    for first_line, chunk in split_documents(text):
        doc = Document(display, chunk, first_line)
        if unseen and first_line in unseen:
            doc.notes.append(_unseen_separator(first_line))
        elif first_line == 0 and unseen is not None and yamllines.refused_by_kubectl(text):
            doc.notes.append(_REFUSED_FILE)
        if len(chunk) > limits.document_bytes:
            message = yamlmessages.too_large("document", limits.document_bytes)
            yield _failed(display, chunk, first_line, message, 0, 0, _DOCUMENT_TOO_LARGE_HINT)
            continue
        try:
            built, where = yamlread.build_located(chunk, yamlread.GO_YAML, limits.depth)
            if where is not None:
                doc.data, doc.where = built, where
            else:  # handed over to the goyaml loader (and ruamel.yaml imported with it)
                from generator.yamlio import goyaml

                yaml = yaml or goyaml.safe_loader()
                goyaml.Constructor.repeated = []
                doc.data = goyaml.load_full(yaml, chunk)
                if strict:
                    doc.notes += [
                        Hit(
                            _repeated_key(key),
                            hint=yamlmessages.DUPLICATE_KEY_HINT,
                            at=(first_line + mark.line + 1, mark.column + 1),
                        )
                        for key, mark in goyaml.Constructor.repeated
                    ]
        except Exception as exc:
            if not _refused(doc, chunk, exc, limits.depth):
                raise
        _check_object(doc)
        if doc.error is not None or doc.data is not None:
            yield doc


def _refused(doc: Document, chunk: str, exc: Exception, depth: int) -> bool:
    """Word why the reader refused a document, as its finding (``_fail``); False for an
    exception that is no refusal (it propagates). ruamel.yaml's errors are imported here, by a
    refused document: a document the compiled reader takes never needs them."""
    from ruamel.yaml.constructor import ConstructorError
    from ruamel.yaml.error import MarkedYAMLError, YAMLError
    from ruamel.yaml.reader import ReaderError

    from generator.yamlio import aliases as yamlaliases

    if isinstance(exc, ConstructorError):  # a value that is no JSON: a tag on the wrong text, a null or complex key
        mark = exc.problem_mark
        _fail(
            doc,
            f"error unmarshalling resource: {exc.problem}",
            mark.line if mark else 0,
            mark.column if mark else 0,
            yamlmessages.TAG_HINT if "!!" in str(exc.problem) else yamlmessages.KEY_HINT,
        )
    elif isinstance(exc, MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        line, col = _within(chunk, mark.line, mark.column) if mark else (0, 0)
        problem = exc.problem or exc.context
        _fail(
            doc,
            f"error unmarshalling resource: YAML syntax error: {problem}",
            line,
            col,
            yamlmessages.syntax_hint(problem, yamllines.line(chunk, line)),
        )
    elif isinstance(exc, ReaderError):
        line, col = yamllines.line_col(chunk, exc.position)
        _fail(
            doc,
            f"error unmarshalling resource: {yamlmessages.bad_character(exc.character)} is not allowed in YAML",
            line - 1,
            col - 1,
            yamlmessages.BAD_CHARACTER_HINT,
        )
    elif isinstance(exc, YAMLError):
        _fail(doc, f"error unmarshalling resource: {str(exc).splitlines()[0]}", 0, 0, yamlmessages.SYNTAX_HINT)
    elif isinstance(exc, yamlread.TooDeep):
        _fail(
            doc,
            f"error unmarshalling resource: {yamlmessages.too_deep(depth)}",
            exc.line,
            exc.col,
            yamlmessages.TOO_DEEP_HINT,
        )
    elif isinstance(exc, RecursionError):
        _fail(doc, "error unmarshalling resource: nesting is too deep", 0, 0, yamlmessages.TOO_DEEP_HINT)
    elif isinstance(exc, (ValueError, TypeError, IndexError)):
        # ruamel's constructors raise these for explicit tags on the wrong text (!!float abc)
        _fail(
            doc,
            f"error unmarshalling resource: a tagged value cannot be built ({exc})",
            0,
            0,
            yamlmessages.TAG_HINT,
        )
    elif isinstance(exc, yamlaliases.TooManyAliases):
        _fail(doc, f"error unmarshalling resource: {exc}", exc.line, exc.col, yamlmessages.ALIAS_HINT)
    else:
        return False
    return True


def _unseen_separator(first_line: int) -> Hit:
    """A warning at a ``---`` kubectl does not split on (``yamllines.unseen_by_kubectl``)."""
    return Hit(
        "kubectl applies nothing from this document: its `---` follows a line that ends in a CR alone, "
        "and kubectl splits documents at LF line ends only, then decodes only the first document of what "
        "it read as one",
        hint="save the file with LF (or CR LF) line endings",
        severity="warning",
        at=(first_line + 1, 1),
    )


_REFUSED_FILE = Hit(
    'kubectl refuses this file ("invalid Yaml document separator"): its first line is a `---` ended by a CR '
    "alone, and kubectl reads lines up to LF, so the rest of the file is on that line",
    hint="save the file with LF (or CR LF) line endings",
    severity="warning",
    at=(1, 1),
)


def _check_object(doc: Document) -> None:
    if doc.error is None and doc.data is not None and not isinstance(doc.data, dict):
        _fail(
            doc,
            "error unmarshalling resource: a document must be a mapping (a Kubernetes object)",
            first_content_line(doc.text),
            0,
            "write one object per document (`apiVersion`, `kind`, `metadata`), or a `kind: List` of them",
        )


# the API server keeps objects in etcd, whose requests are at most 1.5 MiB by default
# (etcd --max-request-bytes); kubeconform reads documents of at most 4 MiB
_DOCUMENT_TOO_LARGE_HINT = "split the data over several objects, or keep it out of the manifests (an image, a volume)"


def _unread_hint(message: str) -> str:
    """The hint for a file or folder ``raw`` could not give the text of."""
    if message.startswith("cannot read"):
        return "check that the path exists and that this user may read it (and list a folder), or exclude it"
    if message == "not a regular file":
        return "lint reads regular files: pass the manifest itself, or exclude this path"
    return "split the manifests over several files"  # larger than the file limit


def _within(text: str, line: int, col: int) -> tuple[int, int]:
    """An end-of-stream mark (the line after the last) moved to the end of the last line."""
    lines = yamllines.split(text.rstrip("\r\n"))
    if line < len(lines):
        return line, col
    return len(lines) - 1, len(lines[-1])


def _fail(doc: Document, message: str, line: int, col: int, hint: str = "") -> None:
    doc.error = Hit(message, hint=hint)
    doc.error_line, doc.error_col = doc.first_line + line + 1, col + 1


def _failed(display: str, text: str, first_line: int, message: str, line: int, col: int, hint: str = "") -> Document:
    doc = Document(display, text, first_line)
    _fail(doc, message, line, col, hint)
    return doc


def resources_of(doc: Document) -> list[Resource]:
    """The objects of a parsed document; a ``kind: List`` gives one per item."""
    if doc.error is not None or doc.data is None:
        return []
    data = doc.data
    if (
        isinstance(data, dict)
        and isinstance(data.get("kind"), str)
        and data["kind"].lower() == "list"
        and isinstance(data.get("items"), list)
    ):
        return [
            Resource(item if isinstance(item, dict) else {}, doc, ("items", i)) for i, item in enumerate(data["items"])
        ]
    return [Resource(data, doc)]
