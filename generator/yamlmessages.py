"""ruamel's YAML error texts reworded for users, shared by every loader.

ruamel says ``found duplicate key "x" with value "1" (original value: "2")``; users need
the key. The cluster-input loader and the lint loader word it the same way.
"""

from __future__ import annotations


def duplicate_key(problem: str) -> str:
    """``duplicate key 'x'`` from ruamel's DuplicateKeyError problem text (as is when unparsable)."""
    parts = problem.split('"')
    return f"duplicate key {parts[1]!r}" if len(parts) > 2 else problem
