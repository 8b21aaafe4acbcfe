"""What ``helm template`` cannot know offline, found in a chart's templates, each with its file
and line: the calls that read the cluster (``lookup``), that make a new value on every render
(``genCA``, ``randAlphaNum``, ``now``, ...), and the tests of what the cluster serves
(``.Capabilities.APIVersions.Has``, a ``.Capabilities.KubeVersion`` compared at a patch level).

``inflate`` uses them to say where a refused chart looks, to warn where the preview is not what
the cluster gets, and ``render.charts`` to know which API versions no chart tests. Only actions
(``{{ ... }}``) are read, comments left out; a string is never taken for a call.
"""

from __future__ import annotations

import functools
import io
import re
import tarfile
from dataclasses import dataclass

from generator import regex

# Sprig and Helm functions whose result is new on every call: keys and certificates, random
# values, the clock, salted hashes (Helm's funcs.go and sprig's function map).
GENERATORS = (
    "genCA",
    "genCAWithKey",
    "genPrivateKey",
    "genSelfSignedCert",
    "genSelfSignedCertWithKey",
    "genSignedCert",
    "genSignedCertWithKey",
    "randAlphaNum",
    "randAlpha",
    "randAscii",
    "randNumeric",
    "randBytes",
    "randInt",
    "uuidv4",
    "now",
    "htpasswd",
    "bcrypt",
)
LOOKUP = "lookup"
HAS = ".Capabilities.APIVersions.Has"
KUBE_VERSION = ".Capabilities.KubeVersion"

_COMMENT = regex.compile(r"\{\{-?\s*/\*.*?\*/\s*-?\}\}", re.S)
_ACTION = regex.compile(r"\{\{(.*?)\}\}", re.S)
_STRING = regex.compile(r'"(?:[^"\\\n]|\\.)*"|`[^`]*`')
_CALL = regex.compile(r"(?<![\w.$])(" + "|".join(sorted((LOOKUP, *GENERATORS), key=len, reverse=True)) + r")\b")
_HAS = regex.compile(r"\.Capabilities\.APIVersions\.Has\b")
_APIS = regex.compile(r"\.Capabilities\.APIVersions\b(?!\.Has\b)")
_KUBE = regex.compile(r"\.Capabilities\.KubeVersion\b")
# a semver constraint naming a patch: ">= 1.29.3", "~1.30.1" (Masterminds/semver, as Helm's semverCompare)
_PATCH = regex.compile(r"\bv?\d+\.\d+\.([1-9]\d*)\b")


@dataclass(frozen=True)
class Site:
    """One call in a template: ``file`` as Helm names it (``<chart>/templates/x.yaml``), its
    1-based ``line``; ``call`` the function or field; ``api`` the literal a ``Has`` tests ('' for
    one given a variable); ``text`` the action, for messages."""

    file: str
    line: int
    call: str
    api: str = ""
    text: str = ""

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


def _blank(match: re.Match) -> str:
    """A comment or string replaced by as many spaces, its line breaks kept: positions hold."""
    return re.sub(r"[^\n]", " ", match.group(0))


def _templates(data: bytes) -> list[tuple[str, str]]:
    """(name, text) of every template file in a package, its subcharts' included, sorted."""
    found = []
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        for member in sorted(archive.getmembers(), key=lambda m: m.name):
            if not member.isfile() or "/templates/" not in member.name:
                continue
            handle = archive.extractfile(member)
            if handle is None:
                continue
            try:
                found.append((member.name, handle.read().decode("utf-8")))
            except UnicodeDecodeError:
                continue  # not a template Helm would render as text
    return found


def scan_text(name: str, text: str) -> list[Site]:
    """The sites of one template file."""
    sites = []
    text = _COMMENT.sub(_blank, text)
    for action in _ACTION.finditer(text):
        body = action.group(1)
        plain = _STRING.sub(_blank, body)  # strings blanked: a call is never read inside one
        first = text.count("\n", 0, action.start()) + 1
        shown = " ".join(body.strip("- \n\t").split())[:160]

        def site(at: int, call: str, api: str = "") -> Site:
            return Site(name, first + body.count("\n", 0, at), call, api, shown)  # noqa: B023  # called at once

        sites += [site(m.start(), m.group(1)) for m in _CALL.finditer(plain)]
        for has in _HAS.finditer(plain):
            literal = _STRING.match(body, len(body) - len(body[has.end() :].lstrip()))
            sites.append(site(has.start(), HAS, literal.group(0)[1:-1] if literal else ""))
        sites += [site(m.start(), HAS) for m in _APIS.finditer(plain)]
        kube = _KUBE.search(plain)
        if kube and any(_PATCH.search(s.group(0)) for s in _STRING.finditer(body)):
            sites.append(site(kube.start(), KUBE_VERSION))
    return sites


@functools.lru_cache(maxsize=64)
def scan(data: bytes) -> tuple[Site, ...]:
    """Every site of a chart package's templates, by file and line."""
    return tuple(site for name, text in _templates(data) for site in scan_text(name, text))


def shown(sites: list[Site] | tuple[Site, ...], limit: int = 4) -> str:
    """Sites for a message: ``call`` at ``file:line``, the first few."""
    listed = [f"{s.call if s.call != HAS else 'Has ' + repr(s.api or '$var')} at {s}" for s in sites[:limit]]
    more = f" and {len(sites) - limit} more" if len(sites) > limit else ""
    return ", ".join(listed) + more


def disarmed(text: str) -> str:
    """The template with each ``lookup`` call made a ``fail`` of the wrong arity (the name padded
    to keep every column): rendered, the first ``lookup`` the values reach stops Helm, which
    names the file, line and the top-level template that reached it."""
    out = list(text)
    clean = _COMMENT.sub(_blank, text)
    for action in _ACTION.finditer(clean):
        plain = _STRING.sub(_blank, action.group(1))
        for call in _CALL.finditer(plain):
            if call.group(1) == LOOKUP:
                at = action.start(1) + call.start()
                out[at : at + len(LOOKUP)] = "fail  "
    return "".join(out)
