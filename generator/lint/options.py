"""Rule options: declared by the rule (its ``options``), set under ``lint.rules.<ID>``.

As in yamllint (``CONF``/``DEFAULT`` in the rule module), a rule says which settings it
reads, their type and default; the config file can set them per rule and is checked
against the declaration, so a misspelt option or a wrong type is an error at its line:

.. code-block:: yaml

    lint:
      rules:
        SEC006: off                      # the level alone
        GPU004: {level: warning, taintKeys: [sku]}
"""

from __future__ import annotations

from collections.abc import Mapping

from generator.record import Frozen

LEVEL = "level"


class Option(Frozen):
    """One setting of a rule: its JSON Schema, default and a sentence for the docs."""

    __slots__ = _fields = ("schema", "default", "description")

    schema: dict
    default: object
    description: str

    def __init__(self, schema: dict, default: object, description: str):
        put = object.__setattr__
        put(self, "schema", schema)
        put(self, "default", default)
        put(self, "description", description)


def problems(rule_id: str, options: Mapping[str, Option], section: dict) -> list[tuple[str, str, str]]:
    """``(option, message, hint)`` for each key of a ``lint.rules.<ID>`` mapping the rule does not
    declare (``options``), or whose value does not fit the declaration."""
    found = []
    for name, value in section.items():
        if name == LEVEL:
            continue
        option = options.get(name)
        if option is None:
            import difflib  # for a misspelt option only: a lint that loads rules never needs it

            known = sorted(options)
            close = difflib.get_close_matches(str(name), known, n=1)
            hint = (f"did you mean {close[0]!r}? " if close else "") + (
                f"{rule_id} has {', '.join(known)}" if known else f"{rule_id} has no options, only `level`"
            )
            found.append((name, f"unknown option {name!r} for rule {rule_id}", hint))
            continue
        import jsonschema  # only a config that sets rule options needs it

        error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(option.schema).iter_errors(value))
        if error is not None:
            found.append((name, f"{rule_id} option {name}: {error.message}", option.description))
    return found
