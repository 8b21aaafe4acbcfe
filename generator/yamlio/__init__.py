"""YAML in and out: the one reader (go-yaml v2 scalars, positions, bounds) and the canonical emitter.

May import: generator.regex, generator.diagnostic, generator.errors, generator.record.
"""
