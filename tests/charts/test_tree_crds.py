"""A CRD the tree renders itself (a component an ``overrides.libsonnet`` adds) is installed by
the same sync as the custom resources that use it: render checks them against it, as it does
against the CRDs the charts install, and as ``lint`` of the tree does."""

from __future__ import annotations

CLUSTER = "aks-h100-training"
OVERRIDE = """{
  widgets: {
    'customresourcedefinition_widgets.example.com': {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        names: { kind: 'Widget', listKind: 'WidgetList', plural: 'widgets', singular: 'widget' },
        scope: 'Namespaced',
        versions: [{
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: {
            type: 'object',
            properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } },
          } },
        }],
      },
    },
    'widget_gpu-training_w': {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w', namespace: 'gpu-training' },
      spec: { size: SIZE },
    },
  },
}
"""


def _render(project, run, size: str):
    (project / "clusters" / CLUSTER / "overrides.libsonnet").write_text(OVERRIDE.replace("SIZE", size), "utf-8")
    return run(project, "render", CLUSTER)


def test_a_custom_resource_is_checked_against_the_crd_the_tree_renders(project, run):
    bad = _render(project, run, "'big'")
    assert bad.exit_code != 0
    assert "50-own/widgets/widget_gpu-training_w.yaml" in bad.stderr
    assert "schema: /spec/size" in bad.stderr and "integer" in bad.stderr


def test_a_custom_resource_its_crd_accepts_renders_without_a_missing_schema_warning(project, run):
    good = _render(project, run, "3")
    assert good.exit_code == 0, good.stderr
    assert "Widget" not in good.stderr  # no "no schema found" for it
