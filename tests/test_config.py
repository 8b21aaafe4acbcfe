"""The project's config file: read, validated against its schema and kept once valid."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator import codeprint, config
from generator.errors import InputErrors
from generator.paths import Project, cache_folder

CONFIG = "lint:\n  rules:\n    SEC006: warning\n"


@pytest.fixture
def counted(monkeypatch) -> list[str]:
    """The config files validated in this test (``schema_errors`` called for them)."""
    from generator.inputs import load

    seen: list[str] = []
    real = load.schema_errors
    monkeypatch.setattr(load, "schema_errors", lambda doc, schema: seen.append("validated") or real(doc, schema))
    return seen


def test_a_valid_config_is_kept_and_read_back_without_validating_it_again(tmp_path, counted):
    (tmp_path / ".gpu-gitops.yaml").write_text(CONFIG, encoding="utf-8")
    first = config.load_config(Project(tmp_path))
    again = config.load_config(Project(tmp_path))
    assert again == first and again.data["lint"]["rules"] == {"SEC006": "warning"} and "prune" in again.data
    assert len(counted) == 1  # the second read is the kept data, defaults included


def test_an_edited_config_a_changed_schema_or_changed_code_is_validated_again(tmp_path, counted, monkeypatch):
    (tmp_path / ".gpu-gitops.yaml").write_text(CONFIG, encoding="utf-8")
    config.load_config(Project(tmp_path))
    (tmp_path / ".gpu-gitops.yaml").write_text(CONFIG + "prune: true\n", encoding="utf-8")
    assert config.load_config(Project(tmp_path)).prune and len(counted) == 2
    monkeypatch.setattr(codeprint, "fingerprint", lambda: (("edited.py", 1, 1),))
    config.load_config(Project(tmp_path))
    assert len(counted) == 3
    schemas = tmp_path / "schemas"  # the project's own schemas (a customised library's)
    schemas.mkdir()
    for name in ("cluster.schema.json", "config.schema.json"):  # the same schemas, other bytes
        (schemas / name).write_bytes(Path(Project("/nowhere").schemas_folder, name).read_bytes() + b"\n")
    config.load_config(Project(tmp_path))
    assert len(counted) == 4


def test_a_config_with_an_error_is_never_kept(tmp_path, counted):
    """Its errors are worded by every run, and nothing is kept for it."""
    (tmp_path / ".gpu-gitops.yaml").write_text("lint:\n  rules:\n    NOPE001: warning\n", encoding="utf-8")
    for _ in range(2):
        with pytest.raises(InputErrors):
            config.load_config(Project(tmp_path))
    assert len(counted) == 2
    assert not list(Path(cache_folder(), config.FOLDER).glob("*.marshal"))
