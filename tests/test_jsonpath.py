"""JSON paths as the dotted field names errors and findings show."""

from generator.jsonpath import dotted


def test_keys_are_dotted_and_indexes_bracketed():
    assert dotted(("spec", "containers", 0, "resources")) == "spec.containers[0].resources"
    assert dotted([0, "name"]) == "[0].name"
    assert dotted(()) == ""


def test_booleans_and_numbers_as_keys_are_keys():
    assert dotted(("data", True, "x")) == "data.True.x"


def test_value_at_follows_keys_and_indexes_and_stops_where_the_path_leads_nowhere():
    from generator.jsonpath import value_at

    obj = {"spec": {"ports": [{"port": 80}]}}
    assert value_at(obj, ("spec", "ports", 0, "port")) == 80
    assert value_at(obj, ("spec", "ports", 1, "port")) is None
    assert value_at(obj, ("spec", "ports", "x")) is None
    assert value_at(obj, ("spec", "ports", 0, "port", "deeper")) is None
    assert value_at(obj, ()) is obj
