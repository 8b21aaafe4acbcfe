"""The examples against the CRDs of the releases they deploy.

``../shared/crd-schemas`` holds newer upstream schemas; a field that only a newer release knows
passes there and is pruned or refused by the CRD the cluster actually runs. The synced schema set
(``schemas sync --from ../shared/upstream-crds``) is pinned to the deployed release tags.
"""

from __future__ import annotations

import pytest
from conftest import CRD_SCHEMAS, OWN_SCHEMAS

# the mirror has no Cilium CRD files; their schemas come from ../shared/crd-schemas
CILIUM = str(CRD_SCHEMAS / "cilium.io" / "{{.ResourceKind}}_{{.ResourceAPIVersion}}.json")


@pytest.mark.slow
def test_examples_validate_against_the_crds_of_the_deployed_releases(project, run, synced_cache, monkeypatch):
    monkeypatch.setenv("GPU_GITOPS_CACHE_DIR", str(synced_cache))
    # the mirror has no IPPool CRD either (the Network Operator creates it at run time)
    result = run(project, "render", "--require-schemas", "--schema-location", CILIUM, "--schema-location", OWN_SCHEMAS)
    assert result.exit_code == 0, result.output
