"""The stat record lets a no-op check skip reading files, and never changes a verdict: an edit
is caught whatever it keeps of the file's stat, and a bad record is rebuilt silently."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import REPO, settle

from generator.cli import cli
from generator.paths import Project
from generator.tree import fingerprint, statcache

CLUSTER = "aks-h100-training"
VICTIM = "kustomization.yaml"


@pytest.fixture(scope="module")
def rendered_once(tmp_path_factory) -> Path:
    """One example cluster rendered once; tests change their own copy (``project``)."""
    root = tmp_path_factory.mktemp("statcache") / "proj"
    for name in ("libsonnet", "schemas", f"clusters/{CLUSTER}", "clusters/_bases"):
        shutil.copytree(REPO / name, root / name)
    result = CliRunner().invoke(cli, ["--root", str(root), "--color", "never", "render"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return root


@pytest.fixture
def project(rendered_once, tmp_path) -> Path:
    return Path(shutil.copytree(rendered_once, tmp_path / "proj", symlinks=True))


@pytest.fixture
def settled(monkeypatch):
    settle(monkeypatch)


@pytest.fixture
def reads(monkeypatch) -> list[str]:
    """Every file the stat record could not vouch for, as read and hashed."""
    seen: list[str] = []
    real = statcache.file_sha256

    def counting(path, dir_fd=None, follow=False):
        seen.append(path)
        return real(path, dir_fd, follow)

    monkeypatch.setattr(statcache, "file_sha256", counting)
    return seen


def tree_files(root: Path) -> list[Path]:
    return [p for p in (root / "rendered" / CLUSTER).rglob("*") if p.is_file() and p.name != fingerprint.SUM_FILE]


def is_fresh(root: Path) -> bool:
    return fingerprint.fresh(Project(root), [CLUSTER], root / ".gpu-gitops.yaml") == [CLUSTER]


def test_a_second_run_reads_no_file_whose_stat_is_as_recorded(project, settled, reads):
    assert is_fresh(project)
    assert len(reads) > len(tree_files(project))  # the first run reads every file, and records it
    reads.clear()
    assert is_fresh(project)
    assert reads == []


def test_a_file_changed_in_the_last_seconds_is_read_by_every_run(project, reads):
    """git's racy rule: the tree was just rendered, so no file of it may be taken on its stat."""
    assert is_fresh(project)
    reads.clear()
    assert is_fresh(project)
    assert len(reads) >= len(tree_files(project))


@pytest.mark.parametrize("restore_mtime", [True, False], ids=["mtime-restored", "same-second"])
def test_an_edit_keeping_the_size_fails_check(project, settled, run, restore_mtime):
    """The same size, in the same second, even with the modification time set back as it was
    (``os.utime``, which git misses): the change time and the inode are in the record too."""
    assert run(project, "check").exit_code == 0
    victim = project / "rendered" / CLUSTER / VICTIM
    before = os.stat(victim)
    data = victim.read_bytes()
    victim.write_bytes(data[:-2] + (b"#\n" if data[-2:] != b"#\n" else b"%\n"))
    if restore_mtime:
        os.utime(victim, ns=(before.st_atime_ns, before.st_mtime_ns))
        assert os.stat(victim).st_mtime_ns == before.st_mtime_ns
    assert os.stat(victim).st_size == before.st_size
    assert int(os.stat(victim).st_mtime) == int(before.st_mtime) or not restore_mtime
    check = run(project, "check")
    assert check.exit_code == 1
    assert f"rendered/{CLUSTER}/{VICTIM}: stale: differs from what render produces" in check.stderr


