"""`--help` answered from the user cache: the bytes click printed for the same question, without
importing click (its import is two thirds of a `--help`; kubeconform answers `-h` in a tenth of it).

Why a cache, not a copy of click's formatting: the page must be click's bytes at every terminal
width, locale and encoding, which only click makes. The first `--help` of a kind runs click as
before, captures what it prints and stores it under everything that output depends on:

- the command line: `--help` or `-h` after at most two words, the first a command;
- the width: ``COLUMNS`` as set and the columns of the terminal on standard output (all that
  ``shutil.get_terminal_size``, click's source of the width, reads);
- the words: the language settings gettext translates click's by (``LANGUAGE``, ``LC_ALL``,
  ``LC_MESSAGES``, ``LANG``), standard output's encoding and error handler, ``-OO`` (which
  drops the docstrings the pages are made of);
- the code: the interpreter's and the tool's versions, where the package is, and (checked at
  every answer) the size, times and inode of each module file of gpu-gitops and click loaded to
  print the page: an edited checkout or an upgraded click never shows a stale page.

Left to click: any other command line, a shell-completion request (``_GPU_GITOPS_COMPLETE``),
a forced YAML backend (``GPU_GITOPS_YAML_BACKEND``: the root group checks it before a command's
help), standard streams without a byte buffer, and systems other than POSIX (click writes to a
Windows console through a stream of its own). Not seen: a translation catalogue of click's
words installed after the page was stored.

Where: ``help/`` in the user cache folder, read from ``$GPU_GITOPS_CACHE_DIR``, else
``$XDG_CACHE_HOME/gpu-gitops`` or ``~/.cache/gpu-gitops`` (platformdirs' answer on Linux; its
import alone costs as much as this whole answer), and written only when that is the folder
``paths.cache_root`` names (elsewhere click answers every time). An entry is replaced whole;
one that is missing, unreadable, truncated, corrupted (its CRC-32 is in its header), of another
key or whose sources changed is written again; a cache that cannot be written costs only speed.

May import: generator (its version); on a miss, click (through ``root``), generator.paths and
generator.replace.
"""

from __future__ import annotations

import marshal
import os
import sys
import zlib

import generator
from generator.cli.table import FAMILIES

FORMAT = b"gpu-gitops help 1 "  # then the CRC-32 of the body, 8 hex digits, and a newline
HEADER = len(FORMAT) + 9
LANGUAGE = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")  # what gettext reads, in its order
SOURCES = ("generator", "click")  # the packages whose loaded modules make the pages


def answer(args: list[str]) -> None:
    """Print the help ``args`` ask for and exit, from the cache when it holds the page, else
    through click (storing the page); return, having printed nothing, when the command line
    is not a help the cache answers."""
    asked = _asked(args)
    if asked is None:
        return
    name, key = asked
    path = os.path.join(_folder(), "help", name)
    page = _read(path, key)
    if page is not None:
        raise SystemExit(_write(page, b""))
    code, out, err = _through_click(args)
    if code in (0, None) and not err and b"\x1b" not in out:  # a styled page: click decides per run
        _store(path, key, out)
    raise SystemExit(_write(out, err) or code)


def _asked(args: list[str]) -> tuple[str, tuple] | None:
    """The entry's name and its key, or None when click answers (see the module's docstring)."""
    words = args[:-1]
    if args[-1:] not in (["--help"], ["-h"]) or len(words) > 2 or any(w.startswith("-") for w in words):
        return None
    if (words and words[0] not in FAMILIES) or os.name != "posix":
        return None
    env = os.environ
    if env.get("_GPU_GITOPS_COMPLETE") or env.get("GPU_GITOPS_YAML_BACKEND"):
        return None
    out, err = sys.stdout, sys.stderr
    if not (hasattr(out, "buffer") and hasattr(err, "buffer") and out.encoding and err.encoding):
        return None
    try:
        columns: int | None = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        columns = None
    asked = (args, env.get("COLUMNS"), columns, [env.get(v) for v in LANGUAGE], out.encoding, out.errors)
    what = repr(asked)
    code = (generator.__version__, generator.__file__, sys.version, sys.flags.optimize)
    return f"{zlib.crc32(what.encode()):08x}", (what, *code)


