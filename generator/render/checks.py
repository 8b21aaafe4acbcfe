"""The checks of a laid-out tree: every object against its schema, then the lint rules' errors.

Render and check stop a cluster on an error here; its old tree stays. What is found is a
``Diagnostic`` at the object's file (the validator's ``SchemaProblem``s become one here).
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from generator.diagnostic import Diagnostic, Location, ObjectRef
from generator.inputs.load import Cluster
from generator.render import checkcache
from generator.render.charts import FOLDER
from generator.render.layout import MARKER, Placed, Tree
from generator.validate import SchemaValidator

if TYPE_CHECKING:
    from generator.lint.engine import Engine, FileResult
    from generator.lint.settings import Settings

CHARTS = f"{FOLDER}/"


def oversized(tree: Tree, prefix: str, overrides: str, written: Path | None) -> list[Diagnostic]:
    """Files larger than lint reads (``yamlread.MANIFESTS.document_bytes``: one object a
    file), so what render writes, ``lint rendered/`` takes. Only an override can make such an
    object: the error is at the line of ``overrides`` (shown as given, read from ``written``)
    that names it, when it does."""
    from generator.library import jsonnet
    from generator.yamlio import messages, read

    limit = read.MANIFESTS.document_bytes
    problems = []
    for placed in tree.placed:
        size = len(tree.files[placed.relpath])
        if size <= limit:
            continue
        name = placed.obj["metadata"]["name"]
        line, col = (jsonnet.find_written(written, [placed.component], name) if written else None) or (0, 0)
        problems.append(
            Diagnostic(
                Location(overrides or f"{prefix}/{placed.relpath}", line, col),
                "error",
                f"{placed.relpath}: {messages.too_large('the rendered file', limit, size)} lint reads",
                "keep large data out of the object (an image, a volume) or split it over several: "
                "the API server stores each object whole in etcd (1.5 MiB a request by default)",
            )
        )
    return problems


# Schema verdicts, by validator and the digest of the object's YAML: the clusters of a fleet render
# many objects byte for byte alike (a platform's operators, its policies, the charts' objects of a
# shared release), and a verdict depends on nothing but the object and the validator. The YAML is
# canonical (its bytes are the object, ``yamlio.emit``) and Jsonnet orders every object's keys, so
# the same digest is the same object: the memo is exact, failures included (each is located at its
# cluster's file by ``validate``). Bounded (``_remember``; the validators are kept, so no id is
# reused). Kept between runs as well (``checkcache``).
_VERDICTS: dict[tuple[int, bytes], tuple[SchemaValidator, list]] = {}
# Entries of each memo: a few MB (an entry is about 450 bytes), so a fleet's render holds the same
# whatever its size. A fleet's clusters share most objects and differ in a few each (those that
# name the cluster: ~7 of the ~90 of an example cluster), so the memo keeps the recently used:
# a shared object is used by every cluster and stays; one cluster's own objects go first.
_MEMO_MAX = 8192
K = TypeVar("K")
V = TypeVar("V")


def _recall(memo: dict[K, V], key: K) -> V | None:
    """The memo's entry for ``key``, now its most recently used (moved to the end)."""
    found = memo.pop(key, None)
    if found is not None:
        memo[key] = found
    return found


