"""Hostile or malformed input gives findings or one-line errors, never a crash or a hang."""

from __future__ import annotations

import pytest

from generator.lint import lint_paths, quantity
from generator.lint.settings import Settings

POD = """\
apiVersion: v1
kind: Pod
metadata: {{name: a, namespace: x}}
spec:
  containers:
    - name: m
      image: i
      resources:
        requests: {{nvidia.com/gpu: {value}}}
        limits: {{nvidia.com/gpu: 1}}
"""


@pytest.mark.parametrize("value", [float("inf"), float("-inf"), float("nan"), "1e400", "1e999999999", "1E-999999999"])
def test_non_finite_and_huge_quantities_are_not_quantities(value):
    assert quantity.parse(value) is None


def test_exponents_within_range_still_parse():
    assert quantity.parse("2e3") == 2000 and quantity.parse("1e-3") == quantity.parse("1m")


@pytest.mark.parametrize("value", [".inf", ".nan", "1e400", '"1e999999999"', "abc"])
def test_invalid_gpu_quantity_is_a_finding(tmp_path, value):
    path = tmp_path / "pod.yaml"
    path.write_text(POD.format(value=value))
    findings = lint_paths([str(path)], Settings()).findings
    gpu003 = [f for f in findings if f.rule == "GPU003"]
    assert len(gpu003) == 1 and gpu003[0].line == 9 and "must be a quantity" in gpu003[0].message
    assert not [f for f in findings if f.rule == "GPU002"]
