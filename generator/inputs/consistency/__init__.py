"""Cross-field rules the input schema cannot express, one module per area.

Each module has ``check(spec, doc, facts)`` yielding ``InputError``s located in the input (an
``InputWarning`` for what renders but is probably not meant). ``spec`` is the defaulted input;
``doc`` gives positions; ``facts`` is the provider's row of the library's ``providers.json``.
The list below is the registry: a module that
is not listed does not run, and a test checks that every module on disk is listed.
"""

from __future__ import annotations

from generator.errors import InputError
from generator.inputs.consistency import (
    addresses,
    autoscaling,
    dra,
    fabric,
    gitops,
    gpu,
    hugepages,
    network,
    pools,
    provider,
    provisioning,
    queues,
    storage,
    tuning,
    urls,
    workloads,
)
from generator.yamlio.positions import Located

MODULES = (
    addresses,
    pools,
    workloads,
    hugepages,
    gpu,
    dra,
    autoscaling,
    network,
    tuning,
    storage,
    gitops,
    provider,
    provisioning,
    urls,
    queues,
    fabric,
)


def run(spec: dict, doc: Located, facts: dict) -> list[InputError]:
    errors: list[InputError] = []
    for module in MODULES:
        errors.extend(module.check(spec, doc, facts))
    errors.sort(key=lambda e: (e.location.path, e.location.line, e.location.col))  # by file, then line
    return errors
