"""kubeconform-style schema locations for custom resources.

A location is a path template such as
``schemas/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json``; locations are tried in
order and the first one that has the file wins (kubeconform's rule). The variables are the
ones kubeconform documents, so users can reuse the locations they already have.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from generator.errors import InputError

_VARIABLE = re.compile(r"\{\{\s*\.(\w+)\s*\}\}")
KNOWN_VARIABLES = frozenset(
    {"Group", "ResourceKind", "ResourceAPIVersion", "KindSuffix", "NormalizedKubernetesVersion", "StrictSuffix"}
)


def template_variables(api_version: str, kind: str, kubernetes_version: str) -> dict[str, str]:
    """The values kubeconform gives its template variables for one object."""
    group, _, version = api_version.rpartition("/")
    first = group.split(".")[0] if group else ""
    kind_suffix = f"-{first}-{version}" if first else f"-{version}"
    return {
        # kubeconform names the core group after its version ("v1")
        "Group": group or version,
        "ResourceKind": kind.lower(),
        "ResourceAPIVersion": version,
        "KindSuffix": kind_suffix,
        "NormalizedKubernetesVersion": f"v{kubernetes_version}",
        "StrictSuffix": "-strict",
    }


@dataclass(frozen=True)
class SchemaLocation:
    """One template, checked for unknown variables when it is given, not when it is used."""

    template: str

    def __post_init__(self) -> None:
        unknown = sorted(set(_VARIABLE.findall(self.template)) - KNOWN_VARIABLES)
        if unknown:
            raise InputError(
                f"schema location {self.template!r} uses unknown variable(s): {', '.join(unknown)}",
                hint=f"known variables: {', '.join(sorted(KNOWN_VARIABLES))}",
            )

    @property
    def is_remote(self) -> bool:
        return self.template.startswith(("http://", "https://"))

    def expand(self, variables: dict[str, str]) -> Path:
        template = self.template
        if not template.endswith("json"):
            # kubeconform appends its standard layout to a bare folder
            template = template.rstrip("/") + (
                "/{{.NormalizedKubernetesVersion}}-standalone{{.StrictSuffix}}/{{.ResourceKind}}{{.KindSuffix}}.json"
            )
        return Path(_VARIABLE.sub(lambda m: variables[m.group(1)], template))


def find_schema_file(locations: list[SchemaLocation], variables: dict[str, str]) -> Path | None:
    """The first existing file among ``locations`` for these variables."""
    for location in locations:
        candidate = location.expand(variables)
        if candidate.is_file():
            return candidate
    return None
