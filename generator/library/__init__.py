"""The Jsonnet library and its tables: the bounded, sandboxed evaluator and the registry, provider
and versions tables under ``libsonnet/``, with the markers and digests the library leaves.

May import: generator.regex, generator.diagnostic, generator.errors, generator.paths, generator.yamlio.
"""
