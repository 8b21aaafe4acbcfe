"""Every rule against its fixtures and its docstring's examples.

A failing fixture marks each line where its rule must report with ``# <- RULE-ID``; the
test compares the set of (line, rule) pairs, so a finding on the wrong line fails as much
as a missing one. A passing fixture must give no finding of its rule. A fixture or example
that needs settings carries them in a leading ``# gpu-gitops-config: {...}`` comment (the
``.gpu-gitops.yaml`` content, checked against the config schema like the file itself).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import validate_json

from generator.inputs import consistency
from generator.lint import examples as rule_examples
from generator.lint import lint_paths
from generator.lint.clusters import settings_for
from generator.lint.protocol import ObjectRule, SetRule
from generator.lint.rules import BY_ID, REGISTRY, examples
from generator.lint.settings import Settings
from generator.paths import Project

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
REPO = Path(__file__).resolve().parents[2]
CONFIG_SCHEMA = json.loads((REPO / "schemas" / "config.schema.json").read_text(encoding="utf-8"))
_MARK = re.compile(r"#\s*<-\s*([A-Z][A-Z0-9]*[0-9]{3})")


def _cases(verdict: str):
    """The lint rules' fixtures (the input checks' are tests/inputs/test_input_checks.py's)."""
    return sorted(
        (p.parent.parent.name, p) for p in FIXTURES.glob(f"*/{verdict}/*.yaml") if p.parent.parent.name in BY_ID
    )


def _settings(text: str) -> Settings:
    """The settings a fixture asks for; ``lint.cluster`` names one of this repository's example clusters."""
    config = rule_examples.config_comment(text)
    validate_json(config, CONFIG_SCHEMA)
    cluster = config.get("lint", {}).get("cluster")
    if cluster:
        return settings_for(Project(REPO), config, cluster)
    return Settings.from_config(config)


def _lint(rule_id: str, path: Path):
    return [
        f for f in lint_paths([str(path)], _settings(path.read_text(encoding="utf-8"))).findings if f.rule == rule_id
    ]


@pytest.mark.parametrize(("rule_id", "path"), _cases("fail"), ids=lambda v: getattr(v, "name", v))
def test_failing_fixture_reports_marked_lines(rule_id, path):
    expected = {
        (n, m.group(1))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        for m in _MARK.finditer(line)
    }
    assert expected, f"{path} marks no line"
    found = {(f.line, f.rule) for f in _lint(rule_id, path)}
    assert found == expected


@pytest.mark.parametrize(("rule_id", "path"), _cases("pass"), ids=lambda v: getattr(v, "name", v))
def test_passing_fixture_is_clean(rule_id, path):
    assert _lint(rule_id, path) == []


def _examples():
    return [
        pytest.param(rule, example, id=f"{rule.meta.id}-{example.verdict}-{n}")
        for rule in REGISTRY
        for n, example in enumerate(examples(rule.meta), 1)
    ]


@pytest.mark.parametrize(("rule", "example"), _examples())
def test_docstring_examples_do_what_they_say(rule, example, tmp_path):
    """A PASS example gives no finding of its rule, a FAIL example exactly one."""
    path = tmp_path / "example.yaml"
    path.write_text(example.text, encoding="utf-8")
    found = [f for f in lint_paths([str(path)], _settings(example.text)).findings if f.rule == rule.meta.id]
    assert len(found) == (1 if example.verdict == "FAIL" else 0), [f.message for f in found]


def test_every_rule_has_pass_and_fail_examples_after_its_fix():
    for rule in REGISTRY:
        assert {e.verdict for e in examples(rule.meta)} == {"PASS", "FAIL"}, rule.meta.id
        prose, _ = rule_examples.split(rule.meta.doc)
        assert "PASS" not in prose.split("\n\nFix:")[-1].split() and "\n\nFix:" in prose, rule.meta.id


def test_examples_are_split_from_the_docstring():
    doc = (
        "What it finds.\n\n    Fix: do this.\n\n    PASS:\n\n        # gpu-gitops-config: {lint: {provider: aks}}\n"
        "        kind: A\n\n    FAIL:\n\n        kind: B\n        spec: {}\n"
    )
    prose, found = rule_examples.split(doc)
    assert prose == "What it finds.\n\nFix: do this."
    assert [(e.verdict, e.text) for e in found] == [
        ("PASS", "# gpu-gitops-config: {lint: {provider: aks}}\nkind: A\n"),
        ("FAIL", "kind: B\nspec: {}\n"),
    ]
    assert rule_examples.config_comment(found[0].text) == {"lint": {"provider": "aks"}}
    assert rule_examples.config_comment(found[1].text) == {}


