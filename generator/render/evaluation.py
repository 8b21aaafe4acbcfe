"""Cluster spec → ``{component: [objects]}``: the Jsonnet library evaluated, its result checked.

Jsonnet decides what objects exist. What comes back is refused unless it is
``{component: [object]}`` with names that are safe as file names, before anything is laid out.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from generator import regex
from generator.errors import InputError
from generator.inputs.load import Cluster
from generator.library import jsonnet
from generator.paths import Project
from generator.render.layout import MAX_FILE_NAME, object_filename

# Overrides patch the keyed components; flatten makes them lists once, after. `tailstrict` merges
# here, so an override that is no object is blamed on the overrides file, not on the library.
ENTRY = "local main = import 'main.libsonnet';\nfunction(spec) main.flatten(main.components(spec))"
ENTRY_WITH_OVERRIDES = (
    "local main = import 'main.libsonnet';\n"
    "function(spec) main.flatten(main.components(spec) + (import 'overrides.libsonnet')) tailstrict"
)
# ENTRY for several clusters without Jsonnet of their own at a time (see evaluate_many).
ENTRY_FOR_MANY = (
    "local main = import 'main.libsonnet';\nfunction(specs) [main.flatten(main.components(spec)) for spec in specs]"
)
# Clusters per evaluation of ENTRY_FOR_MANY: the engine parses the library once for them (~190 M
# instructions, against ~50 M for each cluster's own evaluation; with its imports, ~20 ms an
# evaluation), and both the evaluation's child (the engine frees nothing: ~3.5 MiB a cluster,
# ``library.helper``) and the main process (their objects until they are written) hold them at
# once. At 1,000 clusters the largest process peaked at 160 MB with 32, 124 MB with 24 and 89 MB
# with 16 (every process of the render counted, ``bench/bench_all.py``'s ``peak_rss``); 24 costs
# ~1% more CPU than 32, 16 ~4% (the parse, once per evaluation; docs/performance.md).
MANY = 24

Components = dict[str, list[dict]]


def evaluate(project: Project, cluster: Cluster) -> Components:
    """Run the Jsonnet library on the cluster's spec: ``{component: [objects]}``."""
    sandbox = jsonnet.Sandbox(project.libsonnet, cluster.folder, project.root)
    code = ENTRY_WITH_OVERRIDES if cluster.overrides else ENTRY
    blame = project.display(cluster.overrides) if cluster.overrides else jsonnet.ENTRY_NAME
    result = jsonnet.evaluate(code, sandbox, {"spec": cluster.spec}, home=cluster.folder, blame=blame, markers=True)
    return _check_shape(result, project.display(cluster.overrides or cluster.folder), cluster.overrides)


def evaluate_many(project: Project, clusters: list[Cluster]) -> list[Components | InputError]:
    """Each cluster's components, or the input error that stopped it, in order.

    The engine parses the library again for every evaluation, about half of a cluster's
    evaluation time: clusters whose folder holds no Jsonnet of their own (no
    ``overrides.libsonnet``, no ``main.libsonnet`` that ENTRY's import would find first) give
    the same result evaluated ``MANY`` at a time against the library alone. A batch that
    fails is evaluated again cluster by cluster, so each error is the one its cluster gives.
    """
    results: list[Components | InputError | None] = [None] * len(clusters)
    alike = [i for i, c in enumerate(clusters) if not c.overrides and not os.path.lexists(c.folder / "main.libsonnet")]
    sandbox = jsonnet.Sandbox(project.libsonnet, None, project.root)
    for start in range(0, len(alike), MANY):
        batch = alike[start : start + MANY]
        try:
            many = jsonnet.evaluate(
                ENTRY_FOR_MANY,
                sandbox,
                {"specs": [clusters[i].spec for i in batch]},
                home=project.libsonnet,
                markers=True,
            )
        except InputError:
            continue  # one by one below
        assert isinstance(many, list) and len(many) == len(batch)  # ENTRY_FOR_MANY maps the list
        for i, result in zip(batch, many, strict=True):
            try:
                results[i] = _check_shape(result, project.display(clusters[i].folder))
            except InputError as exc:
                results[i] = exc
    for i, cluster in enumerate(clusters):
        if results[i] is None:
            try:
                results[i] = evaluate(project, cluster)
            except InputError as exc:
                results[i] = exc
    return [r for r in results if r is not None]


