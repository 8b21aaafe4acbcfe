"""A resource claim asks for a DeviceClass the target cluster does not have.

Rationale: the scheduler cannot allocate a claim whose request names a DeviceClass that does
not exist, so the pods using it stay Pending (``resourceclaim ... deviceclass.resource.k8s.io
"gpu.example.com" not found``). A cluster's DeviceClasses are the ones its rendered tree
creates and those its DRA driver's chart installs (NVIDIA's nvidia-dra-driver-gpu:
``gpu.nvidia.com``, ``mig.nvidia.com``; with ComputeDomains ``compute-domain-daemon.nvidia.com``
and ``compute-domain-default-channel.nvidia.com``, deployments/helm/nvidia-dra-driver-gpu
templates/deviceclass-*.yaml, v25.12.0); a DeviceClass in the linted files counts too. The
claim's requests are read in every served version (``v1``: ``exactly`` and
``firstAvailable``; ``v1beta1``/``v1beta2``).

Fix: use a DeviceClass the cluster offers (``kubectl get deviceclass``), or run the workload
on a cluster with DRA pools.

PASS:

    # gpu-gitops-config: {lint: {cluster: aks-h100-training}}
    apiVersion: resource.k8s.io/v1
    kind: DeviceClass
    metadata:
      name: gpu.example.com
    spec:
      selectors:
        - cel: {expression: "device.driver == 'gpu.example.com'"}
    ---
    apiVersion: resource.k8s.io/v1
    kind: ResourceClaimTemplate
    metadata:
      name: single-gpu
      namespace: gpu-training
    spec:
      spec:
        devices:
          requests:
            - name: gpu
              exactly: {deviceClassName: gpu.example.com}

FAIL:

    # gpu-gitops-config: {lint: {cluster: aks-h100-training}}
    apiVersion: resource.k8s.io/v1
    kind: ResourceClaimTemplate
    metadata:
      name: single-gpu
      namespace: gpu-training
    spec:
      spec:
        devices:
          requests:
            - name: gpu
              exactly: {deviceClassName: gpu.nvidia.com}
"""

from collections.abc import Iterator, Sequence

from generator.diagnostic import Diagnostic
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, SetRule
from generator.lint.references import NameFact
from generator.rulemeta import RuleMeta

META = RuleMeta(
    "CL007",
    "device-class-not-offered",
    "error",
    "A resource claim asks for a DeviceClass the cluster does not have",
    __doc__,
)


def facts(res: Resource, ctx: Context) -> Iterator[tuple[NameFact, Hit | None]]:
    contract = ctx.contract
    kind = res.kind
    if kind == "DeviceClass" and res.obj.get("apiVersion", "").startswith("resource.k8s.io/"):
        yield ("class", res.name), None
        return
    if kind not in ("ResourceClaim", "ResourceClaimTemplate"):
        return  # most objects, at the cost of one comparison
    spec = res.obj.get("spec")
    base: tuple = ("spec",)
    if kind == "ResourceClaimTemplate" and isinstance(spec, dict):
        spec, base = spec.get("spec"), ("spec", "spec")
    for path, name in _device_classes(spec, base):
        yield (
            ("use", name),
            Hit(
                f'deviceclass.resource.k8s.io "{name}" not found on cluster {contract.cluster}',
                path,
                at_value=True,
                hint="the cluster's DeviceClasses: " + (", ".join(contract.device_classes) or "none (no DRA pools)"),
            ),
        )


def _device_classes(spec: object, base: tuple) -> Iterator[tuple[tuple, str]]:
    devices = spec.get("devices") if isinstance(spec, dict) else None
    requests = devices.get("requests") if isinstance(devices, dict) else None
    for i, request in enumerate(requests if isinstance(requests, list) else []):
        if not isinstance(request, dict):
            continue
        at = base + ("devices", "requests", i)
        candidates = [(at, request)]
        if isinstance(request.get("exactly"), dict):
            candidates.append((at + ("exactly",), request["exactly"]))
        for j, sub in enumerate(request.get("firstAvailable") or []):
            if isinstance(sub, dict):
                candidates.append((at + ("firstAvailable", j), sub))
        for path, node in candidates:
            name = node.get("deviceClassName")
            if isinstance(name, str) and name:
                yield path + ("deviceClassName",), name


def check(facts: Sequence[tuple[NameFact, Diagnostic | None]], ctx: Context) -> Iterator[Diagnostic]:
    contract = ctx.contract
    known = {fact[1] for fact, _ in facts if fact[0] == "class"} | set(contract.device_classes)
    for fact, finding in facts:
        if fact[0] == "use" and finding is not None and fact[1] not in known:
            yield finding


RULE = SetRule(
    meta=META,
    cluster=True,
    facts=facts,
    check=check,
    kinds=frozenset({"DeviceClass", "ResourceClaim", "ResourceClaimTemplate"}),
)
