"""The config a lint rule's example or fixture needs; the examples themselves are read from
the rule's docstring by ``generator.ruledoc`` (``split``, re-exported here).

An example (or a fixture file) that needs settings says so in a leading comment holding the
``.gpu-gitops.yaml`` content it needs, as a YAML flow mapping:
``# gpu-gitops-config: {lint: {provider: aks}}``.
"""

from __future__ import annotations

from generator.ruledoc import VERDICTS, Example, split

__all__ = ["CONFIG_COMMENT", "VERDICTS", "Example", "config_comment", "split"]

CONFIG_COMMENT = "# gpu-gitops-config:"


def config_comment(text: str) -> dict:
    """The config a YAML text asks for in its leading comments (``{}`` when none)."""
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped.startswith("#"):
            break
        if stripped.startswith(CONFIG_COMMENT):
            from ruamel.yaml import YAML  # examples and fixtures only: a lint never reads one
            from ruamel.yaml.error import YAMLError

            try:
                value = YAML(typ="safe", pure=True).load(stripped[len(CONFIG_COMMENT) :])
            except YAMLError as exc:
                raise ValueError(f"{CONFIG_COMMENT} is not a YAML flow mapping: {exc}") from None
            if not isinstance(value, dict):
                raise ValueError(f"{CONFIG_COMMENT} needs a mapping, like {{lint: {{provider: aks}}}}")
            return value
    return {}