def test_config_comment_counts_only_before_the_yaml():
    assert rule_examples.config_comment("# about\n# gpu-gitops-config: {lint: {provider: eks}}\nkind: A\n") == {
        "lint": {"provider": "eks"}
    }
    assert rule_examples.config_comment("kind: A\n# gpu-gitops-config: {lint: {provider: eks}}\n") == {}
    with pytest.raises(ValueError, match="needs a mapping"):
        rule_examples.config_comment("# gpu-gitops-config: [lint]\n")


def test_every_rule_has_passing_and_failing_fixtures():
    assert not list(FIXTURES.glob("*/*/*.yml")), "fixtures end in .yaml"
    for rule in REGISTRY:
        assert list((FIXTURES / rule.meta.id / "fail").glob("*.yaml")), rule.meta.id
        assert list((FIXTURES / rule.meta.id / "pass").glob("*.yaml")), rule.meta.id
    assert {p.name for p in FIXTURES.iterdir() if p.is_dir()} == set(BY_ID) | set(consistency.BY_ID)


def test_severity_follows_the_rule_default():
    path = FIXTURES / "GPU007" / "fail" / "no-memory-limit.yaml"
    assert {f.severity for f in _lint("GPU007", path)} == {"warning"}
    path = FIXTURES / "GPU001" / "fail" / "request-only.yaml"
    assert {f.severity for f in _lint("GPU001", path)} == {"error"}


def test_gpu_taint_rules_warn_with_a_hint_without_cluster_context():
    path = FIXTURES / "GPU004" / "fail" / "no-tolerations-at-all.yaml"
    [guess] = _lint("GPU004", path)
    assert guess.severity == "warning" and "lint.taintKeys" in guess.hint
    settings = Settings(taint_keys=["nvidia.com/gpu"])
    [known] = [f for f in lint_paths([str(path)], settings).findings if f.rule == "GPU004"]
    assert known.severity == "error" and "lint.taintKeys" not in known.hint and "nvidia.com/gpu" in known.hint
    overridden = Settings(rules={"GPU004": "error"})
    assert {f.severity for f in lint_paths([str(path)], overridden).findings if f.rule == "GPU004"} == {"error"}


def test_a_namespace_declared_differently_by_two_trees_is_not_exempt(tmp_path):
    privileged = (FIXTURES / "SEC001" / "pass" / "privileged-namespace.yaml").read_text(encoding="utf-8")
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "all.yaml").write_text(privileged, encoding="utf-8")
    assert [f for f in lint_paths([str(tmp_path)], Settings()).findings if f.rule == "SEC001"] == []
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "namespace.yaml").write_text(
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: gpu-operator\n"
        "  labels: {pod-security.kubernetes.io/enforce: baseline}\n",
        encoding="utf-8",
    )
    assert [f.rule for f in lint_paths([str(tmp_path)], Settings()).findings if f.rule == "SEC001"] == ["SEC001"]


