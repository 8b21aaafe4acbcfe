"""A ``provisioning.disruption.window`` whose ``duration`` reaches its next opening.

Rationale: the window renders as Karpenter disruption budgets (a schedule and a duration):
a window open as long as the time between two openings never closes, so Karpenter may
disrupt the pool's nodes at any hour, which the window was meant to prevent.

Fix: make the window shorter than the time between two openings (24h when it opens every day).

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: eks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    network:
      cilium: {enabled: false}
    nodePools:
      - name: h100
        nodeSelector: {karpenter.sh/nodepool: h100}
        gpu: {vendor: nvidia, model: H100-80GB, perNode: 8, nodes: 2}
        provisioning:
          instanceTypes: [p5.48xlarge]
          capacityTypes: [on-demand]
          image: {family: al2023, version: v20260724}
          disruption:
            window: {days: [sat], start: "02:00", duration: 6h}
          nodeClass: {role: KarpenterNodeRole-x}
    gpu:
      nvidia: {mode: device-plugin}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: eks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    network:
      cilium: {enabled: false}
    nodePools:
      - name: h100
        nodeSelector: {karpenter.sh/nodepool: h100}
        gpu: {vendor: nvidia, model: H100-80GB, perNode: 8, nodes: 2}
        provisioning:
          instanceTypes: [p5.48xlarge]
          capacityTypes: [on-demand]
          image: {family: al2023, version: v20260724}
          disruption:
            window: {start: "02:00", duration: 24h}
          nodeClass: {role: KarpenterNodeRole-x}
    gpu:
      nvidia: {mode: device-plugin}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.consistency.in416_provisioning_without_karpenter import provisioned
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN418",
    "maintenance-window-never-closes",
    "error",
    "A maintenance window that opens again before it closes",
    __doc__,
)

DAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
WEEK = 7 * 24 * 60


def _minutes(duration: str) -> int:
    hours, _, rest = duration.partition("h") if "h" in duration else ("0", "", duration)
    return int(hours) * 60 + int(rest.rstrip("m") or 0)


def window_openings(window: dict) -> list[tuple[int, int]]:
    """The window's (opening, closing) minutes of the week (Sunday 00:00 UTC is 0), sorted."""
    hour, minute = (int(x) for x in window["start"].split(":"))
    days = [DAYS.index(d) for d in window.get("days", DAYS)]
    length = _minutes(window["duration"])
    return sorted((d * 24 * 60 + hour * 60 + minute, d * 24 * 60 + hour * 60 + minute + length) for d in days)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for _, pool, _, base in provisioned(spec, facts):
        window = pool["provisioning"]["disruption"].get("window")
        if window is None:
            continue
        openings = window_openings(window)
        for i, (_, closing) in enumerate(openings):
            following = openings[(i + 1) % len(openings)][0] + (WEEK if i + 1 == len(openings) else 0)
            if closing >= following:
                yield doc.error(
                    f"the maintenance window is open for {window['duration']} but opens again "
                    f"{(following - openings[i][0]) // 60}h after it opened: it would never close",
                    (*base, "disruption", "window", "duration"),
                    "make the window shorter than the time between two openings (24h when it opens every day)",
                    at_value=True,
                )
                break


CHECK = InputCheck(meta=META, check=check)
