"""One cluster's input to its tree's bytes (evaluate, lay out, check), and the fleet of them
(``pipeline``: select, run in processes, hand each tree to ``generator.tree`` to compare or write).

May import: generator.codeprint, generator.regex, generator.diagnostic, generator.errors, generator.git, generator.paths, generator.record, generator.cpus, generator.sha,
generator.progress,
generator.yamlio, generator.library, generator.inputs, generator.validate, generator.lint, generator.tree,
generator.charts.
"""