def test_explain_shows_examples_from_the_package_alone(tmp_path):
    """As installed: the package without the source tree (no tests/), run from elsewhere."""
    package = Path(__file__).resolve().parents[2] / "generator"
    shutil.copytree(
        package, tmp_path / "site" / "generator", symlinks=True, ignore=shutil.ignore_patterns("__pycache__")
    )
    code = "import generator, sys; from generator.cli import main; print(generator.__file__); main()"
    done = subprocess.run(
        [sys.executable, "-c", code, "explain", "GPU004"],
        cwd=tmp_path,
        capture_output=True,
        encoding="utf-8",
        env={**os.environ, "PYTHONPATH": str(tmp_path / "site")},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(str(tmp_path / "site" / "generator"))
    assert "\n--- pass\n# gpu-gitops-config: {lint: {provider: aks}}\napiVersion: v1\n" in done.stdout
    assert "\n--- fail\n" in done.stdout and "Option taintKeys (lint.rules.GPU004.taintKeys)" in done.stdout


def test_rule_options_come_from_the_rule_then_the_shared_setting_then_the_default():
    settings = Settings.from_config(
        {
            "lint": {
                "taintKeys": ["sku"],
                "rules": {
                    "GPU004": {"level": "warning", "taintKeys": []},
                    "SEC001": {"allowedPrivilegedNamespaces": ["gpu-operator"]},
                },
            }
        }
    )
    assert settings.gpu_taint_keys("GPU004") == () and settings.gpu_taint_keys("XR005") == ("sku",)
    assert settings.rules == {"GPU004": "warning"}
    assert settings.privileged_allowed("gpu-operator", "SEC001")
    assert not settings.privileged_allowed("gpu-operator", "SEC002")
    assert Settings().option("SEC002", "allowedPrivilegedNamespaces") == []
    assert Settings(provider="aks").gpu_taint_keys("XR005") == ("nvidia.com/gpu", "amd.com/gpu")


def test_a_rule_option_changes_only_that_rule(tmp_path):
    path = tmp_path / "agent.yaml"
    path.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: agent, namespace: gpu-operator}\nspec:\n"
        "  hostNetwork: true\n  containers:\n    - name: main\n      image: busybox:1.36\n"
        "      securityContext: {privileged: true}\n",
        encoding="utf-8",
    )
    settings = Settings.from_config({"lint": {"rules": {"SEC001": {"allowedPrivilegedNamespaces": ["gpu-operator"]}}}})
    rules = {f.rule for f in lint_paths([str(path)], settings).findings}
    assert "SEC001" not in rules and "SEC003" in rules


def _config_errors(tmp_path, text: str) -> list[str]:
    from generator.config import load_config
    from generator.errors import InputErrors
    from generator.paths import Project

    (tmp_path / ".gpu-gitops.yaml").write_text(text, encoding="utf-8")
    try:
        load_config(Project(tmp_path))
    except InputErrors as exc:
        return [e.format() for e in exc.errors]
    return []


def test_config_rule_options_are_checked_against_the_rule_with_their_line(tmp_path):
    errors = _config_errors(
        tmp_path,
        "lint:\n  rules:\n    GPU004: {level: warning, taintKey: [sku]}\n"
        "    SEC001:\n      allowedPrivilegedNamespaces: gpu-operator\n"
        "    GPU001: {maxGpus: 8}\n",
    )
    assert len(errors) == 3, errors
    assert errors[0].startswith(".gpu-gitops.yaml:3:30: error: unknown option 'taintKey' for rule GPU004")
    assert "did you mean 'taintKeys'?" in errors[0]
    assert errors[1].startswith(
        ".gpu-gitops.yaml:5:36: error: SEC001 option allowedPrivilegedNamespaces: 'gpu-operator' is not of type 'array'"
    )
    assert "GPU001 has no options, only `level`" in errors[2]


def test_config_rule_level_alone_or_in_a_mapping(tmp_path):
    assert _config_errors(tmp_path, "lint:\n  rules:\n    SEC006: off\n    GPU007: {level: error}\n") == []
    [error] = _config_errors(tmp_path, "lint:\n  rules:\n    GPU007: {level: loud}\n")
    assert error.startswith(".gpu-gitops.yaml:3:21: error: lint.rules.GPU007.level: 'loud' is not allowed")


def test_the_config_documented_in_lint_md_is_valid(tmp_path):
    text = (Path(__file__).resolve().parents[2] / "docs" / "lint.md").read_text(encoding="utf-8")
    [block] = [b for b in re.findall(r"```yaml\n(.*?)```", text, flags=re.S) if b.startswith("schemaLocations")]
    assert "allowedPrivilegedNamespaces: [gpu-operator]" in block
    assert _config_errors(tmp_path, block) == []


def test_a_rendered_clusters_gpu_pool_taints_win_over_a_rules_taint_keys():
    from generator.lint.settings import for_cluster

    config = {"lint": {"rules": {"GPU004": {"taintKeys": ["sku"]}}}}
    spec = {
        "kubernetesVersion": "1.31",
        "provider": "aks",
        "nodePools": [{"gpu": {}, "taints": [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}]}],
    }
    assert for_cluster(spec, config).gpu_taint_keys("GPU004") == ("nvidia.com/gpu",)
    assert for_cluster({**spec, "nodePools": []}, config).gpu_taint_keys("GPU004") == ("sku",)


