"""Defects the fuzzers have found and ``test_regressions.py`` reproduces (strict xfail).

An example that hits one of them is discarded, so the fuzz tests keep looking for new
defects while a known one waits for its fix. When a fix makes a regression test pass
(its strict xfail then fails the suite), remove its xfail mark there and its entry here.
"""

from __future__ import annotations

import contextlib
import re
import traceback

from hypothesis import reject

# (exception type, innermost frame in generator/ as path:function) → its regression test
KNOWN_CRASHES: dict[tuple[str, str], str] = {}

# errors that lack a line and column or a hint, and reports that do not parse (regular
# expressions on the assertion's subject) → its regression test
KNOWN_MESSAGES: dict[str, str] = {}


def signature(exc: BaseException) -> tuple[str, str]:
    """(type, innermost ``generator/`` frame) of an exception: what identifies a crash."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "/generator/" in f.filename]
    where = f"generator/{frames[-1].filename.rsplit('/generator/', 1)[1]}:{frames[-1].name}" if frames else "?"
    return type(exc).__name__, where


@contextlib.contextmanager
def skip_known():
    """Discard the example when it raises a known crash; let every other exception through."""
    try:
        yield
    except Exception as exc:  # noqa: BLE001 - a crash of any type is what is being classified
        if signature(exc) in KNOWN_CRASHES:
            reject()
        raise


def skip_known_message(subject: str) -> None:
    """Discard the example when ``subject`` is a known badly formed error or report."""
    if any(re.search(pattern, subject) for pattern in KNOWN_MESSAGES):
        reject()


def raw_control(text: str) -> str | None:
    """The first character of ``text`` a terminal would act on or hide (a control, format or
    line-separator character; the line feed ends lines), or None: messages escape them."""
    return next((c for c in text if not c.isprintable() and c != "\n"), None)
