"""The component registry is the single list of components, and every layer is real."""

from __future__ import annotations

import re

from conftest import REPO

from generator.library import registry


def test_registry_lists_every_component_file_and_nothing_else():
    reg = registry.load(REPO / "libsonnet")
    on_disk = {p.stem for p in (REPO / "libsonnet" / "components").glob("*.libsonnet")}
    assert {c.name for c in reg.components} == on_disk


def test_main_fans_out_every_registered_component_exactly_once():
    main = (REPO / "libsonnet" / "main.libsonnet").read_text(encoding="utf-8")
    imported = re.findall(r"import 'components/([a-z0-9-]+)\.libsonnet'", main)
    assert sorted(imported) == sorted(c.name for c in registry.load(REPO / "libsonnet").components)


def test_consistency_modules_are_all_registered():
    from generator.inputs import consistency

    on_disk = {p.stem for p in (REPO / "generator" / "inputs" / "consistency").glob("*.py") if p.stem != "__init__"}
    assert set(consistency._MODULES) == on_disk


def test_every_registered_component_is_rendered_by_some_example():
    """A component no example renders is untested output: the examples must show each one."""
    reg = registry.load(REPO / "libsonnet")
    rendered = REPO / "rendered"
    for component in reg.components:
        folders = [c / component.layer / component.name for c in rendered.iterdir() if c.is_dir()]
        assert any((f / "kustomization.yaml").is_file() for f in folders), component.name


def test_a_layer_wait_that_is_not_a_boolean_is_an_input_error(tmp_path):
    import json

    import pytest

    from generator.errors import InputError

    data = json.loads((REPO / "libsonnet" / "registry.json").read_text(encoding="utf-8"))
    data["layers"][-1]["wait"] = "no"
    (tmp_path / "registry.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(InputError, match="a layer's wait must be true or false"):
        registry.load(tmp_path)


def test_a_component_in_an_unknown_layer_is_an_input_error_naming_the_file(tmp_path):
    import json

    import pytest

    from generator.errors import InputError

    data = json.loads((REPO / "libsonnet" / "registry.json").read_text(encoding="utf-8"))
    data["components"][0]["layer"] = "99-nowhere"
    (tmp_path / "registry.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(InputError, match="components in unknown layers: " + data["components"][0]["name"]) as caught:
        registry.load(tmp_path)
    assert caught.value.location.path == str(tmp_path / "registry.json")


def test_a_layer_depending_on_a_later_or_unwaited_layer_is_an_input_error(tmp_path):
    import json

    import pytest

    from generator.errors import InputError

    data = json.loads((REPO / "libsonnet" / "registry.json").read_text(encoding="utf-8"))
    per_node = next(layer for layer in data["layers"] if layer["name"] == "40-per-node")
    for needs in (["50-own"], ["30-autoscaling"], "10-platform"):
        per_node["dependsOn"] = needs
        (tmp_path / "registry.json").write_text(json.dumps(data), encoding="utf-8")
        with pytest.raises(InputError, match="dependsOn must list earlier waited-on layers"):
            registry.load(tmp_path)


def test_no_daemonset_is_rendered_into_a_waited_layer():
    """A DaemonSet is available only once its pod runs on every node it selects: one node with a bad
    driver (a device plugin with failOnInitError, an exporter without NVML) keeps a waited layer
    from becoming Ready, and with it every layer after it. So every DaemonSet of every example is
    in a layer with `"wait": false`, where a bad node shows in its pods' status only."""
    import json

    data = json.loads((REPO / "libsonnet" / "registry.json").read_text(encoding="utf-8"))
    unwaited = {layer["name"] for layer in data["layers"] if layer.get("wait", True) is False}
    waited_daemonsets = [
        str(path.relative_to(REPO / "rendered"))
        for path in sorted((REPO / "rendered").glob("*/*/*/daemonset_*.yaml"))
        if path.parent.parent.name not in unwaited
    ]
    assert waited_daemonsets == []
    assert {
        c.layer
        for c in registry.load(REPO / "libsonnet").components
        if c.name in ("nvidia-device-plugin", "amd-device-plugin", "dcgm-exporter")
    } <= unwaited