def test_rules_that_read_only_pod_templates_find_nothing_where_there_is_none():
    """``pod_templates`` lets the engine skip a rule for objects without pod templates: every
    rule that sets it finds nothing in such an object, on every fixture and example, with
    the most permissive settings and with none (a ``cluster`` rule only where there is a cluster)."""
    from generator.kube import pods
    from generator.lint.engine import Context

    flagged = [rule for rule in REGISTRY if isinstance(rule, ObjectRule) and rule.pod_templates]
    assert len(flagged) >= 18
    texts = [p.read_text(encoding="utf-8") for p in FIXTURES.rglob("*.yaml")] + [
        e.text for r in REGISTRY for e in examples(r.meta)
    ]
    checked = 0
    for text in texts:
        plain = [
            res for res in _resources(text) if isinstance(res.obj.get("kind"), str) and not pods.templates(res.obj)
        ]
        every = (Settings(), _settings(text)) if plain else ()
        for res in plain:
            for settings in every:
                ctx = Context(settings, None, set(BY_ID), {})
                for rule in flagged:
                    if settings.contract is not None or not rule.cluster:
                        assert list(rule.check(res, ctx)) == [], (rule.meta.id, res.obj.get("kind"))
            checked += 1
    assert checked > 20


def test_rules_that_judge_some_kinds_find_nothing_in_other_kinds():
    """``kinds`` lets the engine skip a rule for objects of other kinds: every rule that
    declares them finds nothing (a set rule gives no fact) in an object of another kind (one
    ``with_pods``: of another kind and without pod templates), on every fixture and example,
    nor in a copy of an object of its kinds under another kind, with the most permissive
    settings, with none, and against a cluster's contract."""
    from generator.kube import pods
    from generator.lint.engine import Context

    declared = [rule for rule in REGISTRY if rule.kinds is not None]
    assert {rule.meta.id for rule in declared} >= {"API003", "K8S005", "K8S010", "XR001", "XR005", "XR006"}
    assert all(isinstance(rule.kinds, frozenset) and all(isinstance(k, str) for k in rule.kinds) for rule in declared)
    texts = [p.read_text(encoding="utf-8") for p in FIXTURES.rglob("*.yaml")] + [
        e.text for r in REGISTRY for e in examples(r.meta)
    ]
    contract = settings_for(Project(REPO), {}, "aks-h100-training")
    checked = renamed = 0
    for text in texts:
        for res in _resources(text):
            kind = res.obj.get("kind")
            if not isinstance(kind, str) or not kind or not isinstance(res.obj.get("apiVersion"), str):
                continue
            for settings in (Settings(), _settings(text), contract):
                ctx = Context(settings, None, set(BY_ID), {})
                for rule in declared:
                    if rule.cluster and settings.contract is None:
                        continue
                    assert rule.kinds is not None
                    if kind in rule.kinds:
                        res = res.replace(obj={**res.obj, "kind": "NoRuleKnowsThisKind"})
                        renamed += 1
                    if isinstance(rule, SetRule) and rule.with_pods and pods.templates(res.obj):
                        assert kind not in rule.kinds  # a renamed copy has none
                    else:
                        found = rule.facts(res, ctx) if isinstance(rule, SetRule) else rule.check(res, ctx)
                        assert list(found) == [], (rule.meta.id, kind)
                    res = res.replace(obj={**res.obj, "kind": kind})
            checked += 1
    assert checked > 50 and renamed > 20


def test_the_engine_runs_a_rule_only_on_objects_of_its_kinds(monkeypatch, tmp_path):
    calls = _record_calls(monkeypatch, "K8S010")
    found = _rules_found(
        tmp_path,
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: n}\n---\n"
        "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: p, namespace: n}\n"
        "spec: {minAvailable: 1, maxUnavailable: 1, selector: {matchLabels: {a: b}}}\n",
    )
    assert calls == ["PodDisruptionBudget"] and "K8S010" in found


def test_the_engine_gives_a_set_rule_with_pods_its_kinds_and_objects_with_pod_templates(monkeypatch, tmp_path):
    rule = BY_ID["XR007"]
    assert isinstance(rule, SetRule) and rule.with_pods and rule.kinds == {"PriorityClass"}
    calls = _record_calls(monkeypatch, "XR007", "facts")
    found = _rules_found(
        tmp_path,
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: n}\n---\n"
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\n---\n"
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: n}\nspec:\n"
        "  priorityClassName: low\n  containers: [{name: c, image: busybox}]\n",
    )
    assert calls == ["PriorityClass", "Pod"] and "XR007" in found


