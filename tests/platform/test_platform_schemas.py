"""Every rendered object validates against the Kubernetes and upstream CRD schemas, with no kind
left unchecked (--require-schemas): the examples and the all-features input on both engines and
both tuning backends."""

from __future__ import annotations

import pytest
from clusterinput import BASE, replace, write
from conftest import crd_args, needs_crd_schemas

VARIANTS = {
    "flux-daemonset": BASE,
    "argocd-daemonset": replace("engine: flux", "engine: argocd"),
    "flux-tuned-boot-1gi": (
        replace(
            "{2Mi: 1024, 1Gi: 16, bootReserved: true}",
            "{2Mi: 1024, 1Gi: 16}",
            replace("nodeSelector: {agentpool: gpu}", 'nodeSelector: {node-role.kubernetes.io/worker-gpu: ""}'),
        )
        + "tuning: {backend: tuned, machineConfigPools: [worker-gpu]}\n"
    ).replace("provider: aks", "provider: generic"),
    "block-mode-with-prepare": replace("      mode: Filesystem\n", "      mode: Block\n      blockCleaner: shred\n"),
}


@needs_crd_schemas()
def test_examples_validate_with_every_schema_required(strict_render):
    _root, result = strict_render  # rendered with --require-schemas and the upstream locations
    assert result.exit_code == 0, result.output
    assert "not schema-checked" not in result.output


@needs_crd_schemas()
@pytest.mark.parametrize("text", list(VARIANTS.values()), ids=list(VARIANTS))
def test_variants_validate_with_every_schema_required(project, run, text):
    write(project, text)
    result = run(project, "render", "t", "--require-schemas", *crd_args())
    assert result.exit_code == 0, result.output
    rendered = project / "rendered" / "t"
    kinds = {p.name.split("_")[0] for p in rendered.rglob("*.yaml")}
    assert {"daemonset", "storageclass", "nodefeaturerule"} <= kinds
    assert ("tuned" in kinds) == ("backend: tuned" in text)
