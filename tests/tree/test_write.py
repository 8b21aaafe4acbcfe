"""Writing a tree: every file 0644 and every folder 0755, with a ``chmod`` only where the umask,
a default ACL or a set-group-ID folder would give them another mode."""

from __future__ import annotations

import os
import stat

import pytest

from generator.tree import write

FILES = {"kustomization.yaml": b"a\n", "layer/x.yaml": b"b\n", "layer/deep/y.yaml": b"c\n"}


def _write(tmp_path, monkeypatch, mask: int) -> list[str]:
    """The tree written under ``mask``; the ``chmod`` calls it made, by kind."""
    calls: list[str] = []
    real_chmod, real_fchmod = os.chmod, os.fchmod
    monkeypatch.setattr(write.os, "chmod", lambda *a, **k: calls.append("chmod") or real_chmod(*a, **k))
    monkeypatch.setattr(write.os, "fchmod", lambda *a, **k: calls.append("fchmod") or real_fchmod(*a, **k))
    old = os.umask(mask)
    try:
        write.write_tree(tmp_path / "rendered", "c1", FILES, "rendered/c1")
    finally:
        os.umask(old)
    target = tmp_path / "rendered" / "c1"
    for path in [target, *target.rglob("*")]:
        assert stat.S_IMODE(path.stat().st_mode) == (0o755 if path.is_dir() else 0o644), path
    return calls


def test_a_umask_that_clears_none_of_the_modes_needs_no_chmod_of_each_file_and_folder(tmp_path, monkeypatch):
    calls = _write(tmp_path, monkeypatch, 0o022)
    # rendered/ itself and the staging folder, whatever they inherit; nothing inside the staging folder
    assert calls.count("fchmod") == 0
    assert calls.count("chmod") == 2


@pytest.mark.parametrize("mask", [0o077, 0o027, 0o002 | 0o020 | 0o200])
def test_a_umask_that_clears_a_mode_bit_is_undone_by_chmod(tmp_path, monkeypatch, mask):
    calls = _write(tmp_path, monkeypatch, mask)
    assert calls.count("fchmod") == len(FILES)


def test_a_set_group_id_folder_is_not_inherited(tmp_path, monkeypatch):
    (tmp_path / "rendered").mkdir()
    os.chmod(tmp_path / "rendered", 0o755 | stat.S_ISGID)
    _write(tmp_path, monkeypatch, 0o022)  # each folder's mode checked, the set-group-ID bit included


def _default_acl(folder) -> None:
    """A default ACL of owner rwx, group r-x, others nothing (``system.posix_acl_default``:
    version 2, then each entry's tag, permissions and id, little-endian)."""
    import struct

    entries = [(0x01, 7), (0x04, 5), (0x20, 0)]  # ACL_USER_OBJ, ACL_GROUP_OBJ, ACL_OTHER
    blob = struct.pack("<I", 2) + b"".join(struct.pack("<HHI", tag, perm, 0xFFFFFFFF) for tag, perm in entries)
    try:
        os.setxattr(folder, "system.posix_acl_default", blob)
    except OSError as exc:
        pytest.skip(f"no POSIX ACLs here: {exc}")


def test_a_default_acl_does_not_stand_in_for_the_modes(tmp_path, monkeypatch):
    (tmp_path / "rendered").mkdir()
    _default_acl(tmp_path / "rendered")
    calls = _write(tmp_path, monkeypatch, 0o022)  # others would get no read access without a chmod
    assert calls.count("fchmod") == len(FILES)
