"""An object that does not match the strict schema of its kind.

Rationale: the API server decodes strictly: an unknown field (a typo such as
``metafffdata``) is refused or silently dropped, and a wrong type is refused. Core kinds are
checked against the strict schemas of the target Kubernetes version; custom resources
against the schema locations configured (``gpu-gitops schemas import`` makes them from
CRDs). The finding points at the offending key or value, in every document of the file.
``--no-strict`` lets unknown fields and duplicate keys pass, like kubeconform without ``-strict``.

Values are read as the API server reads them: YAML 1.1 plain scalars, so an unquoted
``yes``, ``on`` or ``y`` is a boolean and ``0644`` an octal number; where a string is
expected, the hint says so.

Fix: correct the field named in the message; check its spelling and type in
``kubectl explain KIND.FIELD`` for the target version. Quote values meant as text.

PASS:

    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: flags
    data:
      profiling: "yes"

FAIL:

    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: flags
    data:
      profiling: yes
"""

from generator import jsonpath
from generator.lint.model import Hit
from generator.yamlio import read as yamlread

_YAML12_BOOLS = {"true", "True", "TRUE", "false", "False", "FALSE"}

ID = "K8S003"
NAME = "schema"
SEVERITY = "error"
SUMMARY = "The object does not validate against the strict schema of its kind"
SCOPE = "object"


def check(res, ctx):
    if not _typed(res.obj) or ctx.validator is None:
        return
    for problem in ctx.validator.check(res.obj):
        if problem.kind == "invalid":
            if problem.message.startswith("unknown field"):
                if not ctx.settings.strict:
                    continue  # --no-strict: unknown fields pass, as without kubeconform -strict
                yield Hit(f"strict decoding error: {problem.message}", problem.path)
            else:
                where = jsonpath.dotted(problem.path)
                message = _shortened(problem.message, _at(res.obj, problem.path))
                yield Hit(
                    f"{where}: {message}" if where else message, problem.path, hint=_scalar_hint(res, problem.path)
                )


def _typed(obj: dict) -> bool:
    return all(isinstance(obj.get(k), str) and obj.get(k) for k in ("apiVersion", "kind"))


def _shortened(message: str, value) -> str:
    """The message with a long string value cut to its start and length."""
    if isinstance(value, str) and len(value) > 60:
        return message.replace(repr(value), f"'{value[:20]}…' ({len(value)} characters)")
    return message


def _scalar_hint(res, path: tuple) -> str:
    """Why an unquoted value is not what it looks like: Kubernetes reads YAML 1.1."""
    value = _at(res.obj, path)
    text = res.document.plain_scalar(res.base + tuple(path)) if isinstance(value, (bool, int, float, str)) else None
    if text is None:
        return ""
    if isinstance(value, str):
        return yamlread.out_of_range(text)
    if isinstance(value, bool) and text in _YAML12_BOOLS:
        return ""
    shown = ("true" if value else "false") if isinstance(value, bool) else repr(value)
    return (
        f"Kubernetes reads YAML 1.1, where the unquoted {text} is {shown}, not a string; "
        f'quote it ("{text}") if the text is meant'
    )


def _at(obj, path: tuple):
    for part in path:
        try:
            obj = obj[part]
        except (KeyError, IndexError, TypeError):
            return None
    return obj
