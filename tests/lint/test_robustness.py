"""Hostile or malformed input gives findings or one-line errors, never a crash or a hang."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from generator.kube import quantity
from generator.lint import lint_paths
from generator.lint.settings import Settings
from generator.yamlio import read as yamlread
from tests.fuzz.budget import fuzz_settings

POD = """\
apiVersion: v1
kind: Pod
metadata: {{name: a, namespace: x}}
spec:
  containers:
    - name: m
      image: i
      resources:
        requests: {{nvidia.com/gpu: {value}}}
        limits: {{nvidia.com/gpu: 1}}
"""


@pytest.mark.parametrize("value", [float("inf"), float("-inf"), float("nan"), "1e400", "1e999999999", "1E-999999999"])
def test_non_finite_and_huge_quantities_are_not_quantities(value):
    assert quantity.parse(value) is None


def test_exponents_within_range_still_parse():
    assert quantity.parse("2e3") == 2000 and quantity.parse("1e-3") == quantity.parse("1m")


@pytest.mark.parametrize("value", [".inf", ".nan", "1e400", '"1e999999999"', "abc"])
def test_invalid_gpu_quantity_is_a_finding(tmp_path, value):
    path = tmp_path / "pod.yaml"
    path.write_text(POD.format(value=value), encoding="utf-8")
    findings = lint_paths([str(path)], Settings()).findings
    gpu003 = [f for f in findings if f.rule == "GPU003"]
    assert len(gpu003) == 1 and gpu003[0].line == 9 and "must be a quantity" in gpu003[0].message
    assert not [f for f in findings if f.rule == "GPU002"]


DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "train", "namespace": "gpu", "annotations": {"a": "b"}, "labels": {"app": "t"}},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "t"}},
        "template": {
            "metadata": {"labels": {"app": "t"}},
            "spec": {
                "runtimeClassName": "nvidia",
                "hostNetwork": False,
                "securityContext": {
                    "runAsNonRoot": True,
                    "seccompProfile": {"type": "RuntimeDefault"},
                    "sysctls": [{"name": "net.core.somaxconn", "value": "1"}],
                },
                "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
                "volumes": [
                    {"name": "v", "hostPath": {"path": "/x"}},
                    {"name": "h", "emptyDir": {"medium": "HugePages-2Mi"}},
                    {"name": "p", "persistentVolumeClaim": {"claimName": "c"}},
                ],
                "containers": [
                    {
                        "name": "m",
                        "image": "i",
                        "securityContext": {"privileged": False, "capabilities": {"add": ["NET_ADMIN"]}},
                        "volumeMounts": [{"name": "h", "mountPath": "/h"}],
                        "resources": {
                            "requests": {"nvidia.com/gpu": 1, "hugepages-2Mi": "2Mi", "nvidia.com/mig-1g.5gb": 1},
                            "limits": {"nvidia.com/gpu": 1, "memory": "1Gi", "hugepages-2Mi": "2Mi"},
                        },
                    }
                ],
            },
        },
    },
}
OTHERS = [
    {
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "ScaledObject",
        "metadata": {"name": "s", "namespace": "gpu"},
        "spec": {
            "scaleTargetRef": {"name": "train", "kind": "Deployment"},
            "triggers": [{"type": "prometheus", "metadata": {"metricName": "m", "query": "q"}}],
        },
    },
    {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": "d", "namespace": "gpu"},
        "spec": {"podSelector": {}, "policyTypes": ["Ingress"]},
    },
    {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "c", "namespace": "gpu"},
        "spec": {"storageClassName": "fast"},
    },
    {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": "ds", "namespace": "gpu"},
        "spec": {
            "template": {
                "spec": {
                    "nodeSelector": {"nvidia.com/gpu.present": "true"},
                    "containers": [{"name": "c", "image": "i"}],
                }
            }
        },
    },
    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "gpu"}},
]


def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, prefix + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _paths(value, prefix + (i,))


def _replace(node, path, value):
    if not path:
        return value
    node = node.copy() if isinstance(node, (dict, list)) else node
    node[path[0]] = _replace(node[path[0]], path[1:], value)
    return node


def _fuzz_strategy():
    from hypothesis import strategies as st

    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(),
        st.text(max_size=5),
        st.sampled_from(["1e999999999", ".inf", "Deployment", "Ingress", "nvidia.com/gpu"]),
    )
    values = st.recursive(
        scalars,
        lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=4), inner, max_size=3)),
        max_leaves=6,
    )
    objects = [DEPLOYMENT, *OTHERS]
    mutation = st.tuples(st.integers(0, len(objects) - 1), st.integers(0, 10**6), values)
    return objects, st.lists(mutation, min_size=1, max_size=4)


def test_lint_never_raises_on_mutated_manifests():
    """Random values at random paths of valid manifests: findings, never an exception."""
    hypothesis = pytest.importorskip("hypothesis")
    from generator.lint import make_validator
    from generator.lint.engine import Engine
    from generator.lint.loader import Source
    from generator.lint.model import Document

    objects, mutations = _fuzz_strategy()
    engine = Engine(Settings(), make_validator(Settings()))

    @fuzz_settings(default=60)
    @hypothesis.given(mutations)
    def check(changes):
        current = list(objects)
        for which, pick, value in changes:
            paths = list(_paths(current[which]))[1:]  # documents that are not mappings never get here
            current[which] = _replace(current[which], paths[pick % len(paths)], value)
        engine.run([Source(f"f{i}.yaml", [Document(f"f{i}.yaml", "", 0, obj)]) for i, obj in enumerate(current)])

    check()


SCHEMA_INVALID = """\
apiVersion: v1
kind: {a: b}
metadata: {name: a}
---
apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata: {name: s, namespace: gpu}
spec:
  scaleTargetRef: {name: train, kind: [Deployment]}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: d, namespace: gpu}
