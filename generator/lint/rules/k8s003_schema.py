"""An object that does not match the strict schema of its kind.

Rationale: the API server decodes strictly: an unknown field (a typo such as
``metafffdata``) is refused or silently dropped, and a wrong type is refused. Core kinds are
checked against the strict schemas of the target Kubernetes version; custom resources
against the schema locations configured (``gpu-gitops schemas import`` makes them from
CRDs). The finding points at the offending key or value, in every document of the file.
``--no-strict`` lets unknown fields and duplicate keys pass, like kubeconform without ``-strict``.

Fix: correct the field named in the message; check its spelling and type in
``kubectl explain KIND.FIELD`` for the target version.
"""

from generator.lint.model import Hit

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
                pointer = "/" + "/".join(str(p) for p in problem.path)
                yield Hit(f"{pointer}: {problem.message}", problem.path)


def _typed(obj: dict) -> bool:
    return all(isinstance(obj.get(k), str) and obj.get(k) for k in ("apiVersion", "kind"))
