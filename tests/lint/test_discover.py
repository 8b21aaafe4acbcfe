"""Which files a lint of a folder reads, and in what order: every manifest under it, parents
first and names sorted, hidden folders and what is no manifest by its path left out, links to
folders listed but not followed (as ``os.walk`` visits a tree, which it did before)."""

from __future__ import annotations

import os

from generator.lint import nonmanifests
from generator.lint.loader import SUFFIXES, discover


def _walked(top: str) -> list[str]:
    """The files ``os.walk`` gives, filtered as lint filters them: the reference."""
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(top, onerror=lambda exc: found.append(exc.filename)):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        folder = dirpath[len(top) :].lstrip(os.sep).replace(os.sep, "/") or "."
        for name in sorted(filenames):
            if name.lower().endswith(SUFFIXES) and not nonmanifests.skipped(
                name if folder == "." else f"{folder}/{name}"
            ):
                found.append(os.path.join(dirpath, name))
    return found


def test_a_folder_is_walked_as_os_walk_walks_it(tmp_path):
    top = tmp_path / "repo"
    for folder in ("b", "a/z", "a/y/x", ".git/objects", "a/.hidden", "charts/web/templates", "a b", "c"):
        (top / folder).mkdir(parents=True, exist_ok=True)
    for name in (
        "a/z/deploy.yaml", "a/y/x/job.YML", "a/y/x/cm.json", "a/.hidden/secret.yaml", ".git/objects/o.yaml",
        "b/values-prod.yaml", "b/kustomization.yaml", "b/svc.yaml", "b/notes.txt", "a b/space d.yaml",
        "charts/web/templates/d.yaml", "charts/web/Chart.yaml", "top.yaml", ".hidden.yaml", "c/Z.yaml", "c/a.yaml",
    ):  # fmt: skip
        (top / name).write_text("kind: ConfigMap\n", encoding="utf-8")
    (top / "a" / "link").symlink_to(top / "b", target_is_directory=True)  # listed, not followed
    (top / "c" / "linked.yaml").symlink_to(top / "b" / "svc.yaml")
    (top / "c" / "dangling.yaml").symlink_to(top / "gone.yaml")
    for given in (str(top), str(top) + "/"):
        found = discover([given], [], str)
        assert found == _walked(str(top))
    assert [os.path.relpath(f, top) for f in found] == [
        ".hidden.yaml", "top.yaml", "a/y/x/cm.json", "a/y/x/job.YML", "a/z/deploy.yaml", "a b/space d.yaml",
        "b/svc.yaml", "c/Z.yaml", "c/a.yaml", "c/dangling.yaml", "c/linked.yaml",
    ]  # fmt: skip
