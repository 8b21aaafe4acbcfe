"""A rule's PASS and FAIL examples, read from its docstring, and the config an example needs.

The docstring is the one source, as in yamllint: ``explain`` prints the examples from the
installed package, ``docs/rules.md`` publishes them, and a test lints each one (a PASS example
gives no finding of its rule, a FAIL example exactly one), so the documentation cannot show
what the rule does not do. An example starts at a line ``PASS:`` or ``FAIL:`` and is the
indented YAML block under it::

    PASS:

        apiVersion: v1
        kind: Pod

An example (or a fixture file) that needs settings says so in a leading comment holding the
``.gpu-gitops.yaml`` content it needs, as a YAML flow mapping:
``# gpu-gitops-config: {lint: {provider: aks}}``.
"""

from __future__ import annotations

import inspect
import re
import textwrap
from dataclasses import dataclass

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

VERDICTS = ("PASS", "FAIL")
_HEADER = re.compile(r"^(PASS|FAIL):\s*$", re.M)
CONFIG_COMMENT = "# gpu-gitops-config:"


@dataclass(frozen=True)
class Example:
    verdict: str  # "PASS" or "FAIL"
    text: str  # the YAML, dedented, ending in a newline

    @property
    def config(self) -> dict:
        return config_comment(self.text)


def split(docstring: str | None) -> tuple[str, list[Example]]:
    """``(prose, examples)``: the docstring before its first example, and the examples in order."""
    text = inspect.cleandoc(docstring or "")
    found = list(_HEADER.finditer(text))
    if not found:
        return text, []
    examples = []
    for match, following in zip(found, found[1:] + [None], strict=True):
        block = text[match.end() : following.start() if following else len(text)]
        examples.append(Example(match[1], textwrap.dedent(block).strip("\n") + "\n"))
    return text[: found[0].start()].rstrip(), examples


def config_comment(text: str) -> dict:
    """The config a YAML text asks for in its leading comments (``{}`` when none)."""
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped.startswith("#"):
            break
        if stripped.startswith(CONFIG_COMMENT):
            try:
                value = YAML(typ="safe", pure=True).load(stripped[len(CONFIG_COMMENT) :])
            except YAMLError as exc:
                raise ValueError(f"{CONFIG_COMMENT} is not a YAML flow mapping: {exc}") from None
            if not isinstance(value, dict):
                raise ValueError(f"{CONFIG_COMMENT} needs a mapping, like {{lint: {{provider: aks}}}}")
            return value
    return {}
