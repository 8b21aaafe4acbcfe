"""MIG profiles of the NVIDIA GPU models gpu-gitops knows, and whether a layout fits one GPU.

A GPU has compute slices and memory slices (7 and 8 on A100/H100/H200/B200/GB200, 4 and 4 on A30).
Each GPU-instance profile takes a number of compute slices and a run of memory slices that may
only start at fixed offsets; these are the placements NVML reports with
``nvidia-smi mig -lgipp`` (A100/H100: 1g {0..6}:1, 1g double-memory {0,2,4,6}:2,
2g {0,2,4}:2, 3g {0,4}:4, 4g {0}:4, 7g {0}:8 — NVIDIA MIG user guide, "Supported MIG
Profiles"). Profile names per model follow NVIDIA/mig-parted's hopper-blackwell example config
and the gpu-operator default mig-parted config (NVIDIA/gpu-operator v26.7.0
assets/state-mig-manager/0400_configmap.yaml: B200, device 0x2901, 1g.23gb/1g.45gb/2g.45gb/
3g.90gb/4g.90gb/7g.180gb; GB200, device 0x2941, 1g.23gb/1g.47gb/2g.47gb/3g.93gb/4g.93gb/
7g.186gb, the same seven-slice placements as B200). A layout is valid when every instance can be
given a placement without two of them overlapping.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Profile:
    compute: int
    memory: int  # memory slices taken
    starts: tuple[int, ...]  # memory slice offsets the profile may start at
    max_count: int


@dataclass(frozen=True)
class Model:
    compute: int
    profiles: dict[str, Profile]


def _seven_slice(small: int, double: int, half: int, full: int) -> Model:
    """The 7-compute / 8-memory-slice layout of A100, H100, H200, B200 and GB200, by memory sizes in GB."""
    return Model(
        7,
        {
            f"1g.{small}gb": Profile(1, 1, tuple(range(7)), 7),
            f"1g.{small}gb+me": Profile(1, 1, tuple(range(7)), 1),
            f"1g.{double}gb": Profile(1, 2, (0, 2, 4, 6), 4),
            f"2g.{double}gb": Profile(2, 2, (0, 2, 4), 3),
            f"3g.{half}gb": Profile(3, 4, (0, 4), 2),
            f"4g.{half}gb": Profile(4, 4, (0,), 1),
            f"7g.{full}gb": Profile(7, 8, (0,), 1),
        },
    )


MODELS: dict[str, Model] = {
    "A30-24GB": Model(
        4,
        {
            "1g.6gb": Profile(1, 1, (0, 1, 2, 3), 4),
            "1g.6gb+me": Profile(1, 1, (0, 1, 2, 3), 1),
            "2g.12gb": Profile(2, 2, (0, 2), 2),
            "2g.12gb+me": Profile(2, 2, (0, 2), 1),
            "4g.24gb": Profile(4, 4, (0,), 1),
        },
    ),
    "A100-40GB": _seven_slice(5, 10, 20, 40),
    "A100-80GB": _seven_slice(10, 20, 40, 80),
    "H100-80GB": _seven_slice(10, 20, 40, 80),
    "H100-94GB": _seven_slice(12, 24, 47, 94),
    "H200-141GB": _seven_slice(18, 35, 71, 141),
    "B200": _seven_slice(23, 45, 90, 180),
    "GB200": _seven_slice(23, 47, 93, 186),
}
MODELS["B200-180GB"] = MODELS["B200"]
MODELS["GB200-186GB"] = MODELS["GB200"]


def fits(model: Model, layout: dict[str, int]) -> bool:
    """True when the instances of ``layout`` can all be placed on one GPU without overlap."""
    instances = sorted(
        (model.profiles[name] for name, count in layout.items() for _ in range(count)),
        key=lambda p: (len(p.starts), -p.memory),
    )
    used = [False] * 8

    def place(i: int) -> bool:
        if i == len(instances):
            return True
        profile = instances[i]
        for start in profile.starts:
            span = range(start, start + profile.memory)
            if not any(used[s] for s in span):
                for s in span:
                    used[s] = True
                if place(i + 1):
                    return True
                for s in span:
                    used[s] = False
        return False

    return place(0)
