"""A digest keyed by an image no container renders is a located input error, not a silent no-op."""

from __future__ import annotations

import pytest
from gpu_support import find, load_objects

CLUSTER = "eks-mi300x-inference"
_DIGEST = "sha256:" + "ab" * 32


def _append_digests(project, *refs: str) -> tuple[str, int]:
    path = project / "clusters" / CLUSTER / "cluster.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text + "images:\n  digests:\n" + "".join(f"    {r}: {_DIGEST}\n" for r in refs), encoding="utf-8")
    return text, text.count("\n") + 3  # the first key's line


def _plugin_image(project) -> str:
    (plugin,) = find(load_objects(project / "rendered" / CLUSTER), "DaemonSet", "nvidia-device-plugin-a100-mig")
    return plugin["spec"]["template"]["spec"]["containers"][0]["image"]


def test_a_digest_for_a_tag_nobody_renders_names_the_close_image(project, run):
    assert run(project, "render", CLUSTER).exit_code == 0
    before = {p: p.read_bytes() for p in (project / "rendered" / CLUSTER).rglob("*") if p.is_file()}
    image = _plugin_image(project)
    stale = image.rsplit(":", 1)[0] + ":v0.0.1"  # a tag the components do not render
    _text, line = _append_digests(project, stale)
    result = run(project, "render", CLUSTER)
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    (i,) = [i for i, ln in enumerate(lines) if f"clusters/{CLUSTER}/cluster.yaml:{line}:5: error: " in ln]
    assert f"{stale!r}, which no rendered container uses" in lines[i]
    assert lines[i + 1] == f"  hint: did you mean {image!r}?", result.stderr
    assert "Traceback" not in result.output
    after = {p: p.read_bytes() for p in (project / "rendered" / CLUSTER).rglob("*") if p.is_file()}
    assert after == before


def test_an_unrelated_image_gets_the_listing_hint(project, run):
    assert run(project, "render", CLUSTER).exit_code == 0
    _text, line = _append_digests(project, _plugin_image(project), "example.com/nothing/like/it:1")
    result = run(project, "render", CLUSTER)
    assert result.exit_code == 2, result.output
    assert f"cluster.yaml:{line + 1}:5: error: " in result.stderr
    assert "hint: key digests by an image this cluster renders" in result.stderr


def test_every_rendered_image_may_be_pinned(project, run):
    """The images the check knows are the ones the components render: pinning all of them renders."""
    from generator.library.digests import rendered_images

    assert run(project, "render", CLUSTER).exit_code == 0
    image = _plugin_image(project)
    images = sorted(rendered_images({"all": load_objects(project / "rendered" / CLUSTER)}))
    assert image in images
    _append_digests(project, *images)
    result = run(project, "render", CLUSTER)
    assert result.exit_code == 0, result.output
    assert _plugin_image(project) == f"{image}@{_DIGEST}"


def test_a_cluster_without_digest_keys_is_not_walked(monkeypatch):
    """Most clusters pin no digest: their objects (thousands of containers in a fleet) are not
    walked for images nobody asked about."""
    from generator.library import digests

    def walked(components):
        raise AssertionError("walked")

    monkeypatch.setattr(digests, "rendered_images", walked)
    digests.check({"images": {"digests": {}}}, None, {"c": [{"spec": {"containers": [{"image": "a:1"}]}}]})
    with pytest.raises(AssertionError, match="walked"):
        digests.check({"images": {"digests": {"a:1": _DIGEST}}}, None, {"c": []})