spec: {podSelector: {}, policyTypes: true}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: train, namespace: gpu}
spec:
  selector: {matchLabels: {app: t}}
  template:
    metadata: {labels: {app: t}}
    spec:
      containers: [{name: m, image: i, resources: {limits: {nvidia.com/gpu: 1}}}]
"""


def test_schema_invalid_objects_are_findings_not_crashes(project, run):
    path = project / "bad.yaml"
    path.write_text(SCHEMA_INVALID, encoding="utf-8")
    result = run(project, "lint", "--ignore-missing-schemas", "--format", "json", str(path))
    assert result.exit_code == 1, result.output
    import json

    findings = json.loads(result.stdout)["findings"]
    assert ("K8S002", 2) in {(f["rule"], f["line"]) for f in findings}
    assert ("K8S003", 14) in {(f["rule"], f["line"]) for f in findings}


def _alias_bomb(levels: int) -> str:
    """A ConfigMap whose data is nine lists of nine aliases of the level below, ``levels`` deep."""
    lines = ['  a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for n in range(1, levels):
        lines.append(f"  a{n}: &a{n} [" + ", ".join([f"*a{n - 1}"] * 9) + "]")
    return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata:\n" + "\n".join(lines) + "\n"


def test_alias_bomb_is_a_finding_for_its_document_only(project, run):
    path = project / "bomb.yaml"
    path.write_text(
        _alias_bomb(7) + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\nda: {}\n", encoding="utf-8"
    )
    result = run(project, "lint", str(path))
    assert result.exit_code == 1
    lines = [line for line in result.stdout.splitlines() if line.startswith("bomb.yaml:")]
    assert len(lines) == 2
    assert (
        lines[0].startswith("bomb.yaml:10:") and "aliases expand this document" in lines[0] and "[K8S001]" in lines[0]
    )
    assert lines[1].startswith("bomb.yaml:16:") and "[K8S003]" in lines[1]


def test_a_few_aliases_still_load(tmp_path):
    path = tmp_path / "cm.yaml"
    path.write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, labels: &l {app: a}, annotations: *l}\n", encoding="utf-8"
    )
    assert lint_paths([str(path)], Settings()).findings == []


def test_special_files_in_a_folder_are_findings_without_being_read(project, run):
    import os

    folder = project / "manifests"
    folder.mkdir()
    os.symlink("/dev/zero", folder / "zero.yaml")
    os.mkfifo(folder / "pipe.yaml")
    result = run(project, "lint", str(folder))
    assert result.exit_code == 1
    hint = "  hint: lint reads regular files: pass the manifest itself, or exclude this path"
    assert result.stdout.splitlines() == [
        "manifests/pipe.yaml:1:1: error: not a regular file [K8S001]",
        hint,
        "manifests/zero.yaml:1:1: error: not a regular file [K8S001]",
        hint,
    ]


@pytest.mark.parametrize("name", ["pipe.yaml", "missing.yaml"])
def test_a_special_or_missing_file_given_by_name_is_a_usage_error(project, run, name):
    import os

    os.mkfifo(project / "pipe.yaml")
    result = run(project, "lint", str(project / name))
    assert result.exit_code == 2
    message = "not a regular file" if name == "pipe.yaml" else "no such file or directory"
    assert result.stderr.splitlines()[0] == f"{project / name}: error: {message}"
    assert result.stderr.splitlines()[1].startswith("  hint: ")


def test_files_are_read_only_up_to_the_size_limit(tmp_path, monkeypatch):
    from generator.lint import loader

    monkeypatch.setattr(yamlread, "MANIFESTS", yamlread.MANIFESTS.replace(file_bytes=100))
    path = tmp_path / "big.yaml"
    path.write_text("a: " + "x" * 200, encoding="utf-8")
    opened = []
    real_read = os.read

    def spy(fd, size):
        opened.append(size)
        return real_read(fd, size)

    monkeypatch.setattr(loader.os, "read", spy)
    source = loader.read(str(path), "big.yaml")
    assert opened == [101] and source.documents[0].error.message == "file is larger than the 100 byte limit"


def test_stdin_that_is_not_utf8_is_a_finding(project):
    """A real process: the runner's stdin would decode the bytes before lint sees them."""
    import subprocess
    import sys

    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "from generator.cli import cli; cli()",
            "--root",
            str(project),
            "--color",
            "never",
            "lint",
            "-",
        ],
        input=b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: \xff}\n",
        capture_output=True,
        check=False,
    )
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.decode().splitlines() == [
        "stdin:3:18: error: file is not UTF-8 text: byte 0xFF at offset 48 (invalid start byte) [K8S001]",
        "  hint: save the file as UTF-8",
    ]


