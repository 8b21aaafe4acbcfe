"""Which built-in API versions a cluster serves only when ``--runtime-config`` enables them."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from generator.kube import runtimeconfig

_PIECES = st.sampled_from(
    ["apps", "k8s.io", "-", ".", "/", "v", "1", "22", "alpha", "beta", "A", "٣", "²", "/v1alpha1"]
)


@given(st.lists(_PIECES, max_size=8).map("".join))
def test_an_alpha_version_is_read_as_its_pattern(text):
    assert runtimeconfig._alpha(text) == bool(re.fullmatch(r"[a-z0-9.-]+/v[0-9]+alpha[0-9]+", text))


def test_alpha_versions_are_off_by_default_and_the_listed_betas_from_their_release():
    assert runtimeconfig.off_by_default("resource.k8s.io/v1alpha3", "DeviceClass", (1, 30))
    assert not runtimeconfig.off_by_default("resource.k8s.io/v1beta1", "DeviceClass", (1, 31))
    assert runtimeconfig.off_by_default("resource.k8s.io/v1beta1", "DeviceClass", (1, 32))
    assert not runtimeconfig.off_by_default("apps/v1", "Deployment", (1, 32))