def _resources(text: str):
    from generator.lint.loader import parse_text, resources_of

    return [res for doc in parse_text(text, "x.yaml") for res in resources_of(doc)]


def _record_calls(monkeypatch, rule_id: str, hook: str = "check") -> list[str]:
    """The kinds of the objects the rule's ``hook`` (an object rule's ``check``, a set rule's
    ``facts``) is called on from now on (it still runs)."""
    from generator.lint import engine

    calls: list[str] = []
    rule = BY_ID[rule_id]
    assert isinstance(rule, ObjectRule if hook == "check" else SetRule)
    original = getattr(rule, hook)
    recording = rule.replace(**{hook: lambda res, ctx: calls.append(res.kind) or original(res, ctx)})
    real = engine.registry
    monkeypatch.setattr(
        engine, "registry", lambda cluster=True: tuple(recording if r is rule else r for r in real(cluster))
    )
    return calls


def _rules_found(tmp_path, text: str, settings: Settings | None = None) -> set[str]:
    """The IDs of the rules a lint of ``text`` (one file) reports."""
    path = tmp_path / "objects.yaml"
    path.write_text(text, encoding="utf-8")
    return {f.rule for f in lint_paths([str(path)], settings or Settings()).findings}


def test_the_engine_does_not_run_template_rules_on_objects_without_templates(monkeypatch, tmp_path):
    calls = _record_calls(monkeypatch, "SEC002")
    found = _rules_found(
        tmp_path,
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: n}\n---\n"
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: n}\nspec:\n"
        "  containers: [{name: c, image: busybox}]\n  volumes: [{name: h, hostPath: {path: /x}}]\n",
    )
    assert calls == ["Pod"] and "SEC002" in found


def test_rules_that_judge_only_device_pods_find_nothing_in_pods_that_ask_for_none():
    """``device_pods`` lets the engine skip a rule for objects none of whose pods asks for a
    device: every rule that sets it finds nothing in such an object, on every fixture and
    example, against each example cluster's contract."""
    from generator.kube import pods

    flagged = [rule for rule in REGISTRY if isinstance(rule, ObjectRule) and rule.device_pods]
    assert {rule.meta.id for rule in flagged} >= {"CL001", "CL002", "CL003", "CL005"} | _DEVICE_RULES
    _assert_skipped_rules_find_nothing(flagged, pods.uses_devices)


# the rules about GPUs and huge pages, which a pod asking for neither cannot break
_DEVICE_RULES = {"GPU004", "GPU005", "GPU006", "GPU007", "GPU008", "HP001", "HP002", "HP003"}


def test_rules_that_judge_only_extended_resources_find_nothing_in_pods_that_name_none():
    """``extended_pods`` lets the engine skip a rule for objects none of whose containers names
    an extended resource: every rule that sets it finds nothing in such an object."""
    from generator.kube import pods

    flagged = [rule for rule in REGISTRY if isinstance(rule, ObjectRule) and rule.extended_pods]
    assert {rule.meta.id for rule in flagged} == {"GPU001", "GPU002", "GPU003"}
    _assert_skipped_rules_find_nothing(flagged, pods.names_extended)


def _assert_skipped_rules_find_nothing(flagged: list[ObjectRule], asks) -> None:
    """Every rule of ``flagged`` finds nothing in an object with pod templates none of which
    ``asks``, on every fixture and example, against each example cluster's contract."""
    from generator.kube import pods
    from generator.lint.engine import Context

    assert all(rule.pod_templates for rule in flagged)
    project = Project(REPO)
    contracts = [settings_for(project, {}, name) for name in project.cluster_names()]
    texts = [p.read_text(encoding="utf-8") for p in FIXTURES.rglob("*.yaml")] + [
        e.text for r in REGISTRY for e in examples(r.meta)
    ]
    checked = 0
    for text in texts:
        for res in _resources(text):
            templates = pods.templates(res.obj) if isinstance(res.obj.get("kind"), str) else ()
            if not templates or any(asks(pod) for pod in templates):
                continue
            for settings in contracts:
                ctx = Context(settings, None, set(BY_ID), {})
                for rule in flagged:
                    assert list(rule.check(res, ctx)) == [], (rule.meta.id, res.obj.get("kind"))
            checked += 1
    assert checked > 20