def _spoil(record: Path, how: str, digest: bytes) -> None:
    data = record.read_bytes()
    header_end = len(statcache.FORMAT) + data[len(statcache.FORMAT) :].index(b"\n") + 1
    if how == "missing":
        record.unlink()
    elif how == "garbage":
        record.write_bytes(os.urandom(len(data)))
    elif how == "truncated":
        record.write_bytes(data[: len(data) // 2])
    elif how == "empty":
        record.write_bytes(b"")
    elif how == "other-version":
        record.write_bytes(data.replace(statcache.FORMAT, b"gpu-gitops stat cache 0\n", 1))
    elif how == "other-root":
        record.write_bytes(statcache.FORMAT + b"/elsewhere\n" + data[header_end:])
    elif how == "tampered":  # a recorded hash changed, the body's CRC-32 not: the record is refused
        body_start = header_end + 9
        assert digest in data[body_start:]
        record.write_bytes(data[:body_start] + data[body_start:].replace(digest, b"0" * 64))
    elif how == "misaligned":  # a group with a name fewer than its stat fields and hashes, CRC-32 right
        import marshal
        import zlib

        groups, listings = marshal.loads(data[header_end + 9 :])
        group = next(g for g, (names, _, _) in groups.items() if "\0" in names)
        names, keys, shas = groups[group]
        groups[group] = (names.split("\0", 1)[1], keys, shas)
        body = marshal.dumps((groups, listings))
        record.write_bytes(data[:header_end] + b"%08x\n" % zlib.crc32(body) + body)
    elif how == "not-a-dict":
        import marshal
        import zlib

        body = marshal.dumps(["not", "a", "record"])
        record.write_bytes(data[:header_end] + b"%08x\n" % zlib.crc32(body) + body)


@pytest.mark.parametrize(
    "how",
    ["missing", "garbage", "truncated", "empty", "other-version", "other-root", "tampered", "misaligned", "not-a-dict"],
)
def test_a_bad_record_is_rebuilt_without_a_word_and_changes_no_verdict(project, settled, run, reads, how):
    assert run(project, "check").exit_code == 0
    record = statcache.record_path(project)
    assert record.is_file()
    victim = project / "rendered" / CLUSTER / VICTIM
    digest = bytes.fromhex(statcache.file_sha256(str(victim)))
    _spoil(record, how, digest)
    check = run(project, "check")
    assert check.exit_code == 0, check.output
    assert check.stderr == ""
    reads.clear()
    assert is_fresh(project)  # rebuilt by that check: nothing is read now
    assert reads == []
    _spoil(record, how, digest)
    victim.write_bytes(victim.read_bytes().replace(b"kind:", b"kind: ", 1))
    check = run(project, "check")
    assert check.exit_code == 1
    assert f"rendered/{CLUSTER}/{VICTIM}: stale" in check.stderr


def _snapshot(root: Path) -> dict[str, tuple]:
    found = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(folder, name)
            st = os.lstat(path)
            content = Path(path).read_bytes() if os.path.isfile(path) else b""
            found[os.path.relpath(path, root)] = (st.st_mode, st.st_mtime_ns, st.st_ino, content)
    return found


def test_check_writes_nothing_but_its_record_in_the_cache(project, settled, run):
    before = _snapshot(project)
    for _ in range(2):
        assert run(project, "check").exit_code == 0
    assert _snapshot(project) == before
    assert statcache.record_path(project).parent == Path(os.environ["GPU_GITOPS_CACHE_DIR"]) / "stat"
    assert statcache.record_path(project).is_file()


def test_a_scratch_copy_keeps_no_record(project, settled):
    assert fingerprint.fresh(Project(project), [CLUSTER], project / ".gpu-gitops.yaml", remember=False) == [CLUSTER]
    assert not statcache.record_path(project).exists()


SUBFOLDER = "10-platform/admission"


@pytest.fixture
def walks(monkeypatch) -> list[str]:
    """Every folder listed, rather than taken from the record."""
    seen: list[str] = []
    real = statcache.walk

    def counting(folder, stats=None):
        seen.append(folder)
        return real(folder, stats)

    monkeypatch.setattr(statcache, "walk", counting)
    return seen


def test_a_second_run_lists_no_folder_whose_stat_is_as_recorded(project, settled, walks):
    assert is_fresh(project)
    assert str(project / "rendered" / CLUSTER) in walks
    walks.clear()
    assert is_fresh(project)
    assert walks == []


def test_a_folder_changed_in_the_last_seconds_is_listed_by_every_run(project, walks):
    assert is_fresh(project)
    walks.clear()
    assert is_fresh(project)
    assert str(project / "rendered" / CLUSTER) in walks


def _add(folder: Path) -> None:
    (folder / "extra.yaml").write_text("kind: ConfigMap\n", encoding="utf-8")


def _add_keeping_times(folder: Path) -> None:
    """A file added, and the folder's modification time set back as it was (its change time cannot be)."""
    before = os.stat(folder)
    _add(folder)
    os.utime(folder, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(folder).st_mtime_ns == before.st_mtime_ns


def _remove(folder: Path) -> None:
    sorted(folder.glob("*.yaml"))[0].unlink()


def _rename(folder: Path) -> None:
    first = sorted(folder.glob("*.yaml"))[0]
    first.rename(folder / ("renamed-" + first.name))


def _symlink(folder: Path) -> None:
    first = sorted(folder.glob("*.yaml"))[0]
    target = folder / "elsewhere.bin"
    first.rename(target)
    first.symlink_to(target.name)


def _subfolder(folder: Path) -> None:
    (folder / "more").mkdir()
    _add(folder / "more")


@pytest.mark.parametrize(
    "change",
    [_add, _add_keeping_times, _remove, _rename, _symlink, _subfolder],
    ids=["added", "added-folder-mtime-restored", "removed", "renamed", "replaced-by-symlink", "new-subfolder"],
)
def test_a_change_in_a_folder_whose_listing_was_recorded_fails_check(project, settled, run, walks, change):
    """Each change of a folder's entries is caught, in the same second as the record, with
    the folder's modification time restored: a folder's change time moves with its entries."""
    assert run(project, "check").exit_code == 0
    walks.clear()
    assert is_fresh(project)
    assert walks == []  # the listing is the record's now
    change(project / "rendered" / CLUSTER / SUBFOLDER)
    check = run(project, "check")
    assert check.exit_code == 1, check.output
    assert f"rendered/{CLUSTER}/{SUBFOLDER}/" in check.stderr


def test_a_mode_change_in_a_folder_whose_listing_was_recorded_is_rendered_again(project, settled, run):
    """render's freshness asks for modes too: a chmod changes the file's change time, never its
    folder's, and is still seen (the listing's folders and files are each looked at)."""
    assert run(project, "render").exit_code == 0
    assert fingerprint.fresh(Project(project), [CLUSTER], None, modes=True) == [CLUSTER]
    victim = sorted((project / "rendered" / CLUSTER / SUBFOLDER).glob("*.yaml"))[0]
    victim.chmod(0o600)
    assert fingerprint.fresh(Project(project), [CLUSTER], None, modes=True) == []
    (project / "rendered" / CLUSTER / SUBFOLDER).chmod(0o700)
    victim.chmod(0o644)
    assert fingerprint.fresh(Project(project), [CLUSTER], None, modes=True) == []


def test_check_full_reads_no_record(project, settled, run, monkeypatch):
    """``check --full`` renders every cluster: a record that vouches for a changed file does not count."""
    assert run(project, "check").exit_code == 0
    monkeypatch.setattr(statcache.StatCache, "_load", lambda self: pytest.fail("the record was read"))
    assert run(project, "check", "--full").exit_code == 0
