"""What a change does to each cluster: the rendered objects at a git revision against the work
tree's, object by object, with the dangerous changes named and the acknowledged ones shown.

Flux and Argo CD apply and prune what ``rendered/`` holds, so the review reads ``rendered/`` as
the engines will see it (from git at the base, from disk now) and never re-renders the base.

May import: generator.regex, generator.diagnostic, generator.errors, generator.git, generator.paths, generator.jsonpath,
generator.yamlio, generator.tree, generator.report (text made safe to print, GitHub's escaping), generator.kube
(quantities, as the API server reads them).
"""
