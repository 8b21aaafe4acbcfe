"""Kubernetes knowledge that inputs, lint and render share: resource quantities, where pod
templates sit in workload kinds, and which API versions are deprecated or removed.

May import: generator.regex, generator.record.
"""