# Names become file names: no path separators, no "..", no "_" (the file-name separator).
_OBJECT_NAME = regex.compile(r"^[A-Za-z0-9]([-A-Za-z0-9.:]{0,251}[A-Za-z0-9])?$")
_NAMESPACE = regex.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")


def _check_shape(result: object, source: str, overrides: Path | None = None) -> Components:
    """Refuse anything that is not ``{component: [object]}`` with safe names, before it
    reaches the file system; each refusal at the line of ``overrides`` that writes it, when
    that file writes it."""

    def refuse(message: str, hint: str, component: str | None = None, value: object = None) -> InputError:
        written = None
        if overrides is not None and component is not None:
            written = jsonnet.find_written(overrides, [component], value if isinstance(value, str) else None)
        line, col = written or (0, 0)
        return InputError(message, path=source, line=line, col=col, hint=hint)

    if not isinstance(result, dict):
        raise refuse(
            f"the Jsonnet library returned {type(result).__name__}, not an object of components",
            "an override must be an object mixin such as { values+:: {...} }",
        )
    for component, objects in result.items():
        if not isinstance(objects, list):
            raise refuse(
                f"component {component!r} must be an object of Kubernetes objects (or a list), "
                f"got {type(objects).__name__}",
                "an override replaced the whole component; patch one object with "
                "'<component>'+: { '<key>'+: {...} } (docs/overrides.md)",
                component,
            )
        for i, obj in enumerate(objects):
            meta = obj.get("metadata") if isinstance(obj, dict) else None
            if not (
                isinstance(obj, dict)
                and isinstance(obj.get("apiVersion"), str)
                and isinstance(obj.get("kind"), str)
                and isinstance(meta, dict)
                and isinstance(meta.get("name"), str)
                and meta["name"]
            ):
                raise refuse(
                    f"component {component!r} item {i} is not a Kubernetes object "
                    "(apiVersion, kind and metadata.name are required)",
                    "give each object apiVersion, kind and metadata.name as strings",
                    component,
                )
            name, namespace = meta["name"], meta.get("namespace")
            if not _OBJECT_NAME.match(name) or ".." in name:
                raise refuse(
                    f"component {component!r} item {i} ({obj['kind']}) has an invalid name {name!r}",
                    "object names are DNS subdomains: lower-case letters, digits, '-' and '.'",
                    component,
                    name,
                )
            if namespace is not None and not (isinstance(namespace, str) and _NAMESPACE.match(namespace)):
                raise refuse(
                    f"component {component!r} item {i} ({obj['kind']} {name}) has an invalid namespace {namespace!r}",
                    "a namespace is a DNS label: lower-case letters, digits and '-', at most 63 characters",
                    component,
                    namespace,
                )
            if not re.fullmatch(r"[A-Za-z][A-Za-z0-9]{0,62}", obj["kind"]):  # lower-cased, a DNS-1035 label
                raise refuse(
                    f"component {component!r} item {i} has an invalid kind {obj['kind']!r}",
                    "a kind is a CamelCase word such as ConfigMap, at most 63 characters",
                    component,
                    obj["kind"],
                )
            size = len(object_filename(obj).encode())
            if size > MAX_FILE_NAME:
                raise refuse(
                    f"component {component!r} item {i} ({obj['kind']} {name}) would be written to a file "
                    f"name of {size} bytes, longer than file systems allow ({MAX_FILE_NAME})",
                    "shorten the object's name or namespace",
                    component,
                    name,
                )
    return result