def test_the_engine_does_not_run_device_rules_on_objects_whose_pods_ask_for_none(monkeypatch, tmp_path):
    calls = _record_calls(monkeypatch, "CL001")
    found = _rules_found(
        tmp_path,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: cpu, namespace: gpu-training}\nspec:\n"
        "  containers: [{name: c, image: busybox}]\n---\n"
        "apiVersion: batch/v1\nkind: Job\nmetadata: {name: gpu, namespace: gpu-training}\nspec:\n"
        "  template:\n    spec:\n      restartPolicy: Never\n      containers:\n"
        "        - {name: c, image: busybox, resources: {limits: {nvidia.com/gpu: 1, memory: 1Gi}}}\n",
        settings_for(Project(REPO), {}, "aks-h100-training"),
    )
    assert calls == ["Job"] and "CL001" in found


@pytest.mark.parametrize("rule_id", sorted(_DEVICE_RULES | {"GPU001", "GPU002", "GPU003"}))
def test_the_engine_does_not_run_resource_rules_on_pods_that_name_no_such_resource(monkeypatch, tmp_path, rule_id):
    """GPU and huge page rules meet only the workloads that ask for one (extended resources for
    GPU001-GPU003, a device for the others), and still find what such a workload breaks."""
    calls = _record_calls(monkeypatch, rule_id)
    _rules_found(
        tmp_path,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: cpu, namespace: n}\nspec:\n"
        "  containers: [{name: c, image: busybox, resources: {limits: {cpu: 1, memory: 1Gi}}}]\n---\n"
        "apiVersion: batch/v1\nkind: Job\nmetadata: {name: gpu, namespace: n}\nspec:\n"
        "  template:\n    spec:\n      restartPolicy: Never\n      containers:\n"
        "        - {name: c, image: busybox, resources: {limits: {nvidia.com/gpu: 1, hugepages-2Mi: 2Mi, memory: 1Gi}}}\n",
    )
    assert calls == ["Job"]


def test_decisions_of_a_kind_are_made_once_per_kind(monkeypatch):
    """API004's hits and XR003's "is it scalable" depend on the apiVersion and kind alone: two
    Deployments get the same answer, made once; XR004 asks for a pod's GPUs only when it asks
    for a device at all."""
    from generator.kube import pods
    from generator.lint.engine import Context
    from generator.lint.rules import xr003_scaledobject_target_missing as xr003

    first, second = _resources(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a, namespace: ns}\nspec:\n"
        "  template:\n    spec:\n      containers: [{name: c, image: busybox}]\n---\n"
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: b, namespace: ns}\nspec:\n"
        "  template:\n    spec:\n      containers: [{name: c, image: busybox}]\n"
    )
    ctx = Context(Settings(), None, set(BY_ID), {})
    assert BY_ID["API004"].check(first, ctx) is BY_ID["API004"].check(second, ctx)
    xr003._scalable.cache_clear()
    assert [list(BY_ID["XR003"].facts(res, ctx)) for res in (first, second)] == [
        [(("object", "Deployment", "ns", name), None)] for name in "ab"
    ]
    assert xr003._scalable.cache_info().misses == 1
    asked: list = []
    monkeypatch.setattr(pods, "pod_requests_gpu", lambda pod: asked.append(pod) or frozenset())
    assert list(BY_ID["XR004"].facts(first, ctx)) == [] and asked == []


def test_the_cross_resource_rules_facts_are_gathered_in_one_pass(monkeypatch, tmp_path):
    """``Engine.finish`` reads each file's facts once for all the set rules (not once per
    rule), and each rule still gets its own facts in file order."""
    from generator.lint.engine import Engine
    from generator.lint.loader import read

    path = tmp_path / "objects.yaml"
    path.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: ns}\nspec:\n"
        "  selector: {matchLabels: {a: b}}\n  template:\n    metadata: {labels: {a: b}}\n"
        "    spec: {containers: [{name: c, image: busybox}]}\n---\n"
        "apiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nmetadata: {name: s, namespace: ns}\n"
        "spec: {scaleTargetRef: {name: missing}, triggers: []}\n",
        encoding="utf-8",
    )

    class Counted(list):
        reads = 0

        def __iter__(self):
            Counted.reads += 1
            return super().__iter__()

    engine = Engine(Settings(), None)
    result = engine.check_file(str(path), read(str(path), str(path)).documents)
    assert len(engine.set_rules) > 1 and result.facts
    result.facts = Counted(result.facts)
    findings = engine.finish([result]).findings
    assert Counted.reads == 1 and "XR003" in {f.rule for f in findings}


