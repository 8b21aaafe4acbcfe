"""An object that does not match the strict schema of its kind.

Rationale: the API server decodes strictly: an unknown field (a typo such as
``metafffdata``) is refused or silently dropped, and a wrong type is refused. Core kinds are
checked against the strict schemas of the target Kubernetes version; custom resources
against the schema locations configured (``gpu-gitops schemas import`` makes them from
CRDs). The finding points at the offending key or value, in every document of the file.
``--no-strict`` lets unknown fields and duplicate keys pass, like kubeconform without ``-strict``.
A custom resource checked against the synced set names the CRD's repository and release: a
field a later release of the operator added is unknown to an earlier one's schema, so the
hint says how to check against the release the cluster runs.

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

from collections.abc import Iterator

from generator import jsonpath
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, ObjectRule
from generator.rulemeta import RuleMeta
from generator.yamlio import read as yamlread

_YAML12_BOOLS = {"true", "True", "TRUE", "false", "False", "FALSE"}
_UNKNOWN_HINT = "remove the field or correct its spelling: `kubectl explain {}` lists the fields the API server knows"
_INVALID_HINT = "give the field the type and value its schema asks for: see `kubectl explain {}.{}`"
_OTHER_RELEASE_HINT = (
    "; for the release the cluster runs: `kubectl get crd <name> -o yaml > crd.yaml && gpu-gitops schemas "
    "import crd.yaml`, then lint with --schema-location 'schemas/crds/{{.Group}}/{{.ResourceKind}}_"
    "{{.ResourceAPIVersion}}.json' (your locations come before the synced set)"
)

META = RuleMeta(
    "K8S003", "schema", "error", "The object does not validate against the strict schema of its kind", __doc__
)


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    if not _typed(res.obj) or ctx.validator is None:
        return
    problems = ctx.validator.check(res.obj)
    # a custom resource's schema is that of one operator release: say which, and how to use another
    origin = ctx.validator.crd_origin(res.obj["apiVersion"], res.obj["kind"]) if problems else ""
    checked = f" (checked against the CRD of {origin})" if origin else ""
    other = _OTHER_RELEASE_HINT if origin else ""
    for problem in problems:
        if problem.kind == "invalid":
            if problem.message.startswith("unknown field"):
                if not ctx.settings.strict:
                    continue  # --no-strict: unknown fields pass, as without kubeconform -strict
                yield Hit(
                    f"strict decoding error: {problem.message}{checked}",
                    problem.path,
                    hint=_UNKNOWN_HINT.format(res.kind) + other,
                )
            else:
                where = jsonpath.dotted(problem.path)
                message = _shortened(problem.message, jsonpath.value_at(res.obj, problem.path)) + checked
                hint = (_scalar_hint(res, problem.path) or _INVALID_HINT.format(res.kind, where or "")) + other
                yield Hit(f"{where}: {message}" if where else message, problem.path, hint=hint)


def _typed(obj: dict) -> bool:
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    return isinstance(api_version, str) and isinstance(kind, str) and bool(api_version) and bool(kind)


def _shortened(message: str, value: object) -> str:
    """The message with a long string value cut to its start and length."""
    if isinstance(value, str) and len(value) > 60:
        return message.replace(repr(value), f"'{value[:20]}…' ({len(value)} characters)")
    return message


def _scalar_hint(res: Resource, path: tuple) -> str:
    """Why an unquoted value is not what it looks like: Kubernetes reads YAML 1.1."""
    value = jsonpath.value_at(res.obj, path)
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


RULE = ObjectRule(meta=META, check=check)
