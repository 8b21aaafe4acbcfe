"""Shell completion of cluster names and rule IDs, through click's completion API."""

from __future__ import annotations

import pytest
from click.shell_completion import ShellComplete

from generator.cli import cli


def complete(args: list[str], incomplete: str) -> list[str]:
    completion = ShellComplete(cli, {}, "gpu-gitops", "_GPU_GITOPS_COMPLETE")
    return [item.value for item in completion.get_completions(args, incomplete)]


@pytest.mark.parametrize("command", ["render", "check", "diff"])
def test_cluster_names_complete(project, command):
    assert complete(["--root", str(project), command], "") == [
        "aks-h100-training",
        "aks-nap-h100",
        "eks-mi300x-inference",
        "gke-l4-inference",
        "ocp-a100-tuned",
        "onprem-gb200-dra",
        "onprem-mi300x-operator",
    ]
    assert complete(["--root", str(project), command], "o") == [
        "ocp-a100-tuned",
        "onprem-gb200-dra",
        "onprem-mi300x-operator",
    ]


def test_a_cluster_already_given_is_not_offered_again(project):
    assert complete(["--root", str(project), "render", "ocp-a100-tuned"], "o") == [
        "onprem-gb200-dra",
        "onprem-mi300x-operator",
    ]


def test_cluster_names_complete_from_a_folder_inside_the_project(project, monkeypatch):
    monkeypatch.chdir(project / "clusters")
    assert complete(["check"], "eks") == ["eks-mi300x-inference"]


def test_outside_a_project_nothing_is_offered(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert complete(["render"], "") == []


def test_rule_ids_complete():
    from generator.lint.rules import REGISTRY

    gpu = complete(["explain"], "gpu")
    assert gpu and all(r.startswith("GPU") for r in gpu)
    assert gpu == [r.meta.id for r in REGISTRY if r.meta.id.startswith("GPU")]
    assert complete(["explain"], "GPU001") == ["GPU001"]


def test_output_options_after_the_command_do_not_stop_completion(project):
    assert complete(["--root", str(project), "render", "-q", "--color", "never"], "a") == [
        "aks-h100-training",
        "aks-nap-h100",
    ]
    assert "--color" in complete(["--root", str(project), "render"], "--c")
