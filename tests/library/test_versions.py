"""Versions apart from the input contract: chart versions and images are in
libsonnet/versions.json, not in schemas/cluster.schema.json defaults or component literals, and
every entry is used."""

from __future__ import annotations

import ipaddress
import json
import re

import pytest
from conftest import EXAMPLES, REPO

from generator import docs
from generator.errors import InputError
from generator.inputs.schemaref import resolve_ref
from generator.library import versions

SCHEMA = json.loads((REPO / "schemas" / "cluster.schema.json").read_text(encoding="utf-8"))
TABLE = versions.load(REPO / "libsonnet")
ENTRIES = TABLE.inputs

# A chart version or image tag (`1.19.6`, `v26.7.0`, `4.4.1-4.6.0-ubuntu22.04`, `1.31.0.8`) or an
# image reference (`registry/repository:tag`).
VERSION = re.compile(r"^v?\d+\.\d+\.\d+([-+.][\w.-]+)?$")
IMAGE = re.compile(r"^[\w.-]+(/[\w.-]+)+:[\w.-]+$")


def _defaults(node, path=""):
    if isinstance(node, dict):
        if isinstance(node.get("default"), str):
            yield path, node["default"]
        for key, value in node.items():
            yield from _defaults(value, f"{path}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _defaults(value, f"{path}/{i}")


def _schema_node(dotted: str) -> dict:
    node = SCHEMA
    for key in dotted.split("."):
        node = resolve_ref(SCHEMA, node["properties"][key])
    return node


@pytest.mark.parametrize(
    "value", ["1.19.6", "v26.7.0", "4.4.1-4.6.0-ubuntu22.04", "1.31.0.8", "docker.io/openebs/linux-utils:4.1.0"]
)
def test_the_version_pattern_knows_a_version(value):
    assert VERSION.match(value) or IMAGE.match(value)


def _is_address(value: str) -> bool:
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return False
    return True


def test_no_schema_default_is_a_version_or_an_image():
    found = [
        (path, value)
        for path, value in _defaults(SCHEMA)
        if (VERSION.match(value) and not _is_address(value)) or IMAGE.match(value)
    ]
    assert not found, f"move these to libsonnet/versions.json: {found}"


def test_every_entry_names_an_input_key_without_a_schema_default():
    assert len(ENTRIES) == len({e.input for e in ENTRIES})
    for entry in ENTRIES:
        node = _schema_node(entry.input)
        assert "default" not in node, entry.input
        assert "versions.json" in node["description"], entry.input
        assert entry.source.strip() and entry.what.strip(), entry.input


def test_every_entry_reaches_the_rendered_examples():
    """Each default is filled and rendered: the examples set none of them, so each default's
    value is in some rendered file."""
    rendered = "\n".join(p.read_text(encoding="utf-8") for p in (REPO / "rendered").rglob("*.yaml"))
    inputs = "\n".join((REPO / "clusters" / name / "cluster.yaml").read_text(encoding="utf-8") for name in EXAMPLES)
    for entry in ENTRIES:
        assert entry.default not in inputs, entry.input
        assert entry.default in rendered, entry.input


def test_fill_sets_missing_keys_keeps_given_ones_and_creates_no_parents():
    spec = {"autoscaling": {"kedaVersion": "2.19.0"}, "gpu": {"nvidia": {"driver": {}}}}
    versions.fill(spec, REPO / "libsonnet")
    assert spec["autoscaling"]["kedaVersion"] == "2.19.0"
    pinned = {e.input: e.default for e in ENTRIES}
    assert spec["gpu"]["nvidia"]["driver"]["version"] == pinned["gpu.nvidia.driver.version"]
    assert spec["gpu"]["nvidia"]["operatorVersion"] == pinned["gpu.nvidia.operatorVersion"]
    assert "storage" not in spec and "amd" not in spec["gpu"]


def test_a_malformed_versions_file_is_an_input_error(tmp_path):
    (tmp_path / "versions.json").write_text('{"versions": [{"input": "a.b"}]}', encoding="utf-8")
    with pytest.raises(InputError, match="malformed versions file"):
        versions.load(tmp_path)


def test_every_image_and_repository_reaches_the_rendered_examples():
    rendered = "\n".join(p.read_text(encoding="utf-8") for p in (REPO / "rendered").rglob("*.yaml"))
    for image in TABLE.images:
        assert f"image: {image.image}" in rendered, image.name
    pinned = {e.input: e.default for e in ENTRIES}
    for repo in TABLE.repositories:
        assert f"image: {repo.repository}:" in rendered, repo.name
        assert f"{repo.repository}:{pinned[repo.tag]}" in rendered, repo.name


def test_no_image_is_pinned_at_two_tags():
    """One tool, one version: two entries of one repository at different tags drift apart
    (node tuning once ran kubectl v1.32.0 while the rest ran v1.32.8). The one exception is a
    series by Kubernetes minor, `<tool>-<minor>` at a tag of that minor (kubectl, which must be
    within one minor of the API server): one entry per minor, so again one version each."""
    by_repository: dict[str, set[str]] = {}
    for image in TABLE.images:
        repository, _, tag = image.image.rpartition(":")
        series = re.fullmatch(r"([a-z]+)-(1\.\d+)", image.name)
        if series:
            assert tag.startswith(f"v{series.group(2)}."), image.name
            continue
        by_repository.setdefault(repository, set()).add(tag)
    assert {r: t for r, t in by_repository.items() if len(t) > 1} == {}


def test_kubectl_is_within_one_minor_of_every_supported_api_server():
    """kubectl is supported within one minor version of kube-apiserver
    (kubernetes.io/releases/version-skew-policy); registry.k8s.io/kubectl has images from 1.28,
    so the clusters below 1.29 are the only ones outside."""
    import rjsonnet

    minors = list(range(25, 38))
    snippet = (
        "local k = import 'lib/k.libsonnet'; local v = import 'versions.json'; "
        f"[k.kubectlImage(v, '1.%d' % m) for m in {minors}]"
    )
    images = json.loads(rjsonnet.evaluate_snippet("kubectl", snippet, jpathdir=[str(REPO / "libsonnet")]))
    for minor, image in zip(minors, images, strict=True):
        kubectl = int(image.rpartition(":v1.")[2].split(".")[0])
        assert abs(kubectl - minor) <= 1 or (minor < 29 and kubectl == 30), (minor, image)


def test_no_component_names_an_image_of_its_own():
    """Components take images from versions.json, so a bump is one edit with its source."""
    registry = re.compile(r"'(docker\.io|nvcr\.io|registry\.k8s\.io|quay\.io|ghcr\.io|gcr\.io)/")
    for path in sorted((REPO / "libsonnet").rglob("*.libsonnet")):
        code = "\n".join(line.split("//")[0] for line in path.read_text(encoding="utf-8").splitlines())
        assert not registry.search(code), path


def test_a_repository_tagged_by_no_input_key_is_an_input_error(tmp_path):
    data = json.loads((REPO / "libsonnet" / "versions.json").read_text(encoding="utf-8"))
    data["repositories"]["dcgmExporter"]["tag"] = "gpu.nvidia.dcgmVersion"
    (tmp_path / "versions.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(InputError, match="repositories whose tag is no versions entry: dcgmExporter"):
        versions.load(tmp_path)


def test_versions_md_lists_every_entry_with_its_source():
    text = docs.versions_markdown(TABLE)
    for entry in ENTRIES:
        assert f"| `{entry.input}` | `{entry.default}` |" in text
        assert entry.source.split(" ")[0] in text
    for image in TABLE.images:
        assert f"| `{image.name}` | `{image.image}` |" in text
    for repo in TABLE.repositories:
        assert f"| `{repo.name}` | `{repo.repository}` | `{repo.tag}` |" in text


def _chart_values(relative: str) -> dict:
    from conftest import SHARED, shared_missing
    from ruamel.yaml import YAML

    path = SHARED / "helm-values" / relative
    if not path.is_file():
        pytest.skip(shared_missing(path, "upstream chart values"))
    return YAML(typ="safe").load(path.read_text(encoding="utf-8"))


def test_a_default_that_departs_from_the_chart_says_so_and_why():
    """The driver default is not the GPU Operator chart's: its source must name the chart's value
    and call it a pin, not cite the chart as where the default comes from."""
    chart = str(_chart_values("gpu-operator/values.yaml")["driver"]["version"])
    (entry,) = [e for e in ENTRIES if e.input == "gpu.nvidia.driver.version"]
    if entry.default != chart:
        assert chart in entry.source and "pin" in entry.source, entry.source
        assert "Long Term Support Branch" in entry.source  # the reason


def test_an_image_tag_source_names_where_the_tag_really_comes_from():
    """nvidia-device-plugin's values.yaml leaves image.tag empty: the tag is v<appVersion>."""
    assert _chart_values("nvidia-device-plugin/values.yaml")["image"]["tag"] == ""
    (entry,) = [e for e in ENTRIES if e.input == "gpu.nvidia.devicePluginVersion"]
    assert "appVersion" in entry.source, entry.source
