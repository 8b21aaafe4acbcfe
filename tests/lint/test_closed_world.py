"""Cross-resource rules report a missing name only where the linted set is known to be complete:
a rendered tree, a target cluster, or ``lint.completeSet``; elsewhere a note."""

from __future__ import annotations

import json

from generator.lint import lint_paths
from generator.lint.settings import Settings

CLAIM = """\
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: local-nvme
provisioner: kubernetes.io/no-provisioner
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: dataset
  namespace: gpu-training
spec:
  storageClassName: managed-csi
  accessModes: [ReadWriteOnce]
  resources:
    requests: {storage: 100Gi}
"""


def _xr001(findings):
    return [(f.severity, f.line) for f in findings if f.rule == "XR001"]


def test_a_class_of_a_repository_may_come_from_elsewhere_so_it_is_a_note(tmp_path):
    (tmp_path / "claim.yaml").write_text(CLAIM, encoding="utf-8")
    [finding] = [f for f in lint_paths([str(tmp_path)], Settings()).findings if f.rule == "XR001"]
    assert finding.severity == "info" and "may not be all the cluster has" in finding.message
    assert "completeSet" in finding.hint


def test_a_complete_set_makes_it_an_error(tmp_path):
    (tmp_path / "claim.yaml").write_text(CLAIM, encoding="utf-8")
    assert _xr001(lint_paths([str(tmp_path)], Settings(complete_set=True)).findings) == [("error", 13)]
    configured = Settings.from_config({"lint": {"completeSet": True}})
    assert _xr001(lint_paths([str(tmp_path)], configured).findings) == [("error", 13)]
    one_rule = Settings.from_config({"lint": {"rules": {"XR001": {"completeSet": True}}}})
    assert _xr001(lint_paths([str(tmp_path)], one_rule).findings) == [("error", 13)]


def test_a_rendered_tree_is_complete(tmp_path, run):
    """A folder holding render's sum file (or a folder of such trees) is a cluster's whole set."""
    tree = tmp_path / "rendered" / "prod"
    tree.mkdir(parents=True)
    (tree / "claim.yaml").write_text(CLAIM, encoding="utf-8")
    loose = run(tmp_path, "lint", "-o", "json", str(tree))
    assert loose.exit_code == 0 and '"severity": "info"' in loose.stdout
    (tree / ".gpu-gitops.sum").write_text("", encoding="utf-8")
    for target in (tree, tmp_path / "rendered"):
        result = run(tmp_path, "lint", str(target))
        assert result.exit_code == 1 and 'error: storageclass.storage.k8s.io "managed-csi" not found' in result.stdout


def test_a_folder_of_trees_is_complete_when_every_visible_folder_in_it_is_a_tree(tmp_path, run):
    """Hidden folders (``.git``) do not count; a link to a tree counts as the tree; one folder
    that is no tree makes the set incomplete."""
    rendered = tmp_path / "rendered"
    (rendered / "prod").mkdir(parents=True)
    (rendered / "prod" / "claim.yaml").write_text(CLAIM, encoding="utf-8")
    (rendered / "prod" / ".gpu-gitops.sum").write_text("", encoding="utf-8")
    (rendered / ".cache").mkdir()
    elsewhere = tmp_path / "staging"
    elsewhere.mkdir()
    (elsewhere / ".gpu-gitops.sum").write_text("", encoding="utf-8")
    (rendered / "staging").symlink_to(elsewhere, target_is_directory=True)
    (rendered / "README.md").write_text("trees\n", encoding="utf-8")

    def severity() -> str:
        result = run(tmp_path, "lint", "-o", "json", str(rendered))
        [finding] = [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "XR001"]
        return finding["severity"]

    assert severity() == "error"
    (rendered / "notes").mkdir()
    assert severity() == "info"
