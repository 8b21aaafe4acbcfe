"""The API server's two rules for resources that cannot be overcommitted (GPUs and other
extended resources, huge pages), worded as it words them; shared by the GPU and HP rules."""

from __future__ import annotations

from generator import jsonpath
from generator.kube import pods, quantity
from generator.lint.model import Hit


def missing_limit(cpath: tuple, name: str) -> Hit:
    """``name`` is requested without a limit."""
    return Hit(
        f"{jsonpath.dotted(cpath + ('resources', 'limits'))}: Required value: "
        f"Limit must be set for non overcommitable resources ({name} is requested)",
        pods.resources_path(cpath) + ("requests", name),
    )


def request_not_limit(cpath: tuple, name: str, value: object, limits: dict) -> Hit | None:
    """A hit when the request of ``name`` is a different quantity from its limit."""
    req, lim = quantity.nanos(value), quantity.nanos(limits[name])
    if req is None or lim is None or req == lim:
        return None
    where = jsonpath.dotted(pods.resources_path(cpath) + ("requests",)) + f"[{name}]"
    return Hit(
        f'{where}: Invalid value: "{value}": must be equal to {name} limit of {limits[name]}',
        pods.resources_path(cpath) + ("requests", name),
        at_value=True,
    )
