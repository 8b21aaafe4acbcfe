"""Cluster spec → checked file tree of ``rendered/<cluster>/``: evaluate → inflate the charts → hydrate
those the input asks for → lay out → check.

Each step is its own module (``evaluation``, ``layout``, ``checks``); this one composes them
for one cluster. Nothing is written here (``tree`` does that).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from generator.diagnostic import Diagnostic, Location
from generator.errors import InputError
from generator.inputs.load import Cluster
from generator.library import digests
from generator.paths import Project
from generator.render import gitops, hydrate
from generator.render.charts import Previews, crd_schemas, previews
from generator.render.checks import check
from generator.render.evaluation import Components, evaluate
from generator.render.layout import Tree, lay_out, layers_of
from generator.validate import SchemaValidator


@dataclass
class Rendered:
    cluster: Cluster
    components: Components
    tree: Tree
    charts: Previews = field(default_factory=Previews)  # the releases inflated into charts/
    problems: list[Diagnostic] = field(default_factory=list)  # an error stops the render, a warning does not

    @property
    def errors(self) -> list[Diagnostic]:
        return [p for p in self.problems if p.severity == "error"]


def render(
    project: Project,
    cluster: Cluster,
    validator: SchemaValidator,
    require_schemas: bool = False,
    config: dict | None = None,
) -> Rendered:
    """One cluster's tree and its problems (the input's warnings first); an ``InputError``
    when its objects cannot be evaluated or laid out."""
    return render_evaluated(project, cluster, evaluate(project, cluster), validator, require_schemas, config)


_NOTE_HINT = (
    "review that part against the cluster, or set the chart's values so it does not depend on it "
    '(docs/charts.md, "Where helm template differs from an install in the cluster")'
)


def render_evaluated(
    project: Project,
    cluster: Cluster,
    components: Components,
    validator: SchemaValidator,
    require_schemas: bool = False,
    config: dict | None = None,
    sync: list[dict] | None = None,
) -> Rendered:
    """``render`` for components already evaluated (``evaluation.evaluate_many``); ``sync``:
    the GitOps engine's objects, when evaluated with other clusters' (``gitops_many``)."""
    digests.check(cluster.spec, cluster.source, components)
    charts = previews(project, cluster, components)
    validator = _with_chart_crds(validator, crd_schemas(charts, [o for objs in components.values() for o in objs]))
    hydrated = hydrate.apply(project, cluster, components, charts)
    tree = lay_out(project, cluster, components, charts.folders, hydrated, sync)
    prefix = project.display(project.rendered / cluster.name)
    problems = [d for w in cluster.warnings for d in w.diagnostics]
    problems += [
        Diagnostic(Location(f"{prefix}/{folder}"), "warning", note, _NOTE_HINT)
        for folder, notes in charts.notes.items()
        for note in notes
    ]
    overrides = project.display(cluster.overrides) if cluster.overrides else ""
    problems += check(tree, cluster, validator, require_schemas, prefix, config, overrides)
    return Rendered(cluster, components, tree, charts, problems)


def gitops_many(project: Project, evaluated: list[tuple[Cluster, Components]]) -> list[list[dict] | None]:
    """The GitOps engine's objects of each cluster, evaluated together: for a cluster whose
    components are laid out as evaluated (no release of it hydrated or handed over: ``hydrate``
    changes the layers' kinds), else None, for ``lay_out`` to evaluate once it knows them. All
    None when the evaluation fails: each cluster's own evaluation then reports its error."""
    found: list[list[dict] | None] = [None] * len(evaluated)
    ready: list[tuple[int, dict]] = []
    for i, (cluster, components) in enumerate(evaluated):
        if hydrate.modes(cluster):
            continue
        try:
            ready.append((i, gitops.params(cluster, layers_of(project, cluster, components))))
        except InputError:
            continue  # reported by the cluster's render
    if ready:
        try:
            many = gitops.objects_many(project, [p for _, p in ready])
        except InputError:
            return found
        for (i, _), objects in zip(ready, many, strict=True):
            found[i] = objects
    return found


# Validators with a fleet's CRDs: the clusters that install the same CRDs share one (and with it
# the verdicts on their shared objects, ``checks._VERDICTS``), as ``charts.crd_schemas`` gives
# them the same documents. Keyed by the base validator and the schema documents, all kept so no
# id is reused while its entry is. Bounded: emptied when full.
_OVERLAYS: dict[tuple, tuple[SchemaValidator, list[dict], SchemaValidator]] = {}
_OVERLAYS_MAX = 64


def _with_chart_crds(validator: SchemaValidator, schemas: dict[tuple[str, str], dict]) -> SchemaValidator:
    if not schemas:
        return validator
    documents = [schemas[k] for k in sorted(schemas)]
    key = (id(validator), *(id(d) for d in documents))
    known = _OVERLAYS.get(key)
    if known is None or known[0] is not validator or any(a is not b for a, b in zip(known[1], documents, strict=True)):
        if len(_OVERLAYS) >= _OVERLAYS_MAX:
            _OVERLAYS.clear()
        known = _OVERLAYS[key] = (validator, documents, validator.with_schemas(schemas))
    return known[2]