@pytest.mark.parametrize(
    ("config", "where", "message", "hint"),
    [
        (
            'lint:\n  rules:\n    GPU0004: "off"\n',
            ".gpu-gitops.yaml:3:5",
            "unknown lint rule 'GPU0004'",
            "did you mean 'GPU004'?",
        ),
        (
            "lint:\n  ignore:\n    - rules: [GPU001, SEC0006]\n      reason: legacy jobs\n",
            ".gpu-gitops.yaml:3:23",
            "unknown lint rule 'SEC0006'",
            "did you mean 'SEC006'?",
        ),
    ],
)
def test_misspelt_rule_ids_in_the_config_are_rejected(project, run, config, where, message, hint):
    (project / ".gpu-gitops.yaml").write_text(config, encoding="utf-8")
    (project / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n", encoding="utf-8")
    for args in (("lint", str(project / "cm.yaml")), ("render", "aks-h100-training")):
        result = run(project, *args)
        assert result.exit_code == 2
        lines = result.stderr.splitlines()
        assert lines[0] == f"{where}: error: {message}"
        assert lines[1].startswith(f"  hint: {hint}")


@pytest.mark.parametrize("text", ["!!float apiVersion: v1\nkind: ConfigMap\n", "a: !!int abc\n", "a: !!float\n"])
def test_explicit_tags_on_the_wrong_text_are_findings(tmp_path, text):
    path = tmp_path / "tagged.yaml"
    path.write_text(text, encoding="utf-8")
    [finding] = lint_paths([str(path)], Settings()).findings
    assert finding.rule == "K8S001" and finding.message.startswith("error unmarshalling resource:")


@pytest.mark.parametrize("level", ["[privileged]", "{a: privileged}", "1"])
def test_a_pod_security_label_that_is_no_string_is_a_finding(tmp_path, level):
    """The API server refuses a label value that is no string: a schema finding, no privileged namespace."""
    path = tmp_path / "ns.yaml"
    path.write_text(
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n  labels:\n"
        f"    pod-security.kubernetes.io/enforce: {level}\n",
        encoding="utf-8",
    )
    findings = lint_paths([str(tmp_path)], Settings()).findings
    assert [(f.rule, f.line) for f in findings] == [("K8S003", 6)]


def _lint_in_a_process(path) -> subprocess.CompletedProcess:
    """lint in a process of its own: a signal shows as a negative return code."""
    command = [
        sys.executable,
        "-c",
        "from generator.cli import main; main()",
        "--color",
        "never",
        "lint",
        "-o",
        "json",
        str(path),
    ]
    return subprocess.run(command, capture_output=True, encoding="utf-8", check=False)


@pytest.mark.parametrize("before", ["a: 1\na: 2\n", "a: &x 1\nb: *x\n", "a: !!str 1\n"])
def test_deep_nesting_after_what_sends_a_document_to_ruamel_is_a_finding(tmp_path, before):
    """ruamel's C composer recurses in C: 100,000 levels would overflow the stack and kill the
    interpreter, so the depth is bounded before it reads the document."""
    path = tmp_path / "deep.yaml"
    path.write_text(before + "c: " + "[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
    done = _lint_in_a_process(path)
    assert done.returncode == 1, done.stderr
    (finding,) = json.loads(done.stdout)["findings"]
    assert (
        finding["message"]
        == f"error unmarshalling resource: YAML nesting is deeper than {yamlread.MANIFESTS.depth} levels"
    )
    assert (finding["line"], finding["column"]) == (before.count("\n") + 1, len("c: ") + yamlread.MANIFESTS.depth)


@pytest.mark.parametrize("levels", [yamlread.MANIFESTS.depth + 1, 1000, 100_000])
def test_deep_json_is_bounded_as_yaml_is(tmp_path, levels):
    path = tmp_path / "deep.json"
    path.write_text('{"apiVersion": "v1", "d": ' + "[" * levels + "]" * levels + "}", encoding="utf-8")
    (finding,) = lint_paths([str(path)], Settings()).findings
    assert (
        finding.message
        == f"error unmarshalling resource: YAML nesting is deeper than {yamlread.MANIFESTS.depth} levels"
    )
    assert (finding.line, finding.col) == (1, len('{"apiVersion": "v1", "d": ') + yamlread.MANIFESTS.depth)
    assert finding.hint


def _refuse(monkeypatch, function: str, refused) -> None:
    """``os.<function>`` fails with EACCES for ``refused``, as for a user without the permission
    (the suite may run as root, whom permissions do not stop)."""
    original = getattr(os, function)

    def guarded(path, *args, **kwargs):
        if os.fspath(path) == os.fspath(refused):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return original(path, *args, **kwargs)

    monkeypatch.setattr(os, function, guarded)


def test_an_unreadable_folder_is_an_error_with_its_path(project, run, monkeypatch):
    folder = project / "manifests" / "secret"
    folder.mkdir(parents=True)
    (folder / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n", encoding="utf-8")
    _refuse(monkeypatch, "scandir", folder)
    _refuse(monkeypatch, "listdir", folder)
    result = run(project, "lint", str(project / "manifests"))
    assert result.exit_code == 1, result.output
    assert result.stdout.splitlines()[:2] == [
        "manifests/secret:1:1: error: cannot read folder: Permission denied [K8S001]",
        "  hint: check that the path exists and that this user may read it (and list a folder), or exclude it",
    ]


def test_an_unreadable_file_is_an_error_with_its_path_and_a_hint(project, run, monkeypatch):
    path = project / "cm.yaml"
    path.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n", encoding="utf-8")
    _refuse(monkeypatch, "open", path)
    result = run(project, "lint", "--no-cache", str(path))
    assert result.exit_code == 1, result.output
    assert result.stdout.startswith("cm.yaml:1:1: error: cannot read file: Permission denied [K8S001]\n  hint: ")


@pytest.mark.parametrize(
    "text, rule",
    [
        ("metadata: {name: a}\n", "K8S002"),
        ("apiVersion: v1\nmetadata: {name: a}\n", "K8S002"),
        ("kind: ConfigMap\nmetadata: {name: a}\n", "K8S002"),
        ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndat: {}\n", "K8S003"),
        ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: []\n", "K8S003"),
        ("- {apiVersion: v1, kind: ConfigMap}\n", "K8S001"),  # a list of objects, not a list (no manifest)
        ("a: [\n", "K8S001"),
        ("a: {? [b]: c}\n", "K8S001"),
        (_alias_bomb(7), "K8S001"),
    ],
)
def test_every_finding_has_a_hint(tmp_path, text, rule):
    path = tmp_path / "x.yaml"
    path.write_text(text, encoding="utf-8")
    findings = [f for f in lint_paths([str(path)], Settings()).findings if f.rule == rule]
    assert findings and all(f.hint for f in findings), findings


def test_a_document_over_the_size_limit_has_a_hint(tmp_path, monkeypatch):
    monkeypatch.setattr(yamlread, "MANIFESTS", yamlread.MANIFESTS.replace(document_bytes=10))
    path = tmp_path / "x.yaml"
    path.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n", encoding="utf-8")
    (finding,) = lint_paths([str(path)], Settings()).findings
    assert "byte limit" in finding.message and finding.hint


def test_a_long_address_value_is_shortened_and_a_mistyped_port_is_the_schemas(tmp_path):
    """K8S005 names a long value by its start and length, and leaves a Service port that is not
    an integer to the schema check (one finding, not two)."""
    path = tmp_path / "long.yaml"
    path.write_text(
        "apiVersion: v1\nkind: Service\nmetadata: {name: a}\nspec:\n  ports:\n"
        f"    - port: {'1' * 5001}\n---\napiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\n"
        f"metadata: {{name: b, namespace: x}}\nspec:\n  podSelector: {{}}\n  ingress:\n    - ports:\n"
        f"        - port: {'a' * 500}\n",
        encoding="utf-8",
    )
    findings = lint_paths([str(path)], Settings()).findings
    assert [(f.rule, f.line) for f in findings if f.rule in ("K8S003", "K8S005")] == [("K8S003", 6), ("K8S005", 15)]
    (named,) = [f for f in findings if f.rule == "K8S005"]
    assert "(500 characters)" in named.message and len(named.message) < 120
