"""Canonical YAML: the one function that turns an object into the bytes we commit.

Keys follow the Kubernetes convention (apiVersion, kind, metadata, spec, data, then the rest
in sorted order; inside metadata: name, namespace, labels, annotations, then the rest);
nested keys are sorted; multi-line strings are literal blocks; LF and one trailing newline.
The same object always gives the same bytes.
"""

from __future__ import annotations

import io
import re
from typing import Any

from ruamel.yaml import YAML

_TOP = ("apiVersion", "kind", "metadata", "spec", "data", "stringData")
_METADATA = ("name", "generateName", "namespace", "labels", "annotations")


def _ordered(value: Any, first: tuple[str, ...] = ()) -> Any:
    if isinstance(value, dict):
        keys = [k for k in first if k in value] + sorted(k for k in value if k not in first)
        return {k: _ordered(value[k], _METADATA if (first is _TOP and k == "metadata") else ()) for k in keys}
    if isinstance(value, list):
        return [_ordered(v) for v in value]
    return value


# Strings a YAML 1.1 reader (kubectl, PyYAML, Flux, Argo CD) would read as something else:
# booleans such as on/off/yes/no, nulls, octal/hex/sexagesimal numbers, timestamps.
_YAML11_NOT_STRING = re.compile(
    r"""^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF
    |~|null|Null|NULL|
    |[-+]?(?:0b[01_]+|0x[0-9a-fA-F_]+|0o?[0-7_]+|[0-9][0-9_]*(?::[0-5]?[0-9])*|(?:[0-9][0-9_]*)?\.[0-9_]*(?:[eE][-+]?[0-9]+)?|[0-9][0-9_]*[eE][-+]?[0-9]+)
    |[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)
    |[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}.*)$""",
    re.VERBOSE,
)


def _represent_str(representer, data: str):
    if _YAML11_NOT_STRING.match(data):
        return representer.represent_scalar("tag:yaml.org,2002:str", data, style="'")
    if "\n" in data:
        # literal blocks cannot carry trailing spaces on a line or tabs reliably; keep them quoted
        if not any(line != line.rstrip() for line in data.split("\n")) and "\t" not in data:
            return representer.represent_scalar("tag:yaml.org,2002:str", data, style="|")
    return representer.represent_str(data)


def _make_yaml() -> YAML:
    yaml = YAML(typ="safe", pure=False)
    yaml.default_flow_style = False
    yaml.width = 4096
    yaml.allow_unicode = True
    yaml.indent(mapping=2, sequence=2, offset=0)
    yaml.representer.add_representer(str, _represent_str)
    yaml.representer.sort_base_mapping_type_on_output = False
    return yaml


_YAML = _make_yaml()


def to_yaml(obj: dict) -> str:
    """One Kubernetes object as canonical YAML text."""
    stream = io.StringIO()
    _YAML.dump(_ordered(obj, _TOP), stream)
    return stream.getvalue()


def to_yaml_plain(data: Any) -> str:
    """Any data (e.g. a kustomization) in the same style, keys in the given order."""
    stream = io.StringIO()
    _YAML.dump(data, stream)
    return stream.getvalue()
