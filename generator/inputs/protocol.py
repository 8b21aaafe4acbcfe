"""What an input check is to its registry: its metadata and its typed check, as a lint rule's.

A check module (``generator.inputs.consistency``) defines its check and one frozen object,
``CHECK``, holding the check's ``RuleMeta`` (``generator.rulemeta``: ID, name, default severity,
summary, docstring). The class says what the check receives:

- ``InputCheck``: the defaulted input, its positions and the provider's facts (``SpecCheck``);
- ``ProjectInputCheck``: those and the project's folder, for what depends on where the project
  sits (``ProjectCheck``).

A check yields ``InputError``s located in the input (``InputWarning``s for a warning check);
the registry puts the check's ID on each.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from generator.errors import InputError
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located


class SpecCheck(Protocol):
    """What an input check finds in one cluster's defaulted input (``spec``), located through
    ``doc``; ``facts`` is the provider's row of the library's ``providers.json``."""

    def __call__(self, spec: dict, doc: Located, facts: dict, /) -> Iterable[InputError]: ...


class ProjectCheck(Protocol):
    """What an input check finds in one cluster's input given the project's folder, ``root``."""

    def __call__(self, spec: dict, doc: Located, facts: dict, root: Path, /) -> Iterable[InputError]: ...


@dataclass(frozen=True, kw_only=True)
class InputCheck:
    meta: RuleMeta
    check: SpecCheck


@dataclass(frozen=True, kw_only=True)
class ProjectInputCheck:
    meta: RuleMeta
    check: ProjectCheck


Check = InputCheck | ProjectInputCheck
