"""The contract reads a rendered tree's files through the YAML reader's hand-over: a document the
fast backends leave to the full loader is read, one that no loader reads is one located error."""

from __future__ import annotations

import pytest

from generator.contract.build import _objects
from generator.errors import InputError


def test_a_handed_over_document_is_read(tmp_path):
    (tmp_path / "priorityclass_gpu.yaml").write_text(
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: &m {name: gpu}\nvalue: 10\n"
        "description: !!str 10\n",
        encoding="utf-8",
    )
    assert [o["metadata"] for o in _objects(tmp_path)] == [{"name": "gpu"}]


def test_a_file_no_loader_reads_is_one_error_naming_it(tmp_path):
    (tmp_path / "namespace_team.yaml").write_text("apiVersion: v1\nkind: Namespace\nmetadata: {name: [\n", "utf-8")
    with pytest.raises(InputError) as caught:
        list(_objects(tmp_path))
    assert caught.value.location.path.endswith("namespace_team.yaml")
    assert "render it again" in caught.value.diagnostic.hint
