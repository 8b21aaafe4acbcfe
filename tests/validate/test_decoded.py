"""A large schema file is decoded once into the user cache, and only ever read back for its own bytes."""

from __future__ import annotations

import json
import marshal
import os
from pathlib import Path

import pytest

from generator.validate import decoded, kubernetes


def _copies() -> list:
    return sorted((Path(decoded.cache_folder(), decoded.FOLDER)).glob("*.marshal"))


def test_the_copy_is_read_for_the_same_bytes_only(tmp_path, monkeypatch):
    source = tmp_path / "defs.json"
    source.write_text(json.dumps({"$defs": {"a": {"type": "string"}}, "n": 1.5}), encoding="utf-8")
    first = decoded.load(source)
    assert first == {"$defs": {"a": {"type": "string"}}, "n": 1.5} and len(_copies()) == 1

    def refused(_text: str) -> None:
        raise AssertionError("decoded from JSON again")

    with monkeypatch.context() as patched:
        patched.setattr(json, "loads", refused)
        assert decoded.load(source) == first  # from the copy

    source.write_text(json.dumps({"$defs": {}, "n": 2}), encoding="utf-8")  # same path, other bytes
    assert decoded.load(source) == {"$defs": {}, "n": 2} and len(_copies()) == 1  # it replaced the first


def test_a_corrupt_copy_or_an_unwritable_cache_only_costs_the_decode(tmp_path, monkeypatch):
    source = tmp_path / "defs.json"
    source.write_text('{"a": [1, 2]}', encoding="utf-8")
    decoded.load(source)
    (copy,) = _copies()
    copy.write_bytes(copy.read_bytes()[:5])
    assert decoded.load(source) == {"a": [1, 2]}
    assert decoded.load(source) == {"a": [1, 2]} and len(copy.read_bytes()) > 5  # written again
    monkeypatch.setenv("GPU_GITOPS_CACHE_DIR", str(tmp_path / "file"))
    (tmp_path / "file").write_text("", encoding="utf-8")  # no folder can be made there
    assert decoded.load(source) == {"a": [1, 2]}


def test_the_kubernetes_definitions_come_back_equal_from_the_copy():
    version = kubernetes.bundled_versions()[-1]
    path = Path(kubernetes.version_dir(version), "_definitions.json")
    assert decoded.load(path) == json.loads(path.read_text(encoding="utf-8"))
    assert decoded.load(path) == json.loads(path.read_text(encoding="utf-8"))
    assert os.path.getsize(_copies()[0]) > 0


def test_members_are_kept_each_as_a_dump_of_its_own(tmp_path, monkeypatch):
    source = tmp_path / "defs.json"
    source.write_text(json.dumps({"$defs": {"a": {"type": "string"}, "b": [1, None]}, "n": 1}), encoding="utf-8")
    members = decoded.load_members(source, "$defs")
    assert dict(members) == {"a": {"type": "string"}, "b": [1, None]}
    with monkeypatch.context() as patched:
        patched.setattr(json, "loads", lambda _text: pytest.fail("decoded from JSON again"))
        assert dict(decoded.load_members(source, "$defs")) == dict(members)  # from the copy
    assert decoded.load(source)["n"] == 1  # the whole file's copy is another one
    assert len(decoded.load_members(source, "n")) == 0 and len(decoded.load_members(source, "none")) == 0


def test_a_lookup_reads_its_own_entry_and_no_other(tmp_path, monkeypatch):
    """The copy's index is read when it is opened, then each lookup reads one entry: a lint
    after an edit reads a few dozen of the 1.3 MB of definitions, not all of them."""
    source = tmp_path / "defs.json"
    entries = {f"d{i}": {"description": "x" * 1000, "n": i} for i in range(200)}
    source.write_text(json.dumps({"$defs": entries}), encoding="utf-8")
    decoded.load_members(source, "$defs")  # writes the copy
    (copy,) = _copies()
    read: list[int] = []
    real = os.pread

    def pread(fd: int, length: int, offset: int) -> bytes:
        read.append(length)
        return real(fd, length, offset)

    with monkeypatch.context() as patched:
        patched.setattr(decoded.os, "pread", pread)
        members = decoded.load_members(source, "$defs")
        assert members["d7"] == {"description": "x" * 1000, "n": 7} and members["d199"]["n"] == 199
    assert sum(read) < copy.stat().st_size // 20 and len(members) == 200


def test_a_damaged_copy_of_members_is_decoded_again_from_the_file(tmp_path):
    source = tmp_path / "defs.json"
    source.write_text(json.dumps({"$defs": {"a": {"type": "string"}, "b": [1, None]}}), encoding="utf-8")
    decoded.load_members(source, "$defs")
    (copy,) = _copies()
    whole = copy.read_bytes()
    copy.write_bytes(whole[:-3])  # cut short: refused when opened, written again
    assert dict(decoded.load_members(source, "$defs")) == {"a": {"type": "string"}, "b": [1, None]}
    assert copy.read_bytes() == whole
    entry = marshal.dumps([1, None])
    copy.write_bytes(whole.replace(entry, b"\xff" * len(entry)))  # same size, an entry unreadable
    members = decoded.load_members(source, "$defs")
    assert members["b"] == [1, None] and members["a"] == {"type": "string"}


def test_the_definitions_looked_up_one_by_one_are_the_whole_files():
    """The compiled checks read ``definition_map``: every definition equal to the whole file's,
    the ``required`` entries the API server does not enforce dropped alike, and only the ones
    looked up decoded."""
    version = (1, 32)
    whole = kubernetes.definitions(version)["$defs"]
    lookup = kubernetes.Definitions(
        decoded.load_members(Path(kubernetes.version_dir(version), "_definitions.json"), "$defs")
    )
    assert "serviceName" not in lookup["io.k8s.api.apps.v1.StatefulSetSpec"]["required"]
    assert len(lookup._decoded) == 1
    assert sorted(lookup) == sorted(whole) and len(lookup) == len(whole)
    assert all(lookup[name] == whole[name] for name in whole)
    assert lookup.get("io.k8s.api.none") is None and "io.k8s.api.none" not in lookup


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("GPU_GITOPS_CACHE_DIR", str(tmp_path / "cache"))


def test_a_new_copy_replaces_the_older_copies_of_its_file_alone(tmp_path):
    """A reinstalled or upgraded schema file is other bytes: its old copy (1.3 MB of definitions
    a version) would never be read again. Copies of other files stay; copies named as before
    the names had two parts go."""
    one, other = tmp_path / "one.json", tmp_path / "other.json"
    one.write_text(json.dumps({"$defs": {"a": {"type": "string"}}}), encoding="utf-8")
    other.write_text(json.dumps({"$defs": {"b": {"type": "integer"}}}), encoding="utf-8")
    decoded.load_members(other, "$defs")
    decoded.load(one)
    decoded.load_members(one, "$defs")
    folder = Path(decoded.cache_folder(), decoded.FOLDER)
    legacy = folder / ("0123456789abcdef" * 2 + ".marshal")
    legacy.write_bytes(b"old")
    assert len(_copies()) == 4
    os.utime(one, ns=(1, 1))  # other bytes as far as the names tell: an upgrade's
    assert dict(decoded.load_members(one, "$defs")) == {"a": {"type": "string"}}
    names = {copy.name.split("-")[0] for copy in _copies()}
    assert len(_copies()) == 3 and not legacy.exists() and len(names) == 3  # one, one's whole, other
    assert dict(decoded.load_members(other, "$defs")) == {"b": {"type": "integer"}}
