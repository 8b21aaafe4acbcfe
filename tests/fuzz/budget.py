"""How hard the fuzz tests try: a few derandomized examples in the suite, more on demand.

``GPU_GITOPS_FUZZ_EXAMPLES`` sets the number of examples per test; ``GPU_GITOPS_FUZZ_SEED``
draws them at random from that seed instead of the fixed sequence CI sees.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, seed, settings

DEFAULT_EXAMPLES = 30


def fuzz_settings(default: int = DEFAULT_EXAMPLES):
    """Decorator: hypothesis settings (and seed) for one fuzz test."""
    examples = int(os.environ.get("GPU_GITOPS_FUZZ_EXAMPLES", default))
    chosen_seed = os.environ.get("GPU_GITOPS_FUZZ_SEED")
    configured = settings(
        max_examples=examples,
        deadline=None,  # a render takes seconds; time is not the property under test
        derandomize=chosen_seed is None,
        database=None,  # no .hypothesis/ folder left behind by the suite
        print_blob=True,
        suppress_health_check=list(HealthCheck),  # slow examples and large inputs are the point
    )

    def decorate(test):
        test = configured(test)
        return seed(int(chosen_seed))(test) if chosen_seed is not None else test

    return decorate
