"""The project configuration file, ``.gpu-gitops.yaml`` at the project root.

Validated against ``schemas/config.schema.json`` (unknown keys are errors, with their line);
absent file = all defaults. Command-line flags take precedence over the file. Above inputs and
lint: the file holds settings of both (its ``lint`` section is checked against the rule registry).

May import: generator.codeprint, generator.errors, generator.jsontext, generator.paths, generator.replace, generator.sha, generator.record, generator.yamlio, generator.inputs, generator.lint.
"""

from __future__ import annotations

import os

from generator.errors import InputErrors
from generator.paths import Project, plain
from generator.record import Record

CONFIG_FILE = ".gpu-gitops.yaml"


class Config(Record):
    """The file's path (None: no file; text, ``paths.plain``) and its data, with the schema's defaults."""

    __slots__ = _fields = ("path", "data")

    path: str | None
    data: dict

    def __init__(self, path: str | os.PathLike[str] | None = None, data: dict | None = None):
        self.path = None if path is None else plain(path)
        self.data = {} if data is None else data

    @property
    def schema_locations(self) -> list[str]:
        """Locations with relative local paths made relative to the config file's folder."""
        base = os.path.dirname(self.path) if self.path else "."
        out = []
        for loc in self.data.get("schemaLocations", []):
            if loc == "default" or loc.startswith(("http://", "https://", "/")):
                out.append(loc)
            else:
                out.append(plain(base, loc))
        return out

    @property
    def require_schemas(self) -> bool:
        return bool(self.data.get("requireSchemas", False))

    @property
    def prune(self) -> bool:
        """``render`` removes the trees of deleted clusters without ``--prune``."""
        return bool(self.data.get("prune", False))


def load_config(project: Project, explicit: str | os.PathLike[str] | None = None) -> Config:
    path = plain(explicit if explicit is not None else os.path.join(project.folder, CONFIG_FILE))
    if not os.path.isfile(path):
        if explicit:
            from generator.errors import InputError

            raise InputError("config file not found", path=str(explicit), hint="check the --config path")
        return Config()
    # the YAML reader and JSON Schema load only for a file to read: a project without one
    # (and a lint answered from its cache) does without them, and without ``pathlib``
    from pathlib import Path

    from generator.inputs.load import apply_defaults, load_schema, schema_errors
    from generator.lint.ruleconfig import rule_errors
    from generator.yamlio.positions import load_file

    doc = load_file(Path(path), project.display(path))
    schema = load_schema(project.schemas / "config.schema.json")
    if doc.data is None:
        doc.data = {}
    errors = schema_errors(doc, schema) or rule_errors(doc)
    if errors:
        raise InputErrors(errors)
    import copy  # with weakref: only for a config file

    return Config(path, apply_defaults(schema, copy.deepcopy(doc.data)))
