"""A JSON path (keys and list indexes) as the dotted text Kubernetes and users read.

``('spec', 'containers', 0, 'resources')`` → ``spec.containers[0].resources``, the way the
API server names fields in its errors. Shared by the input checks, the lint rules and the
schema validator so a field is spelled the same wherever it is reported. Map keys that
are not field names (``limits[nvidia.com/gpu]``) are added by the caller, which knows them.

May import: nothing of generator.
"""

from __future__ import annotations


def dotted(path: tuple | list) -> str:
    """The dotted form of ``path``; empty for the top level (callers word that themselves)."""
    text = ""
    for part in path:
        if isinstance(part, int) and not isinstance(part, bool):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text


def value_at(obj: object, path: tuple | list) -> object:
    """The value at ``path`` (mapping keys and list indexes) in ``obj``, None where the path
    leads nowhere."""
    for part in path:
        if isinstance(obj, dict):
            obj = obj.get(part)
        elif isinstance(obj, list) and isinstance(part, int) and -len(obj) <= part < len(obj):
            obj = obj[part]
        else:
            return None
    return obj
