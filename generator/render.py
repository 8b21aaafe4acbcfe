"""Cluster spec → Kubernetes objects → the file tree of ``rendered/<cluster>/``.

Jsonnet decides what objects exist; this module checks what came back, validates every
object against its schema and lays the objects out as files. Nothing is written here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from generator import bootstrap, deferred, digests, gitops, jsonnet, registry
from generator.errors import InputError
from generator.inputs import Cluster
from generator.output import MAX_FILE_NAME, Tree, build_tree, object_filename
from generator.paths import Project
from generator.validate import SchemaValidator

# Overrides patch the keyed components; flatten makes them lists once, after. `tailstrict` merges
# here, so an override that is no object is blamed on the overrides file, not on the library.
ENTRY = "local main = import 'main.libsonnet';\nfunction(spec) main.flatten(main.components(spec))"
ENTRY_WITH_OVERRIDES = (
    "local main = import 'main.libsonnet';\n"
    "function(spec) main.flatten(main.components(spec) + (import 'overrides.libsonnet')) tailstrict"
)


@dataclass
class Problem:
    """Something wrong with a rendered object: ``error`` stops the render, ``warning`` does not."""

    severity: str
    file: str
    message: str
    unchecked_kind: str = ""  # set on "no schema for this kind" warnings, which the CLI groups

    def format(self) -> str:
        return f"{self.file}: {self.severity}: {self.message}"


@dataclass
class Rendered:
    cluster: Cluster
    components: dict[str, list[dict]]
    tree: Tree
    problems: list[Problem] = field(default_factory=list)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]


def evaluate(project: Project, cluster: Cluster) -> dict[str, list[dict]]:
    """Run the Jsonnet library on the cluster's spec: ``{component: [objects]}``."""
    sandbox = jsonnet.Sandbox(project.libsonnet, cluster.folder, project.root)
    code = ENTRY_WITH_OVERRIDES if cluster.overrides else ENTRY
    blame = project.display(cluster.overrides) if cluster.overrides else jsonnet.ENTRY_NAME
    result = jsonnet.evaluate(code, sandbox, {"spec": cluster.spec}, home=cluster.folder, blame=blame)
    return _check_shape(deferred.resolve(result), project.display(cluster.overrides or cluster.folder))


# Names become file names: no path separators, no "..", no "_" (the file-name separator).
_OBJECT_NAME = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9.:]{0,251}[A-Za-z0-9])?$")
_NAMESPACE = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
_COMPONENT = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")


