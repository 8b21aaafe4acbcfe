"""``rendered/<cluster>/`` on disk: the lock, the atomic swap, comparison and diffs, the sum file.
It knows files and bytes only, nothing of inputs or Jsonnet.

May import: generator.regex, generator.record, generator.replace, generator.diagnostic, generator.errors, generator.paths, generator.charts (the lock,
which imports only the standard library).
"""
