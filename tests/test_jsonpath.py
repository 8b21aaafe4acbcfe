"""JSON paths as the dotted field names errors and findings show."""

from generator.jsonpath import dotted


def test_keys_are_dotted_and_indexes_bracketed():
    assert dotted(("spec", "containers", 0, "resources")) == "spec.containers[0].resources"
    assert dotted([0, "name"]) == "[0].name"
    assert dotted(()) == ""


def test_booleans_and_numbers_as_keys_are_keys():
    assert dotted(("data", True, "x")) == "data.True.x"