def test_values_are_judged_once_per_spelling():
    """K8S009 compares a request with its limit once per pair of spellings (two containers
    asking 500m of 1 compare once) and still finds the one above; K8S005 makes no generator
    for a port without a problem."""
    from generator.lint.engine import Context
    from generator.lint.rules import k8s005_address_invalid as k8s005
    from generator.lint.rules import k8s009_request_exceeds_limit as k8s009

    [pod] = _resources(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns}\nspec:\n  containers:\n"
        + "".join(
            f"  - {{name: c{i}, image: busybox, resources: {{requests: {{cpu: {req}}}, limits: {{cpu: '1'}}}}}}\n"
            for i, req in enumerate(("500m", "500m", "2"))
        )
    )
    k8s009._above_text.cache_clear()
    hits = list(BY_ID["K8S009"].check(pod, Context(Settings(), None, set(BY_ID), {})))
    assert [hit.path for hit in hits] == [("spec", "containers", 2, "resources", "requests", "cpu")]
    assert k8s009._above_text.cache_info()[:2] == (1, 1)  # (hits, misses): 2 is a number, compared as it is
    assert k8s005._hits([], ("spec", "ports", 0, "port"), "port", 80) == ()


def test_plain_lint_with_the_provider_and_lint_against_its_cluster_agree_on_the_gpu_taint(tmp_path):
    """One provider fact, one answer: on AKS a GPU pod tolerating the taint a defaulted pool
    carries passes both paths, and one tolerating only AKS's guide's ``sku`` fails both."""
    verdicts = []
    for toleration in ("{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}", "{key: sku, operator: Exists}"):
        pod = tmp_path / "pod.yaml"
        pod.write_text(
            "apiVersion: v1\nkind: Pod\nmetadata: {name: smi, namespace: llm-training}\nspec:\n"
            f"  tolerations: [{toleration}]\n  containers:\n    - name: smi\n      image: nvcr.io/nvidia/cuda:12.4.1\n"
            "      resources: {limits: {nvidia.com/gpu: 1, memory: 1Gi}}\n",
            encoding="utf-8",
        )
        plain = lint_paths([str(pod)], Settings.from_config({"lint": {"provider": "aks"}})).findings
        against = lint_paths([str(pod)], settings_for(Project(REPO), {}, "aks-nap-h100")).findings
        verdicts.append(({f.rule for f in plain} & {"GPU004"}, {f.rule for f in against} & {"CL001"}))
    assert verdicts == [(set(), set()), ({"GPU004"}, {"CL001"})]


def test_api_versions_off_by_default_follow_the_clusters_runtime_config(tmp_path):
    """resource.k8s.io/v1beta1 on 1.34: an error where the cluster's flags are known and lack it,
    nothing where its input lists it, a warning where the flags are unknown."""
    from generator.lint.settings import for_cluster

    path = FIXTURES / "API004" / "pass" / "beta-enabled-by-runtime-config.yaml"

    def found(settings):
        return [(f.rule, f.severity) for f in lint_paths([str(path)], settings).findings if f.rule == "API004"]

    spec = {"kubernetesVersion": "1.34", "nodePools": []}
    assert found(for_cluster(spec)) == [("API004", "error")]
    assert found(for_cluster({**spec, "apiServer": {"runtimeConfig": ["resource.k8s.io/v1beta1"]}})) == []
    assert found(Settings.from_config({"lint": {"kubernetesVersion": "1.34"}})) == [("API004", "warning")]


def test_the_engine_runs_cluster_rules_only_against_a_cluster(monkeypatch):
    """A rule marked ``cluster`` is not called at all when lint has no target cluster."""
    calls = _record_calls(monkeypatch, "CL001")
    path = FIXTURES / "CL001" / "fail"
    lint_paths([str(path)], Settings())
    assert calls == []
    lint_paths([str(path)], settings_for(Project(REPO), {}, "aks-h100-training"))
    assert calls
