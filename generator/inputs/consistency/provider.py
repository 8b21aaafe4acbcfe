"""What each provider can run: the Node Tuning Operator (`Tuned`) exists on OpenShift and on
clusters that installed it themselves (`generic`), not on the managed Kubernetes services
(``nodeTuningOperator`` in ``libsonnet/providers.json``)."""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.yamlio.positions import Located


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    provider = spec["provider"]
    if spec["tuning"]["backend"] == "tuned" and not facts["nodeTuningOperator"]:
        yield doc.error(
            f"tuning.backend tuned needs the Node Tuning Operator, which {provider} does not run",
            ("tuning", "backend"),
            "use tuning.backend: daemonset, or provider: openshift (or generic, with the "
            "Node Tuning Operator installed)",
            at_value=True,
        )
