"""Schema validation of Kubernetes objects, shared by render and lint.

``SchemaValidator`` is imported on first use: ``generator.validate.kubernetes`` (version
names, schema paths) is needed without JSON Schema, e.g. by the lint settings.

May import: generator.addresses, generator.regex, generator.jsontext, generator.replace, generator.record, generator.errors, generator.paths, generator.jsonpath, generator.sha.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's flag without importing typing (PEP 781; mypy reads it as True)
if TYPE_CHECKING:
    from generator.validate.validator import SchemaProblem, SchemaValidator


__all__ = ["SchemaProblem", "SchemaValidator"]


def __getattr__(name: str) -> object:
    if name in __all__:
        from generator.validate import validator

        return getattr(validator, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
