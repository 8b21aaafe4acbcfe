"""Run the rules over parsed sources and turn their hits into located findings.

Per resource the work is: the rules' Python checks plus one schema validation with a
validator compiled once per kind. Line and column are looked up only for hits, so clean
documents are never re-parsed. Severity overrides, disabled rules and suppressions are
applied here, in one place, for every rule alike.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from generator.lint import suppress
from generator.lint.loader import Source
from generator.lint.model import Finding, Hit, Resource
from generator.lint.rules import REGISTRY
from generator.lint.settings import Settings
from generator.validate import SchemaValidator

# Kustomize's own files sit next to the manifests but are never applied to a cluster; its
# file names (sigs.k8s.io/kustomize/api konfig/general.go, RecognizedKustomizationFileNames) mark them
# even without apiVersion and kind, which kustomize does not require
_NOT_CLUSTER_GROUPS = ("kustomize.config.k8s.io/",)
KUSTOMIZATION_FILE_NAMES = ("kustomization.yaml", "kustomization.yml", "Kustomization")


@dataclass
class Context:
    """What rules may consult besides the object: settings, schemas, the known rule IDs, and
    the namespaces whose Namespace object (linted alongside) enforces the privileged Pod
    Security level."""

    settings: Settings
    validator: SchemaValidator | None
    rule_ids: set[str] = field(default_factory=lambda: {r.ID for r in REGISTRY})
    privileged_namespaces: set[str] = field(default_factory=set)

    def namespace_allows_privileged(self, namespace: str, rule_id: str) -> bool:
        """Host access is expected where the configuration says so or where Pod Security
        admission lets privileged pods in (``pod-security.kubernetes.io/enforce: privileged``)."""
        return self.settings.privileged_allowed(namespace, rule_id) or namespace in self.privileged_namespaces


_ENFORCE_LABEL = "pod-security.kubernetes.io/enforce"


@dataclass
class Result:
    """Findings and the parsed sources; ``report.Report`` counts and formats them."""

    findings: list[Finding]
    sources: list[Source]


def is_typed(res: Resource) -> bool:
    """Whether apiVersion and kind are non-empty strings: the other rules may rely on it."""
    return all(isinstance(res.obj.get(k), str) and res.obj.get(k) for k in ("apiVersion", "kind"))


def is_cluster_object(res: Resource) -> bool:
    api_version = res.obj.get("apiVersion")
    if isinstance(api_version, str) and api_version.startswith(_NOT_CLUSTER_GROUPS):
        return False
    return os.path.basename(res.document.file) not in KUSTOMIZATION_FILE_NAMES


def privileged_namespaces(sources: list[Source]) -> set[str]:
    """Namespaces declared with the privileged Pod Security level in the linted objects; a
    name declared twice (two clusters' trees linted at once) counts only if both agree."""
    levels: dict[str, set] = {}
    for source in sources:
        for res in source.resources:
            if res.kind == "Namespace" and res.name:
                labels = res.obj["metadata"].get("labels")
                levels.setdefault(res.name, set()).add(labels.get(_ENFORCE_LABEL) if isinstance(labels, dict) else None)
    return {name for name, found in levels.items() if found == {"privileged"}}


class Engine:
    """The rules in force for one settings object, ready to run over any number of sources."""

    def __init__(self, settings: Settings, validator: SchemaValidator | None, only: set[str] | None = None):
        self.settings = settings
        self.ctx = Context(settings, validator)
        self.severity: dict[str, str] = {}
        for rule in REGISTRY:
            level = settings.rules.get(rule.ID, rule.SEVERITY)
            if rule.ID == "K8S004" and settings.ignore_missing_schemas:
                level = "off"
            if only is not None and rule.ID not in only:
                level = "off"
            if level != "off":
                self.severity[rule.ID] = level
        active = [r for r in REGISTRY if r.ID in self.severity]
        self.document_rules = [r for r in active if r.SCOPE == "document"]
        self.object_rules = [r for r in active if r.SCOPE == "object"]
        # an object without a string apiVersion and kind only gets the rule that says so
        self.untyped_rules = [r for r in self.object_rules if getattr(r, "UNTYPED", False)]
        self.set_rules = [r for r in active if r.SCOPE == "set"]

    def run(self, sources: list[Source]) -> Result:
        self.ctx.privileged_namespaces = privileged_namespaces(sources)
        findings = self.local(sources) + self.cross(sources)
        findings.sort(key=Finding.sort_key)
        return Result(findings, sources)

    def local(self, sources: list[Source]) -> list[Finding]:
        """Findings of the document and object rules: each file on its own (can run in parallel)."""
        findings: list[Finding] = []
        for source in sources:
            for doc in source.documents:
                for rule in self.document_rules:
                    for hit in rule.check(doc, self.ctx):
                        findings.append(Finding(rule.ID, self.severity[rule.ID], hit.message, doc.file,
                                                doc.error_line or 1, doc.error_col or 1, hint=hit.hint))
            for res in source.resources:
                if not is_cluster_object(res):
                    continue
                rules = self.object_rules if is_typed(res) else self.untyped_rules
                try:
                    for rule in rules:
                        for hit in rule.check(res, self.ctx):
                            self._add(findings, rule.ID, res, hit)
                except RecursionError:
                    # the C parser copes with any depth; validators and rules recurse
                    if "K8S001" in self.severity:
                        findings.append(Finding("K8S001", self.severity["K8S001"], "nesting is too deep to check",
                                                res.document.file, res.document.first_line + 1, 1, res.ref))
        return findings

    def cross(self, sources: list[Source]) -> list[Finding]:
        """Findings of the cross-resource rules, over the index of every object by kind."""
        findings: list[Finding] = []
        if not self.set_rules:
            return findings
        index: dict[str, list[Resource]] = {}
        for source in sources:
            for res in source.resources:
                if is_typed(res) and is_cluster_object(res):
                    index.setdefault(res.kind, []).append(res)
        for rule in self.set_rules:
            for res, hit in rule.check(index, self.ctx):
                self._add(findings, rule.ID, res, hit)
        return findings

    def _add(self, findings: list[Finding], rule_id: str, res: Resource, hit: Hit) -> None:
        if rule_id != "LINT001" and rule_id in suppress.annotated(res, self.ctx.rule_ids):
            return
        if hit.checkov and hit.checkov in suppress.checkov_skips(res):
            return
        file = res.document.file
        if any(suppress.config_ignores(entry, rule_id, res, file) for entry in self.settings.ignores):
            return
        line, col = res.position(hit)
        severity = self.severity[rule_id]
        if hit.severity and rule_id not in self.settings.rules:  # the rule lowered it; the config decides
            severity = hit.severity
        findings.append(Finding(rule_id, severity, hit.message, file, line, col, res.ref, hit.hint))
