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
    schema_file = os.path.join(project.schemas_folder, "config.schema.json")
    key = _key(path, schema_file)
    kept = _kept(key) if key is not None else None
    if kept is not None:
        return Config(path, kept)
    # the YAML reader and JSON Schema load only for a file to read and not kept valid: a project
    # without one, and a lint after an edit of a project whose config is unchanged, do without
    # them (with dataclasses, inspect, typing, pathlib, json and re: ~60 ms of such a lint)
    from pathlib import Path

    from generator.inputs.load import apply_defaults, load_schema, schema_errors
    from generator.lint.ruleconfig import rule_errors
    from generator.yamlio.positions import load_file

    doc = load_file(Path(path), project.display(path))
    schema = load_schema(Path(schema_file))
    if doc.data is None:
        doc.data = {}
    errors = schema_errors(doc, schema) or rule_errors(doc)
    if errors:
        raise InputErrors(errors)
    import copy  # with weakref: only for a config file

    config = Config(path, apply_defaults(schema, copy.deepcopy(doc.data)))
    if key is not None:
        _keep(key, config.data)
    return config


# Valid configs are kept in the user cache, their data with the schema's defaults, as one
# ``marshal`` dump each, named by a digest of what decides them: the file's bytes, the schema
# file's, the package's code (``codeprint``: the rules and options a config may name) and this
# layout. A config with an error is never kept: it is read, and its errors worded, every time.
FOLDER = "config"
KEPT = 16  # validated configs kept (the newest): a project's, a few edits' worth
_FORMAT = 1


def _key(path: str, schema_file: str) -> str | None:
    """The digest of what decides the config's data, None when a file cannot be read (the full
    read then says why)."""
    from generator import __version__, codeprint
    from generator.jsontext import dumps
    from generator.sha import sha256

    digest = sha256()
    try:
        for name in (path, schema_file):
            with open(name, "rb") as handle:
                digest.update(sha256(handle.read()).digest())
    except OSError:
        return None
    digest.update(dumps([_FORMAT, __version__, codeprint.fingerprint()]).encode())
    return digest.hexdigest()


def _kept(key: str) -> dict | None:
    """The data kept for ``key``, None when there is none or it does not load as a mapping."""
    import marshal

    from generator.paths import cache_folder

    try:
        with open(os.path.join(cache_folder(), FOLDER, f"{key}.marshal"), "rb") as handle:
            data = marshal.loads(handle.read())
    except (OSError, ValueError, EOFError, TypeError):
        return None
    return data if isinstance(data, dict) else None


def _keep(key: str, data: dict) -> None:
    """Keep a valid config's data (whole or not at all) and no more than ``KEPT`` of them; a
    cache that cannot be written only means reading the file again."""
    import marshal

    from generator.paths import cache_folder
    from generator.replace import replace_file

    folder = os.path.join(cache_folder(), FOLDER)
    try:
        os.makedirs(folder, exist_ok=True)
        replace_file(os.path.join(folder, f"{key}.marshal"), marshal.dumps(data))
        with os.scandir(folder) as entries:
            kept = sorted(
                ((e.stat().st_mtime_ns, e.path) for e in entries if e.name.endswith(".marshal")), reverse=True
            )
        for _, old in kept[KEPT:]:
            os.unlink(old)
    except (OSError, ValueError):
        return
