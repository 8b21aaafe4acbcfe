"""Cluster inputs and project settings: read with positions, schema-checked, completed with
defaults and conventions, cross-checked (``consistency``); every problem a located InputError.

May import: generator.regex, generator.replace, generator.ruledoc, generator.addresses, generator.diagnostic, generator.errors, generator.paths,
generator.jsonpath, generator.yamlio, generator.library, generator.validate (the versions it has schemas for),
generator.kube, generator.rulemeta, generator.git (where the project sits in its repository, IN111).
"""
