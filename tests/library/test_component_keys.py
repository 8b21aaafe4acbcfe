"""Every component of the library is an object keyed by the name of each object's rendered file
(lib/k.libsonnet keyed), the key docs/overrides.md tells an override to patch; flattening to the
lists the generator lays out happens once, after the overrides."""

from __future__ import annotations

import pytest
from conftest import EXAMPLES, REPO

from generator.errors import InputError
from generator.inputs.load import load_cluster
from generator.library import jsonnet, registry
from generator.paths import Project
from generator.render import evaluation
from generator.render.layout import object_filename

# The library's components before flattening: the keys of each.
KEYS = (
    "local main = import 'main.libsonnet';\n"
    "function(spec) std.mapWithKey(function(_, component) std.objectFields(component), main.components(spec))"
)
PROJECT = Project(REPO)


def _keys(name: str) -> dict[str, list[str]]:
    cluster = load_cluster(PROJECT, name)
    sandbox = jsonnet.Sandbox(PROJECT.libsonnet, cluster.folder, PROJECT.root)
    return jsonnet.evaluate(KEYS, sandbox, {"spec": cluster.spec}, home=cluster.folder)


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_object_is_keyed_by_its_file_name(name):
    objects = evaluation.evaluate(PROJECT, load_cluster(PROJECT, name))
    files = {c: [object_filename(o).removesuffix(".yaml") for o in objs] for c, objs in objects.items()}
    assert _keys(name) == files


def test_the_examples_key_every_component():
    """The test above sees each component with objects in some example."""
    keyed = {c for name in EXAMPLES for c, keys in _keys(name).items() if keys}
    assert keyed == {c.name for c in registry.load(REPO / "libsonnet").components}


def test_two_objects_with_one_file_name_are_refused_in_the_library():
    sandbox = jsonnet.Sandbox(PROJECT.libsonnet, None, PROJECT.root)
    code = (
        "local k = import 'lib/k.libsonnet';\nfunction(spec) k.keyed(["
        "k.object('v1', 'ConfigMap', 'a', 'ns'), k.object('v1', 'ConfigMap', 'b'), k.object('v1', 'ConfigMap', 'a', 'ns')])"
    )
    with pytest.raises(InputError, match="two objects of a component render to one file: configmap_ns_a"):
        jsonnet.evaluate(code, sandbox, {"spec": {}}, home=PROJECT.libsonnet)
