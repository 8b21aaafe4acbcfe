"""What each provider can run: the Node Tuning Operator (`Tuned`) exists on OpenShift and on
clusters that installed it themselves (`generic`), not on the managed Kubernetes services
(``nodeTuningOperator`` in ``libsonnet/providers.json``); GKE runs its own NVIDIA driver
installer and device plugin (``managedNvidiaStack``), which only ``gpu.nvidia.mode: managed``
fits, and that mode fits nowhere else."""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.advertised import is_dra
from generator.yamlio.positions import Located


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    yield from _nvidia_stack_errors(spec, doc, facts)
    yield from _image_toolkit_errors(spec, doc, facts)
    provider = spec["provider"]
    if spec["tuning"]["backend"] == "tuned" and not facts["nodeTuningOperator"]:
        yield doc.error(
            f"tuning.backend tuned needs the Node Tuning Operator, which {provider} does not run",
            ("tuning", "backend"),
            "use tuning.backend: daemonset, or provider: openshift (or generic, with the "
            "Node Tuning Operator installed)",
            at_value=True,
        )


def _image_toolkit_errors(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    """The GPU Operator on node images that ship the driver with its container toolkit
    (``nodeImageNvidiaToolkit``, AKS): the operator's toolkit would be installed over the image's
    and rewrite its containerd configuration. Microsoft's and NVIDIA's AKS guides skip the
    image's driver (node pools with ``--gpu-driver none``) and let the operator install both."""
    nvidia = spec["gpu"]["nvidia"]
    if not facts["nodeImageNvidiaToolkit"] or nvidia["mode"] != "operator" or nvidia["driver"]["managed"]:
        return
    if not [p for p in spec["nodePools"] if p.get("gpu", {}).get("vendor") == "nvidia"]:
        return
    provider = spec["provider"]
    yield doc.error(
        f"gpu.nvidia.driver.managed is false, so {provider}'s node image brings the driver, and with it its own "
        "NVIDIA Container Toolkit: the GPU Operator would install its toolkit over the image's",
        ("gpu", "nvidia", "driver", "managed"),
        "create the GPU node pools with --gpu-driver none and set gpu.nvidia.driver.managed: true (the operator "
        f"installs driver and toolkit; provisioned pools get gpu.mode: None), or use gpu.nvidia.mode: device-plugin "
        f"with {provider}'s driver and toolkit",
        at_value=True,
    )


MANAGED = (
    "create the GPU node pools with --accelerator type=<gpu>,count=<n>,gpu-driver-version=default (or latest), "
    "time-sharing with gpu-sharing-strategy=time-sharing,max-shared-clients-per-gpu=<replicas> (docs/gpu.md, GKE)"
)


def _nvidia_stack_errors(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    """``gpu.nvidia.mode`` against the provider's ``managedNvidiaStack``: where the platform runs
    the driver and device plugin, the upstream plugin would advertise the GPUs a second time and
    its ``runtimeClassName: nvidia`` has no handler; ``managed`` renders no NVIDIA node software,
    so whatever relied on it (the DCGM exporter, mixed MIG, renamed time-slicing, the DRA driver) is refused."""
    nvidia = [(i, p) for i, p in enumerate(spec["nodePools"]) if p.get("gpu", {}).get("vendor") == "nvidia"]
    mode, provider = spec["gpu"]["nvidia"]["mode"], spec["provider"]
    if not nvidia:
        return
    at = ("gpu", "nvidia", "mode")
    if facts["managedNvidiaStack"] and mode == "device-plugin":
        yield doc.error(
            f"gpu.nvidia.mode device-plugin does not fit {provider}'s managed GPU stack: {provider} installs the "
            "driver and runs its own device plugin on GPU node pools, so the upstream plugin would advertise "
            "nvidia.com/gpu a second time, and runtimeClassName: nvidia has no handler in its containerd",
            at,
            f"set gpu.nvidia.mode: managed and {MANAGED}",
            at_value=True,
        )
    if mode != "managed":
        return
    if not facts["managedNvidiaStack"]:
        yield doc.error(
            f"gpu.nvidia.mode managed leaves the NVIDIA driver and device plugin to the platform, and {provider} "
            "runs neither",
            at,
            "use gpu.nvidia.mode: operator (or device-plugin where the node image ships the driver)",
            at_value=True,
        )
        return
    if spec["monitoring"]["dcgmExporter"]:
        yield doc.error(
            "monitoring.dcgmExporter is on, and with gpu.nvidia.mode managed nothing renders the DCGM exporter "
            f"({provider} does not run one in the cluster): GPU metrics and the autoscalers on them would be missing",
            ("monitoring", "dcgmExporter") if "dcgmExporter" in doc.data.get("monitoring", {}) else at,
            f"set monitoring.dcgmExporter: false ({provider} exports DCGM metrics to Cloud Monitoring when the "
            "cluster is created with --monitoring=SYSTEM,DCGM)",
            at_value=True,
        )
    for i, pool in nvidia:
        gpu = pool["gpu"]
        if gpu["mig"]["strategy"] == "mixed":
            yield doc.error(
                f"pool {pool['name']} uses mig.strategy mixed, and {provider} advertises the MIG instances it makes "
                "(node pool gpu-partition-size) as nvidia.com/gpu, one per instance: no nvidia.com/mig-* resource "
                "would exist",
                ("nodePools", i, "gpu", "mig", "strategy"),
                "use mig.strategy: single with the one profile the node pool's gpu-partition-size names",
                at_value=True,
            )
        if is_dra(gpu):
            yield doc.error(
                f"pool {pool['name']} has allocation: dra, and with gpu.nvidia.mode managed {provider}'s device "
                "plugin already advertises its GPUs: the NVIDIA DRA driver beside it would hand out the same GPUs again",
                ("nodePools", i, "gpu", "allocation"),
                "drop allocation: dra (GKE's device plugin advertises nvidia.com/gpu)",
                at_value=True,
            )
        if gpu.get("timeSlicing", {}).get("renameByDefault"):
            yield doc.error(
                f"pool {pool['name']}: {provider} advertises time-shared GPUs as nvidia.com/gpu, not nvidia.com/gpu.shared",
                ("nodePools", i, "gpu", "timeSlicing", "renameByDefault"),
                "set timeSlicing.renameByDefault: false",
                at_value=True,
            )
