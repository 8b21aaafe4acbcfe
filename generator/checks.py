"""The checks of a laid-out tree: every object against its schema, then the lint rules' errors.

Render and check stop a cluster on an error here; its old tree stays.
"""

from __future__ import annotations

from dataclasses import dataclass

from generator.inputs import Cluster
from generator.layout import Tree
from generator.validate import SchemaValidator


@dataclass
class Problem:
    """Something wrong with a rendered object: ``error`` stops the render, ``warning`` does not."""

    severity: str
    file: str
    message: str
    unchecked_kind: str = ""  # set on "no schema for this kind" warnings, which the CLI groups

    def format(self) -> str:
        return f"{self.file}: {self.severity}: {self.message}"


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


def check(
    tree: Tree,
    cluster: Cluster,
    validator: SchemaValidator,
    require_schemas: bool,
    prefix: str,
    config: dict | None = None,
) -> list[Problem]:
    """Schema problems, then the lint rules' errors, of every object of ``tree`` (files shown
    under ``prefix``)."""
    return validate(tree, validator, require_schemas, prefix) + lint_rules(tree, cluster, prefix, config)
