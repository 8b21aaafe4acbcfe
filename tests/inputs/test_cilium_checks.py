"""The Cilium checks (IN330-IN350): each reports where the input configures Cilium, and IN330
folds them all where Cilium is on only by the provider's default."""

from __future__ import annotations

from generator.inputs import consistency
from generator.inputs.consistency import in330_cilium_default_incomplete as in330


def test_in330_folds_every_cilium_check():
    cilium_checks = {c.meta.id for c in consistency.REGISTRY if c.meta.name.startswith("cilium-")}
    assert {meta.id for meta, _ in in330.FOLDED} == cilium_checks - {"IN330"}


def test_a_cilium_check_runs_only_where_the_input_configures_cilium():
    """In the folded case the same finder runs once, through IN330: not also on its own."""
    spec = {"network": {"cilium": {"enabled": True, "kubeProxyReplacement": True}}}

    class Doc:
        data: dict = {}

    check = consistency.check("IN331")
    assert check is not None
    assert list(check.check(spec, Doc(), {})) == []
