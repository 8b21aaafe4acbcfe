"""Schema validation of Kubernetes objects, shared by render and lint."""

from generator.validate.validator import SchemaProblem, SchemaValidator

__all__ = ["SchemaProblem", "SchemaValidator"]
