"""A ResourceQuota leaves what it does not name unlimited: in a namespace whose quota bounds NVIDIA
GPUs, a MIG profile the mixed pools advertise and quota.mig does not name is bounded to 0."""

from __future__ import annotations

from gpu_support import find, load_objects

from tests.inputs.test_gpu_consistency import EKS, edit


def quotas(folder) -> dict[str, dict]:
    return {q["metadata"]["namespace"]: q["spec"]["hard"] for q in find(load_objects(folder), "ResourceQuota")}


def test_unnamed_profiles_of_the_pool_are_bounded_to_zero(rendered):
    hard = quotas(rendered / EKS)
    # a100-mig advertises 3g.20gb, 2g.10gb and 1g.5gb; embeddings names two of them
    assert hard["embeddings"]["requests.nvidia.com/mig-3g.20gb"] == "0"
    assert hard["embeddings"]["requests.nvidia.com/mig-1g.5gb"] == "16"
    # AMD namespaces bound no NVIDIA GPUs: their quota is theirs to write
    assert not [key for key in hard["llm-serving"] if "nvidia.com" in key]


def test_a_named_profile_keeps_its_count(project, run):
    edit(project, EKS, "mig: {1g.5gb: 16, 2g.10gb: 8}", "mig: {1g.5gb: 16, 2g.10gb: 8, 3g.20gb: 2}")
    assert run(project, "render", EKS).exit_code == 0
    assert quotas(project / "rendered" / EKS)["embeddings"]["requests.nvidia.com/mig-3g.20gb"] == "2"
