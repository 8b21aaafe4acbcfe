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
"""

from generator import jsonpath
from generator.lint.model import Hit

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
                yield Hit(f"{where}: {problem.message}" if where else problem.message, problem.path,
                          hint=_yaml11_hint(res, problem.path))


def _typed(obj: dict) -> bool:
    return all(isinstance(obj.get(k), str) and obj.get(k) for k in ("apiVersion", "kind"))


def _yaml11_hint(res, path: tuple) -> str:
    """Why an unquoted value is not the string it looks like: Kubernetes reads YAML 1.1."""
    value = _at(res.obj, path)
    if isinstance(value, str) or value is None or not isinstance(value, (bool, int, float)):
        return ""
    text = res.document.plain_scalar(res.base + tuple(path))
    if text is None or (isinstance(value, bool) and text in _YAML12_BOOLS):
        return ""
    shown = ("true" if value else "false") if isinstance(value, bool) else repr(value)
    return (f"Kubernetes reads YAML 1.1, where the unquoted {text} is {shown}, not a string; "
            f'quote it ("{text}") if the text is meant')


def _at(obj, path: tuple):
    for part in path:
        try:
            obj = obj[part]
        except (KeyError, IndexError, TypeError):
            return None
    return obj
