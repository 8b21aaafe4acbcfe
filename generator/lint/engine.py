"""Run the rules over documents, one file at a time, and turn their hits into located findings.

Per resource the work is: the rules' Python checks plus one schema validation with a
validator compiled once per kind. A file's documents are checked as they are parsed and
then dropped: what a file leaves behind is a ``FileResult`` (its findings, the references of
its objects, and the few facts the cross-resource rules need), small enough to keep for
every file and to cache. Severity overrides, disabled rules and suppressions are applied
here, in one place, for every rule alike.

Two things depend on other files. The cross-resource rules (``SetRule``) give per
object ``facts`` with their would-be findings already located, and decide over all facts at
the end. The Pod Security rules skip namespaces a linted Namespace marks privileged: their
findings are kept with the namespace they depend on and dropped at the end if it is one.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from generator.diagnostic import Diagnostic, Location, ObjectRef
from generator.kube import pods
from generator.lint import nonmanifests, references, suppress
from generator.lint.loader import Source, resources_of
from generator.lint.model import Document, Hit, Resource
from generator.lint.protocol import Context, DocumentRule, ObjectRule, SetRule
from generator.lint.rules import CHECKOV_EQUIVALENTS, RULE_IDS, fix_hint, registry
from generator.lint.settings import Settings
from generator.record import Frozen, Record
from generator.validate import SchemaValidator
from generator.yamlio.messages import TOO_DEEP_HINT

# Kustomize's own files sit next to the manifests but are never applied to a cluster; its
# file names (sigs.k8s.io/kustomize/api konfig/general.go, RecognizedKustomizationFileNames) mark them
# even without apiVersion and kind, which kustomize does not require. gpu-gitops's own inputs
# (``inputs.contract.GROUP``: cluster.yaml and bases; lint sits below inputs, a test holds the two
# equal) are never applied either: render and ``check`` validate them against the input schema.
_NOT_CLUSTER_GROUPS = ("kustomize.config.k8s.io/", "gpu-gitops.io/")
KUSTOMIZATION_FILE_NAMES = ("kustomization.yaml", "kustomization.yml", "Kustomization")


_ENFORCE_LABEL = "pod-security.kubernetes.io/enforce"


class FileResult(Record):
    """What one file leaves for the rest of the run (and for the cache).

    ``refs`` is empty unless the engine keeps them. ``findings`` pairs each finding with the namespace that would drop it if a linted
    Namespace declares it privileged ('' for none); ``facts`` holds ``(rule ID, fact,
    located finding or None)`` for the cross-resource rules; ``namespaces`` the Namespace
    objects' names and Pod Security enforce labels; ``objects`` counts cluster objects
    (Kustomize's own files are not), ``checked`` those of them validated against a schema (the
    run's coverage); ``warnings`` are the validator's, about the kinds checked here;
    ``passed_by``: no document is object-like (not a manifest, not checked).
    """

    __slots__ = _fields = (
        "display",
        "refs",
        "objects",
        "checked",
        "findings",
        "facts",
        "namespaces",
        "warnings",
        "passed_by",
    )

    display: str
    refs: list[ObjectRef]
    objects: int
    checked: int
    findings: list[tuple[Diagnostic, str]]
    facts: list[tuple[str, tuple, Diagnostic | None]]
    namespaces: list[tuple[str, str | None]]
    warnings: dict[str, None]
    passed_by: bool

    def __init__(
        self,
        display: str,
        refs: list[ObjectRef] | None = None,
        objects: int = 0,
        checked: int = 0,
        findings: list[tuple[Diagnostic, str]] | None = None,
        facts: list[tuple[str, tuple, Diagnostic | None]] | None = None,
        namespaces: list[tuple[str, str | None]] | None = None,
        warnings: dict[str, None] | None = None,
        passed_by: bool = False,
    ):
        self.display = display
        self.refs = [] if refs is None else refs
        self.objects = objects
        self.checked = checked
        self.findings = [] if findings is None else findings
        self.facts = [] if facts is None else facts
        self.namespaces = [] if namespaces is None else namespaces
        self.warnings = {} if warnings is None else warnings
        self.passed_by = passed_by

    def moved(self, display: str) -> FileResult:
        """The result of the same documents in another file: what was located in this one, there."""

        def there(finding: Diagnostic) -> Diagnostic:
            if finding.location.path != self.display:
                return finding
            return finding.replace(location=finding.location.replace(path=display))

        return self.replace(
            display=display,
            findings=[(there(f), namespace) for f, namespace in self.findings],
            facts=[(rule, fact, there(f) if f is not None else None) for rule, fact, f in self.facts],
        )


class Result(Record):
    """Findings and what each linted file held; ``report.Report`` counts and formats them.
    ``passed_by``: files that are no manifests, by their contents."""

    __slots__ = _fields = ("findings", "sources", "passed_by")

    findings: list[Diagnostic]
    sources: list[FileResult]
    passed_by: list[str]

    def __init__(self, findings: list[Diagnostic], sources: list[FileResult], passed_by: list[str] | None = None):
        self.findings = findings
        self.sources = sources
        self.passed_by = [] if passed_by is None else passed_by


def privileged_namespaces(results: list[FileResult]) -> set[str]:
    """Namespaces declared with the privileged Pod Security level in the linted objects; a
    name declared twice (two clusters' trees linted at once) counts only if both agree."""
    levels: dict[str, set] = {}
    for result in results:
        for name, level in result.namespaces:
            levels.setdefault(name, set()).add(level)
    return {name for name, found in levels.items() if found == {"privileged"}}


class _KindRules(Frozen):
    """The rules in force for one kind (``kinds``), by what else lets the engine skip them:
    ``templateless`` for an object without pod templates, ``with_pods`` for one with them, by
    whether a pod asks for a device and whether one names an extended resource; the set rules'
    ``facts`` for an object without pod templates, ``pod_facts`` for one with them (those
    besides that read any object's pods)."""

    __slots__ = _fields = ("templateless", "with_pods", "facts", "pod_facts")

    templateless: list[ObjectRule]
    with_pods: dict[tuple[bool, bool], list[ObjectRule]]
    facts: list[SetRule]
    pod_facts: list[SetRule]

    def __init__(
        self,
        templateless: list[ObjectRule],
        with_pods: dict[tuple[bool, bool], list[ObjectRule]],
        facts: list[SetRule],
        pod_facts: list[SetRule],
    ):
        put = object.__setattr__
        put(self, "templateless", templateless)
        put(self, "with_pods", with_pods)
        put(self, "facts", facts)
        put(self, "pod_facts", pod_facts)

    @classmethod
    def of(cls, kind: str, object_rules: list[ObjectRule], set_rules: list[SetRule]) -> _KindRules:
        rules = [r for r in object_rules if r.kinds is None or kind in r.kinds]
        return cls(
            [r for r in rules if not r.pod_templates],
            {
                (device, extended): [
                    r for r in rules if (device or not r.device_pods) and (extended or not r.extended_pods)
                ]
                for device in (False, True)
                for extended in (False, True)
            },
            [r for r in set_rules if r.kinds is None or kind in r.kinds],
            [r for r in set_rules if r.kinds is None or kind in r.kinds or r.with_pods],
        )


class _Schema:
    """What the engine keeps of one apiVersion and kind's schema: whether there is one, and the
    validator's warnings about it (it warns once per process; each file checking the kind carries them)."""

    __slots__ = ("found", "warnings")

    def __init__(self, found: bool):
        self.found = found
        self.warnings: dict[str, None] = {}


class Engine:
    """The rules in force for one settings object, ready to run over any number of files."""

    def __init__(
        self, settings: Settings, validator: SchemaValidator | None, only: set[str] | None = None, refs: bool = True
    ):
        self.settings = settings
        self.refs = refs  # keep every object's reference: memory that grows with the objects
        self.ctx = Context(settings, validator, RULE_IDS, CHECKOV_EQUIVALENTS)
        self.severity: dict[str, str] = {}
        rules = registry(cluster=settings.contract is not None)  # the cluster rules are off without one
        for rule in rules:
            level = settings.rules.get(rule.meta.id, rule.meta.severity)
            if rule.meta.id == "K8S004" and settings.ignore_missing_schemas:
                level = "off"
            if only is not None and rule.meta.id not in only:
                level = "off"
            if level != "off":
                self.severity[rule.meta.id] = level
        active = [r for r in rules if r.meta.id in self.severity]
        self.document_rules = [r for r in active if isinstance(r, DocumentRule)]
        self.object_rules = [r for r in active if isinstance(r, ObjectRule)]
        # an object without a string apiVersion and kind only gets the rule that says so
        self.untyped_rules = [r for r in self.object_rules if r.untyped]
        self.set_rules = [r for r in active if isinstance(r, SetRule)]
        self._by_kind: dict[str, _KindRules] = {}
        self._schemas: dict[tuple[str, str], _Schema] = {}  # by apiVersion and kind
        self._kustomize: tuple[str, bool] = ("", False)  # the last file asked about: is it Kustomize's own?

    def run(self, sources: list[Source]) -> Result:
        """Lint sources already in memory."""
        return self.finish([self.check_file(source.display, source.documents) for source in sources])

    def check_file(self, display: str, documents: Iterable[Document]) -> FileResult:
        """Check one file's documents as they come; none is kept. A file with no object-like
        document is no manifest (``nonmanifests.Objects``): it is passed by, not checked."""
        result = FileResult(display)
        objects = nonmanifests.Objects(documents)
        for doc in objects:
            self._check_document(doc, result)
        result.passed_by = objects.passed_by
        return result

    def finish(self, results: list[FileResult], context: list[FileResult] | None = None) -> Result:
        """The run's findings: each file's, less those a privileged Namespace drops, plus the
        cross-resource rules' over all facts, in report order. ``context``: files whose objects
        the cross-resource rules and the privileged Namespaces count, never reported."""
        context = context or []
        if self.ctx.validator is not None:
            for result in results:
                self.ctx.validator.warnings.update(result.warnings)
        privileged = privileged_namespaces(results + context)
        findings = [
            f for result in results for f, namespace in result.findings if not namespace or namespace not in privileged
        ]
        # each rule's facts, in file order, the context's last: one pass over every file's facts
        by_rule: dict[str, list[tuple[tuple, Diagnostic | None]]] = {rule.meta.id: [] for rule in self.set_rules}
        for result in results:
            for of, fact, finding in result.facts:
                if (facts := by_rule.get(of)) is not None:
                    facts.append((fact, finding))
        for result in context:
            for of, fact, _finding in result.facts:
                if (facts := by_rule.get(of)) is not None:
                    facts.append((fact, None))
        for rule in self.set_rules:
            rule_id = rule.meta.id
            found = rule.check(by_rule[rule_id], self.ctx)
            if "completeSet" in rule.options and not self.settings.complete(rule_id):
                found = map(references.as_note, found)
            findings.extend(found)
        findings = [f if f.hint else f.replace(hint=fix_hint(f.rule)) for f in findings]
        findings.sort(key=Diagnostic.sort_key)
        return Result(findings, [r for r in results if not r.passed_by], [r.display for r in results if r.passed_by])

    def _check_document(self, doc: Document, result: FileResult) -> None:
        for rule in self.document_rules:
            for hit in rule.check(doc, self.ctx):
                result.findings.append(
                    (
                        Diagnostic(
                            Location(doc.file, *(hit.at or (doc.error_line or 1, doc.error_col or 1))),
                            self._severity(rule.meta.id, hit),
                            hit.message,
                            hit.hint or fix_hint(rule.meta.id),
                            rule.meta.id,
                        ),
                        "",
                    )
                )
        for res in resources_of(doc):
            obj = res.obj
            if self.refs:
                result.refs.append(res.ref)
            kind = res.kind
            if kind == "Namespace" and res.name:
                labels = obj["metadata"].get("labels")
                level = labels.get(_ENFORCE_LABEL) if isinstance(labels, dict) else None
                # a label value is a string to the API server; anything else is a schema error, no level
                result.namespaces.append((res.name, level if isinstance(level, str) else None))
            api_version = obj.get("apiVersion")
            if isinstance(api_version, str) and api_version.startswith(_NOT_CLUSTER_GROUPS):
                continue  # no cluster object
            if self._kustomize[0] != doc.file:
                self._kustomize = (doc.file, os.path.basename(doc.file) in KUSTOMIZATION_FILE_NAMES)
            if self._kustomize[1]:
                continue
            result.objects += 1
            # apiVersion and kind non-empty strings: the other rules may rely on it
            typed = bool(kind) and isinstance(api_version, str) and bool(api_version)
            validator = self.ctx.validator
            if typed and validator is not None and isinstance(api_version, str):
                # the validator's warnings about the kind: those it gives now and those it gave
                # when it first compiled the kind (it warns once per process)
                seen, validator.warnings = validator.warnings, {}
                try:
                    self._check_object(res, typed, result)
                finally:
                    key = (api_version, kind)
                    schema = self._schemas.get(key)
                    if schema is None:
                        schema = self._schemas[key] = _Schema(validator.has_schema(*key))
                    fresh = validator.warnings
                    if fresh:
                        schema.warnings.update(fresh)
                        seen.update(fresh)
                    if schema.warnings:
                        result.warnings.update(schema.warnings)
                    validator.warnings = seen
                if schema.found:
                    result.checked += 1
            else:
                self._check_object(res, typed, result)

    def _check_object(self, res: Resource, typed: bool, result: FileResult) -> None:
        ctx = self.ctx
        found: list[tuple[str, Hit, str]] = []  # (rule, hit, namespace asked about) of each finding kept
        facts: list[tuple[str, tuple, Hit | None]] = []  # (rule, fact, its hit if kept)
        too_deep = False
        try:
            set_rules: list[SetRule] = []
            if not typed:
                rules = self.untyped_rules
            else:
                kind = res.kind
                by_kind = self._by_kind.get(kind) or self._by_kind.setdefault(
                    kind, _KindRules.of(kind, self.object_rules, self.set_rules)
                )
                if not (templates := pods.templates(res.obj)):
                    rules, set_rules = by_kind.templateless, by_kind.facts
                else:
                    rules = by_kind.with_pods[
                        any(map(pods.uses_devices, templates)), any(map(pods.names_extended, templates))
                    ]
                    set_rules = by_kind.pod_facts
            for rule in rules:
                ctx.asked = ""
                rule_id = rule.meta.id
                for hit in rule.check(res, ctx):
                    if self._kept(rule_id, res, hit):
                        found.append((rule_id, hit, ctx.asked))
            for set_rule in set_rules:
                rule_id = set_rule.meta.id
                for fact, fact_hit in set_rule.facts(res, ctx):
                    facts.append((rule_id, fact, fact_hit if fact_hit and self._kept(rule_id, res, fact_hit) else None))
        except RecursionError:
            too_deep = True  # the C parser copes with any depth; validators and rules recurse
        if found or any(hit for _, _, hit in facts):
            # the object's findings located in one read of its document
            where = iter(res.positions([hit for _, hit, _ in found] + [hit for _, _, hit in facts if hit]))
            result.findings.extend(
                (self._finding(rule_id, res, hit, next(where)), asked) for rule_id, hit, asked in found
            )
            result.facts.extend(
                (rule_id, fact, self._finding(rule_id, res, hit, next(where)) if hit else None)
                for rule_id, fact, hit in facts
            )
        else:
            result.facts.extend((rule_id, fact, None) for rule_id, fact, _ in facts)
        if too_deep and "K8S001" in self.severity:
            result.findings.append(
                (
                    Diagnostic(
                        Location(res.document.file, res.document.first_line + 1, 1),
                        self.severity["K8S001"],
                        "nesting is too deep to check",
                        TOO_DEEP_HINT,
                        rule="K8S001",
                        ref=res.ref,
                    ),
                    "",
                )
            )

    def _kept(self, rule_id: str, res: Resource, hit: Hit) -> bool:
        """Whether a hit stands: neither the object nor the config file suppresses it."""
        if rule_id != "LINT001" and rule_id in suppress.annotated(res, self.ctx.rule_ids):
            return False
        if hit.checkov and hit.checkov in suppress.checkov_skips(res):
            return False
        file = res.document.file
        return not any(suppress.config_ignores(entry, rule_id, res, file) for entry in self.settings.ignores)

    def _finding(self, rule_id: str, res: Resource, hit: Hit, at: tuple[int, int]) -> Diagnostic:
        """The finding of a hit that stands, located at ``at`` (line and column)."""
        hint = hit.hint or fix_hint(rule_id)  # every finding has a hint, read from its rule's docs when needed
        return Diagnostic(
            Location(res.document.file, *at), self._severity(rule_id, hit), hit.message, hint, rule_id, res.ref
        )

    def _severity(self, rule_id: str, hit: Hit) -> str:
        """The rule's severity, or the lower one a hit asks for unless the config sets the rule's."""
        if hit.severity and rule_id not in self.settings.rules:
            return hit.severity
        return self.severity[rule_id]