def _check_shape(result: object, source: str) -> dict[str, list[dict]]:
    """Refuse anything that is not ``{component: [object]}`` with safe names, before it
    reaches the file system."""
    if not isinstance(result, dict):
        raise InputError(
            f"the Jsonnet library returned {type(result).__name__}, not an object of components",
            path=source,
            hint="an override must be an object mixin such as { values+:: {...} }",
        )
    for component, objects in result.items():
        if not isinstance(objects, list):
            raise InputError(
                f"component {component!r} must be a list of objects, got {type(objects).__name__}",
                path=source,
                hint="an override replaced a component's list with something else",
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
                raise InputError(
                    f"component {component!r} item {i} is not a Kubernetes object "
                    "(apiVersion, kind and metadata.name are required)",
                    path=source,
                )
            name, namespace = meta["name"], meta.get("namespace")
            if not _OBJECT_NAME.match(name) or ".." in name:
                raise InputError(
                    f"component {component!r} item {i} ({obj['kind']}) has an invalid name {name!r}",
                    path=source,
                    hint="object names are DNS subdomains: lower-case letters, digits, '-' and '.'",
                )
            if namespace is not None and not (isinstance(namespace, str) and _NAMESPACE.match(namespace)):
                raise InputError(
                    f"component {component!r} item {i} ({obj['kind']} {name}) has an invalid namespace {namespace!r}",
                    path=source,
                    hint="a namespace is a DNS label: lower-case letters, digits and '-', at most 63 characters",
                )
            if not re.fullmatch(r"[A-Za-z][A-Za-z0-9]{0,62}", obj["kind"]):  # lower-cased, a DNS-1035 label
                raise InputError(
                    f"component {component!r} item {i} has an invalid kind {obj['kind']!r}",
                    path=source,
                    hint="a kind is a CamelCase word such as ConfigMap, at most 63 characters",
                )
            size = len(object_filename(obj).encode())
            if size > MAX_FILE_NAME:
                raise InputError(
                    f"component {component!r} item {i} ({obj['kind']} {name}) would be written to a file "
                    f"name of {size} bytes, longer than file systems allow ({MAX_FILE_NAME})",
                    path=source,
                    hint="shorten the object's name or namespace",
                )
    return result


def layout(project: Project, cluster: Cluster, components: dict[str, list[dict]]) -> Tree:
    reg = registry.load(project.libsonnet)
    own = sorted(set(components) - {c.name for c in reg.components})
    for name in own:  # added by the cluster's overrides.libsonnet; the name becomes a folder
        if not reg.own_layer or not _COMPONENT.match(name):
            raise InputError(
                f"invalid component name {name!r}: a component of one's own is named like a folder",
                path=project.display(cluster.overrides or cluster.folder),
                hint="use lower-case letters, digits and '-', e.g. 'team-settings'",
            )
    layers = [
        (
            layer,
            [(c.name, components.get(c.name, [])) for c in reg.components if c.layer == layer]
            + [(name, components[name]) for name in own if layer == reg.own_layer],
        )
        for layer in reg.layers
    ]
    sync = gitops.objects(project, cluster, layers)
    tree = build_tree(cluster.name, layers, side_folders={gitops.FOLDER: sync})
    tree.files.update(bootstrap.files(cluster.name, cluster.facts, components.get("cilium", [])))
    return tree


def validate(tree: Tree, validator: SchemaValidator, require_schemas: bool, prefix: str) -> list[Problem]:
    """Schema problems of every placed object (one missing-schema warning per kind)."""
    problems = []
    missing_reported: set[tuple[str, str]] = set()
    for placed in tree.placed:
        shown = f"{prefix}/{placed.relpath}"
        for problem in validator.check(placed.obj):
            if problem.kind == "missing-schema":
                key = (placed.obj["apiVersion"], placed.obj["kind"])
                if key in missing_reported and not require_schemas:
                    continue
                missing_reported.add(key)
                message = f"{problem.message}: not schema-checked"
                if require_schemas:
                    problems.append(Problem("error", shown, message + " (--require-schemas)"))
                else:
                    kind = f"{placed.obj['kind']} ({placed.obj['apiVersion']})"
                    problems.append(Problem("warning", shown, message, unchecked_kind=kind))
            else:
                where = "/".join(str(p) for p in problem.path)
                problems.append(
                    Problem("error", shown, f"schema: {('/' + where + ': ') if where else ''}{problem.message}")
                )
    return problems


def lint_rules(tree: Tree, cluster: Cluster, prefix: str, config: dict | None = None) -> list[Problem]:
    """The lint rules' errors on the rendered objects, with the config file's lint settings
    (``config`` is its data), so render, check and lint agree.

    Only the rules at error level run: render reports nothing else, and a finding's line and
    column cost a parse of its file, so warnings nobody prints are not looked for."""
    from generator.lint import lint_objects
    from generator.lint.rules import REGISTRY
    from generator.lint.settings import for_cluster

    settings = for_cluster(cluster.spec, config, cluster.facts)
    # error-level rules keep their entry or its absence: a rule may lower a hit it is unsure of
    settings.rules.update({r.ID: "off" for r in REGISTRY if settings.rules.get(r.ID, r.SEVERITY) != "error"})
    objects = [(f"{prefix}/{p.relpath}", tree.files[p.relpath].decode(), p.obj) for p in tree.placed]
    findings = lint_objects(objects, settings)
    return [
        Problem("error", f"{f.file}:{f.line}:{f.col}", f"{f.message} [{f.rule}]")
        for f in findings
        if f.severity == "error"
    ]


def render(
    project: Project,
    cluster: Cluster,
    validator: SchemaValidator,
    require_schemas: bool = False,
    config: dict | None = None,
) -> Rendered:
    components = evaluate(project, cluster)
    digests.check(cluster.spec, cluster.source, components)
    tree = layout(project, cluster, components)
    prefix = project.display(project.rendered / cluster.name)
    problems = [
        Problem("warning", str(w.location), f"{w.message}\n  hint: {w.hint}" if w.hint else w.message)
        for w in cluster.warnings
    ]
    problems += validate(tree, validator, require_schemas, prefix)
    problems += lint_rules(tree, cluster, prefix, config)
    return Rendered(cluster, components, tree, problems)
