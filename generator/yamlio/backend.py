"""Which path of the YAML reader runs, chosen once, here.

The reader (``generator.yamlio.read``) builds plain data over libyaml by one of two named
backends, which give the same data and positions (tests/yamlio/test_yamlread_paths.py):

- ``compiled``: the C extension ``generator.yamlio._cread``, built at install where libyaml's
  headers are found (setup.py), linked to the system libyaml; the default when built;
- ``events``: ruamel.yaml.clib's libyaml parser events, read in Python (4x slower), a ':' in a
  flow scalar, which its older libyaml refuses, masked for it (ruamel's Python parser for what
  masking does not take); the default without the extension, and what the compiled backend
  sends on (``Slow``).

What neither builds (anchors, tags, duplicate keys, several documents, errors to word) they hand
over: ``read.build``, the one place that decides, returns a ``read.Handover`` instead of data,
and the caller loads the text with the full loader of what it needs: ``round-trip``, ruamel's
round-trip loader, for inputs, which need locations and worded errors (``yamlio.positions``);
``goyaml``, ruamel's safe loader with go-yaml v2's rules, for manifests linted as the API server
reads them (``yamlio.goyaml``); ``safe``, ruamel's safe loader, for data only (rendered files,
chart output: ``read.load_data``). No caller catches the reader's exceptions to hand over.
``GPU_GITOPS_YAML_BACKEND``
(``compiled`` or ``events``) forces one, for CI's run of the YAML tests on the pure-Python
backend and for comparing the two; ``gpu-gitops --version`` names the one in use.
"""

from __future__ import annotations

import functools
import os
from types import ModuleType  # not typing: `--version` imports this module, and typing is 40 M instructions

ENV = "GPU_GITOPS_YAML_BACKEND"
COMPILED = "compiled"
EVENTS = "events"
BACKENDS = (COMPILED, EVENTS)

try:
    from generator.yamlio import _cread
except ImportError:  # built without libyaml's headers: the event backend reads everything
    _cread = None  # type: ignore[assignment]


def problem() -> tuple[str, str] | None:
    """(message, hint) when ``GPU_GITOPS_YAML_BACKEND`` names no backend this install has."""
    asked = os.environ.get(ENV, "")
    if asked and asked not in BACKENDS:
        return f"{ENV}={asked!r} names no YAML backend", f"set it to {' or '.join(BACKENDS)}, or unset it"
    if asked == COMPILED and _cread is None:
        return (
            f"{ENV}=compiled, but the compiled YAML reader is not built",
            "install libyaml's headers (Debian: libyaml-dev) and reinstall gpu-gitops, or unset it",
        )
    return None


@functools.cache
def chosen() -> str:
    """The backend in use: ``GPU_GITOPS_YAML_BACKEND`` when set, else the compiled one where it is
    built; an ``InputError`` when the variable names none this install has (``problem``)."""
    wrong = problem()
    if wrong is not None:
        from generator.errors import InputError

        raise InputError(wrong[0], hint=wrong[1])
    if _cread is None or os.environ.get(ENV) == EVENTS:
        return EVENTS
    return COMPILED


def compiled() -> ModuleType | None:
    """The compiled module when it is the backend in use, else None."""
    return _cread if chosen() == COMPILED else None


def describe() -> str:
    """The backend in use and its libyaml, for ``--version`` (imports no more than the backend)."""
    wrong = problem()
    if wrong is not None:
        return f"none ({wrong[0]})"
    if chosen() == COMPILED:
        return f"{COMPILED} (libyaml {_cread.libyaml_version()})"
    from _ruamel_yaml import get_version_string

    return f"{EVENTS} (ruamel.yaml.clib's libyaml {get_version_string()})"