def _folder() -> str:
    """Where ``paths.cache_root`` puts the user cache on Linux, or ``$GPU_GITOPS_CACHE_DIR``."""
    explicit = os.environ.get("GPU_GITOPS_CACHE_DIR")
    if explicit:
        return explicit
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    return os.path.join(xdg if os.path.isabs(xdg) else os.path.expanduser("~/.cache"), "gpu-gitops")


def _read(path: str, key: tuple) -> bytes | None:
    """The page of an entry whose key is ``key`` and whose sources are as recorded, else None."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
        body = data[HEADER:]
        if data[:HEADER] != FORMAT + b"%08x\n" % zlib.crc32(body):
            return None
        stored, sources, page = marshal.loads(body)
        if stored != key:
            return None
        for source, *recorded in sources:
            st = os.stat(source)
            if [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino] != recorded:
                return None
    except Exception:  # unreadable, truncated, of another shape: as good as missing
        return None
    return page if isinstance(page, bytes) else None


def _through_click(args: list[str]) -> tuple[int | str | None, bytes, bytes]:
    """Run the root group on ``args`` as ``main`` would, its standard output and error captured
    as the bytes it writes (each stream's encoding, error handler and terminal or not, so click
    writes what it would write there): exit code, both."""
    import io

    from generator.cli.root import cli

    class Capture(io.TextIOWrapper):
        def __init__(self, like: io.TextIOWrapper):
            super().__init__(io.BytesIO(), like.encoding, like.errors, write_through=True)
            self.tty = like.isatty()

        def isatty(self) -> bool:
            return self.tty

    real = sys.stdout, sys.stderr
    out, err = Capture(real[0]), Capture(real[1])  # type: ignore[arg-type]
    sys.stdout, sys.stderr = out, err
    code: int | str | None = 0
    try:
        cli(args, prog_name="gpu-gitops")
    except SystemExit as exit:
        code = exit.code
    except BaseException:  # a bug: what it printed, then its traceback
        sys.stdout, sys.stderr = real
        _write(out.buffer.getvalue(), err.buffer.getvalue())  # type: ignore[attr-defined]
        raise
    finally:
        sys.stdout, sys.stderr = real
    return code, out.buffer.getvalue(), err.buffer.getvalue()  # type: ignore[attr-defined]


def _write(out: bytes, err: bytes) -> int:
    """Write the captured bytes to the real streams: exit code 0, or 1 (nothing more printed) on a
    closed pipe (`gpu-gitops --help | head -1`), as click exits on one."""
    try:
        for stream, data in ((sys.stdout, out), (sys.stderr, err)):
            if data:
                stream.flush()
                stream.buffer.write(data)
                stream.buffer.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # the interpreter's flush at exit finds no pipe
        return 1
    return 0


def _store(path: str, key: tuple, page: bytes) -> None:
    """Store ``page`` under ``key`` with the state of its sources, when ``path`` is in the user
    cache folder; one that cannot be written is left as it was."""
    from pathlib import Path

    from generator.paths import cache_root
    from generator.replace import replace_file

    try:
        if os.path.realpath(_folder()) != os.path.realpath(cache_root()):
            return
        sources = []
        for module in list(sys.modules.values()):
            name, file = getattr(module, "__name__", ""), getattr(module, "__file__", None)
            if isinstance(file, str) and name.partition(".")[0] in SOURCES:
                st = os.stat(file)
                sources.append((file, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino))
        body = marshal.dumps((key, sorted(sources), page))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        replace_file(Path(path), FORMAT + b"%08x\n" % zlib.crc32(body) + body)
    except Exception:  # no home folder, a file in the way, a full disk: the page is printed anyway
        return
