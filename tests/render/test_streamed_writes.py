"""A fleet's trees are written as they are rendered and not kept: memory does not grow with the fleet."""

from __future__ import annotations

from conftest import EXAMPLES

from generator.paths import Project
from generator.render import evaluation, pipeline
from generator.tree import write as tree

BROKEN = "ocp-a100-tuned"


def test_each_batch_is_written_before_the_next_is_rendered_and_its_trees_let_go(project, monkeypatch):
    proj = Project(project)
    monkeypatch.setattr(evaluation, "MANY", 2)
    path = project / "clusters" / BROKEN / "cluster.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("provider: openshift", "provider: moon"), encoding="utf-8")
    on_disk_when_done: dict[str, bool] = {}

    def done(outcome: pipeline.Outcome) -> None:
        on_disk_when_done[outcome.name] = pipeline.has_tree(proj, outcome.name)

    outcomes = pipeline.render_many(proj, EXAMPLES, pipeline.Options(), jobs=1, on_done=done, write_trees=True)

    assert [o.name for o in outcomes] == EXAMPLES
    for outcome in outcomes:
        assert outcome.rendered is None  # written and let go, or never rendered
        if outcome.name == BROKEN:
            assert outcome.error is not None and outcome.changes is None
            assert not on_disk_when_done[outcome.name]  # its (absent) tree untouched
        else:
            assert outcome.error is None and outcome.changes is not None
            # what is reported of the tree is its counts, not its thousands of paths kept for the fleet
            assert isinstance(outcome.changes, tree.Tally) and outcome.changes.added > 10
            assert on_disk_when_done[outcome.name]  # written with its batch, before the next one
            assert not [p for p in outcome.problems if p.severity == "error"]


def test_streamed_writes_give_the_trees_written_at_the_end(project, tmp_path, monkeypatch):
    """The same bytes as rendering everything first and writing after, for every cluster."""
    import shutil

    twin = tmp_path / "twin"
    shutil.copytree(project, twin)
    monkeypatch.setattr(evaluation, "MANY", 3)
    streamed = pipeline.render_many(Project(project), EXAMPLES, pipeline.Options(), write_trees=True)
    kept = pipeline.render_many(Project(twin), EXAMPLES, pipeline.Options())
    assert all(o.rendered is not None for o in kept)
    assert [o.problems for o in streamed] == [o.problems for o in kept]
    pipeline.write(Project(twin), kept)
    assert tree.read_tree(project / "rendered") == tree.read_tree(twin / "rendered")
