"""Review of Kueue queues (docs/queues.md): a ClusterQueue that loses nominal quota or a flavor,
and a flavor, queue or topology that leaves Git, are dangers that say what happens to the
admitted and the queued jobs."""

from __future__ import annotations

import copy

from generator.review.compare import Change, diff
from generator.review.danger import DANGER, classify
from generator.review.objects import Identity, Placed

CQ = {
    "apiVersion": "kueue.x-k8s.io/v1beta2",
    "kind": "ClusterQueue",
    "metadata": {"name": "gpu-training"},
    "spec": {
        "resourceGroups": [
            {
                "coveredResources": ["nvidia.com/gpu"],
                "flavors": [
                    {"name": "h100", "resources": [{"name": "nvidia.com/gpu", "nominalQuota": "24"}]},
                    {"name": "l40s", "resources": [{"name": "nvidia.com/gpu", "nominalQuota": "8"}]},
                ],
            }
        ]
    },
}
IDENT = Identity("kueue.x-k8s.io", "ClusterQueue", "", "gpu-training")
PATH = "20-workloads/queues/clusterqueue_gpu-training.yaml"


def _changed(after: dict) -> list:
    before = Placed(IDENT, PATH, CQ)
    return classify(Change("changed", IDENT, before, Placed(IDENT, PATH, after), diff(CQ, after)))


def test_a_shrunk_nominal_quota_is_a_danger_that_says_what_it_does():
    after = copy.deepcopy(CQ)
    after["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["nominalQuota"] = "16"
    [finding] = _changed(after)
    assert finding.level == DANGER
    assert "nominal quota of nvidia.com/gpu on h100 from 24 to 16" in finding.reason
    assert "admitted jobs keep running" in finding.reason and "queued jobs wait" in finding.reason


def test_a_removed_flavor_is_a_danger_and_a_raised_quota_is_not():
    after = copy.deepcopy(CQ)
    del after["spec"]["resourceGroups"][0]["flavors"][1]
    [finding] = _changed(after)
    assert finding.level == DANGER and "removes flavor l40s" in finding.reason
    raised = copy.deepcopy(CQ)
    raised["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["nominalQuota"] = "32"
    assert _changed(raised) == []


def test_a_resource_flavor_that_leaves_git_is_a_danger():
    ident = Identity("kueue.x-k8s.io", "ResourceFlavor", "", "h100")
    flavor = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "h100"}}
    [finding] = classify(
        Change("removed", ident, Placed(ident, "20-workloads/queues/resourceflavor_h100.yaml", flavor))
    )
    assert finding.level == DANGER and "turn inactive and admit no job" in finding.reason
