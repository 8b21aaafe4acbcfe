"""Fuzz harnesses: mutated cluster inputs through render, mutated manifests through lint.

A small, derandomized budget runs with the suite; ``GPU_GITOPS_FUZZ_EXAMPLES=5000`` runs
the same properties at depth, and ``bench/fuzz.py`` (``GPU_GITOPS_FUZZ_COUNT=10000``) runs
them in seeded chunks (README, "Development").
"""