def _remember(memo: dict[K, V], key: K, value: V) -> None:
    """Keep ``value``; a full memo first drops its least recently used quarter."""
    if len(memo) >= _MEMO_MAX:
        for old in list(itertools.islice(memo, max(1, _MEMO_MAX // 4))):
            del memo[old]
    memo[key] = value


def body_digests(tree: Tree) -> list[bytes]:
    """The digest of each placed object's YAML without the header line, which names the
    cluster: the key of its schema verdict and of its rule results, made once for both."""
    header = len(MARKER.format(cluster=tree.cluster).encode())
    files = tree.files
    return [hashlib.blake2b(files[placed.relpath][header:], digest_size=16).digest() for placed in tree.placed]


def _verdict(validator: SchemaValidator, obj: dict, digest: bytes) -> list:
    key = (id(validator), digest)
    known = _recall(_VERDICTS, key)
    if known is None or known[0] is not validator:
        problems, kept = checkcache.verdict(validator, digest, lambda: validator.check(obj))
        if kept:  # what the check would have recorded of the schemas it consulted (``consulted``)
            validator.look_up(obj.get("apiVersion"), obj.get("kind"))
        known = (validator, problems)
        _remember(_VERDICTS, key, known)
    return known[1]


def validate(
    tree: Tree, validator: SchemaValidator, require_schemas: bool, prefix: str, digests: list[bytes] | None = None
) -> list[Diagnostic]:
    """Schema problems of every placed object (one missing-schema warning per kind, which
    carries lint's rule for it, K8S004, so the command line can sum them up as lint does).

    An inflated chart object (``charts/``) of a kind with no schema is not reported: the chart
    chose the kind (cert-manager's, OpenShift's), no engine applies the preview, and a warning
    on every render would keep the cluster off the fast path; ``lint`` over the tree reports it
    (K8S004). Every chart object with a schema is validated like the rest."""
    problems = []
    missing_reported: set[tuple[str, str]] = set()
    for placed, digest in zip(tree.placed, digests or body_digests(tree), strict=True):
        shown = Location(f"{prefix}/{placed.relpath}")
        preview = placed.relpath.startswith(CHARTS)
        for problem in _verdict(validator, placed.obj, digest):
            if problem.kind == "missing-schema" and preview:
                continue
            if problem.kind == "missing-schema":
                key = (placed.obj["apiVersion"], placed.obj["kind"])
                if key in missing_reported and not require_schemas:
                    continue
                missing_reported.add(key)
                message = f"{problem.message}: not schema-checked"
                ref = ObjectRef(placed.obj["apiVersion"], placed.obj["kind"])
                if require_schemas:
                    problems.append(
                        Diagnostic(shown, "error", message + " (--require-schemas)", rule="K8S004", ref=ref)
                    )
                else:
                    problems.append(Diagnostic(shown, "warning", message, rule="K8S004", ref=ref))
            else:
                where = "/".join(str(p) for p in problem.path)
                problems.append(
                    Diagnostic(shown, "error", f"schema: {('/' + where + ': ') if where else ''}{problem.message}")
                )
    return problems


# Rule results, by lint settings, file and the digest of the object's YAML, as the schema verdicts
# (``_VERDICTS``): checked once per process, then moved to each cluster's file. The text of such a
# file differs between clusters only in its first line, the header naming the cluster, so every
# finding keeps its line and column. The file is keyed by its path in the tree (rules read its
# name: a kustomization file is no object), or by its path shown when the config file's
# ``ignores`` could name it. Bounded like ``_VERDICTS``.
_SHARED_RESULTS: dict[tuple[str, str, bytes], FileResult] = {}


def _settings_key(settings: Settings) -> str:
    """The settings as text: equal settings, equal rules and options. One string for equal
    settings (``sys.intern``): each cluster makes its own, and the memo's keys would keep one
    copy a cluster (~2.5 KB) for the whole fleet."""
    values = {name: getattr(settings, name) for name in settings._fields}
    return sys.intern(json.dumps(values, sort_keys=True, default=str))


def _object_result_of(engine: Engine, file: str, tree: Tree, placed: Placed) -> FileResult:
    """The rules' result on a placed object, located in ``file`` (``lint.object_result``)."""
    from generator.lint import object_result

    return object_result(engine, file, tree.files[placed.relpath].decode(), placed.obj)


def lint_rules(
    tree: Tree, cluster: Cluster, prefix: str, config: dict | None = None, digests: list[bytes] | None = None
) -> list[Diagnostic]:
    """The lint rules' errors on the rendered objects, with the config file's lint settings
    (``config`` is its data), so render, check and lint agree.

    Only the rules at error level run: render reports nothing else, and a finding's line and
    column cost a parse of its file, so warnings nobody prints are not looked for."""
    from generator.lint.engine import Engine
    from generator.lint.rules import REGISTRY
    from generator.lint.settings import for_cluster

    settings = for_cluster(cluster.spec, config, cluster.facts, complete_set=True)  # the whole tree
    # error-level rules keep their entry or its absence: a rule may lower a hit it is unsure of
    settings.rules.update(
        {r.meta.id: "off" for r in REGISTRY if settings.rules.get(r.meta.id, r.meta.severity) != "error"}
    )
    engine = Engine(settings, None)
    shared = _settings_key(settings)
    results = []
    for placed, digest in zip(tree.placed, digests or body_digests(tree), strict=True):
        file = f"{prefix}/{placed.relpath}"
        key = (shared, file if settings.ignores else placed.relpath, digest)
        known = _recall(_SHARED_RESULTS, key)
        if known is None:
            check = functools.partial(_object_result_of, engine, file, tree, placed)
            known = checkcache.rule_result(shared, key[1], digest, file, check)
            _remember(_SHARED_RESULTS, key, known)
        results.append(known if known.display == file else known.moved(file))
    return [f for f in engine.finish(results).findings if f.severity == "error"]


def check(
    tree: Tree,
    cluster: Cluster,
    validator: SchemaValidator,
    require_schemas: bool,
    prefix: str,
    config: dict | None = None,
    overrides: str = "",
) -> list[Diagnostic]:
    """Files too large to lint, else schema problems, then the lint rules' errors, of every
    object of ``tree`` (files shown under ``prefix``; ``overrides``: the cluster's overrides
    file as shown)."""
    too_large = oversized(tree, prefix, overrides, cluster.overrides)
    if too_large:  # megabytes of data: not worth validating, the tree is refused anyway
        return too_large
    digests = body_digests(tree)
    return validate(tree, validator, require_schemas, prefix, digests) + lint_rules(
        tree, cluster, prefix, config, digests
    )
