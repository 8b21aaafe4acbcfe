"""Where pod specs and containers sit inside workload objects, and how to name their fields.

Rules look at the pod templates wherever the kind keeps them (core workloads and the custom
resources of GPU batch and serving platforms, several per object for Ray or Kubeflow
jobs); ``generator.jsonpath`` names the fields they report the way the API server does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from generator.record import Frozen

TYPE_CHECKING = False  # typing's flag without importing typing (PEP 781; mypy reads it as True)
if TYPE_CHECKING:
    from fractions import Fraction


# PriorityClasses the API server creates in every cluster (kube-apiserver bootstrap data:
# pkg/registry/scheduling/rest/storage_scheduling.go, v1.32): a pod may name them with none linted.
BUILTIN_PRIORITY_CLASSES = ("system-cluster-critical", "system-node-critical")

# (API group, kind) → where its pod template's spec sits; "*" is every item of a list or
# value of a map. Core workloads first, then the custom resources GPU platforms run, with
# the paths of their CRDs' schemas (../shared/upstream-crds: KubeRay v1.7.0 ray-operator/
# config/crd/bases, Kubeflow Training v1.9.4 and Trainer v2.3.0 manifests/base/crds,
# LeaderWorkerSet v0.10.0 and JobSet v0.12.0 config/.../crd/bases, Volcano v1.15.1
# config/crd/volcano/bases, KEDA v2.20.2 and Kueue v0.19.2 config/.../crd/bases).
_CORE_TEMPLATES = {
    ("", "Pod"): (("spec",),),
    ("", "PodTemplate"): (("template", "spec"),),
    ("", "ReplicationController"): (("spec", "template", "spec"),),
    ("apps", "Deployment"): (("spec", "template", "spec"),),
    ("apps", "StatefulSet"): (("spec", "template", "spec"),),
    ("apps", "DaemonSet"): (("spec", "template", "spec"),),
    ("apps", "ReplicaSet"): (("spec", "template", "spec"),),
    ("batch", "Job"): (("spec", "template", "spec"),),
    ("batch", "CronJob"): (("spec", "jobTemplate", "spec", "template", "spec"),),
}
_RAY_CLUSTER = (("headGroupSpec", "template", "spec"), ("workerGroupSpecs", "*", "template", "spec"))
_JOBSET_JOBS = ("replicatedJobs", "*", "template", "spec", "template", "spec")
_CUSTOM_TEMPLATES = {
    ("ray.io", "RayCluster"): tuple(("spec",) + p for p in _RAY_CLUSTER),
    ("ray.io", "RayJob"): tuple(("spec", "rayClusterSpec") + p for p in _RAY_CLUSTER)
    + (("spec", "submitterPodTemplate", "spec"),),
    ("ray.io", "RayService"): tuple(("spec", "rayClusterConfig") + p for p in _RAY_CLUSTER),
    **{
        ("kubeflow.org", kind): (("spec", f"{prefix}ReplicaSpecs", "*", "template", "spec"),)
        for kind, prefix in (
            ("PyTorchJob", "pytorch"),
            ("TFJob", "tf"),
            ("MPIJob", "mpi"),
            ("XGBoostJob", "xgb"),
            ("PaddleJob", "paddle"),
            ("JAXJob", "jax"),
        )
    },
    ("trainer.kubeflow.org", "TrainingRuntime"): (("spec", "template", "spec") + _JOBSET_JOBS,),
    ("trainer.kubeflow.org", "ClusterTrainingRuntime"): (("spec", "template", "spec") + _JOBSET_JOBS,),
    ("jobset.x-k8s.io", "JobSet"): (("spec",) + _JOBSET_JOBS,),
    ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"): (
        ("spec", "leaderWorkerTemplate", "leaderTemplate", "spec"),
        ("spec", "leaderWorkerTemplate", "workerTemplate", "spec"),
    ),
    ("batch.volcano.sh", "Job"): (("spec", "tasks", "*", "template", "spec"),),
    ("keda.sh", "ScaledJob"): (("spec", "jobTargetRef", "template", "spec"),),
    ("kueue.x-k8s.io", "Workload"): (("spec", "podSets", "*", "template", "spec"),),
}
# NIMService (NVIDIA k8s-nim-operator v3.1.2, apps.nvidia.com_nimservices.yaml) has no pod
# template: its spec carries the one NIM container's resources and the pod's tolerations,
# nodeSelector and runtimeClassName, which the operator copies into the Deployment it makes.
_SPEC_IS_POD_AND_CONTAINER = {("apps.nvidia.com", "NIMService")}
# TrainJob (Kubeflow Trainer v2.3.0, trainer.kubeflow.org_trainjobs.yaml) names no pod: its
# spec.trainer carries the trainer node's image and resourcesPerNode, which the runtime's
# JobSet template receives; the pod's tolerations and the rest come from the runtime.
_TRAINJOB = ("trainer.kubeflow.org", "TrainJob")
# KServe v0.20.0 (serving.kserve.io_inferenceservices.yaml, _servingruntimes.yaml): each
# InferenceService component (predictor, transformer, explainer) is a pod spec whose model
# container may also be given under a model-format key; its workerSpec is a second pod. A
# component with a model is served by a ServingRuntime whose pod fields it merges with, so its
# pod-level fields are not all written here; nor are a ServingRuntime's.
_KSERVE_COMPONENTS = ("predictor", "transformer", "explainer")
_KSERVE_MODEL_KEYS = (
    "model",
    "huggingface",
    "lightgbm",
    "onnx",
    "paddle",
    "pmml",
    "pytorch",
    "sklearn",
    "tensorflow",
    "triton",
    "xgboost",
)
_KSERVE_RUNTIMES = {("serving.kserve.io", "ServingRuntime"), ("serving.kserve.io", "ClusterServingRuntime")}
_KSERVE_SERVICE = ("serving.kserve.io", "InferenceService")
# where a container keeps its resources when it is not ``resources`` (by container path)
_RESOURCES_FIELD = {("spec", "trainer"): "resourcesPerNode"}


class PodTemplate(Frozen):
    """A pod spec inside an object: its path, the spec, and ``(path, container)`` of each container.

    ``partial``: the pod-level fields (tolerations, classes) are completed elsewhere (a
    runtime the object refers to), so rules about them leave the pod alone."""

    __slots__ = _fields = ("path", "spec", "containers", "partial")

    path: tuple
    spec: dict
    containers: tuple
    partial: bool

    def __init__(self, path: tuple, spec: dict, containers: tuple, partial: bool = False):
        put = object.__setattr__
        put(self, "path", path)
        put(self, "spec", spec)
        put(self, "containers", containers)
        put(self, "partial", partial)


def resources_path(cpath: tuple) -> tuple:
    """Where the container at ``cpath`` keeps its requests and limits."""
    return cpath + (_RESOURCES_FIELD.get(cpath, "resources"),)


_last: list = [None, (), False]  # (object, templates, core?): the rules of one object run back to back


def templates(obj: dict, custom: bool = True) -> tuple[PodTemplate, ...]:
    """The pod templates of a workload object (of core kinds only unless ``custom``)."""
    if _last[0] is not obj:
        key = _group_kind(obj)
        _last[:] = obj, _templates(obj, key), key in _CORE_TEMPLATES
    return _last[1] if custom or _last[2] else ()


def _templates(obj: dict, key: tuple[str, str]) -> tuple[PodTemplate, ...]:
    spec = obj.get("spec")
    if key in _SPEC_IS_POD_AND_CONTAINER:
        return (PodTemplate(("spec",), spec, ((("spec",), spec),)),) if isinstance(spec, dict) else ()
    if key == _TRAINJOB:
        trainer = spec.get("trainer") if isinstance(spec, dict) else None
        if not isinstance(trainer, dict) or not isinstance(trainer.get("resourcesPerNode"), dict):
            return ()
        container = {"resources": trainer["resourcesPerNode"]}
        return (PodTemplate(("spec", "trainer"), {}, ((("spec", "trainer"), container),), partial=True),)
    if key == _KSERVE_SERVICE or key in _KSERVE_RUNTIMES:
        return tuple(_kserve(spec, key == _KSERVE_SERVICE)) if isinstance(spec, dict) else ()
    found = []
    for path in _CORE_TEMPLATES.get(key) or _CUSTOM_TEMPLATES.get(key, ()):
        for spath, spec in _expand(obj, (), path):
            if isinstance(spec, dict):
                found.append(PodTemplate(spath, spec, tuple(containers(spath, spec))))
    return tuple(found)


def _group_kind(obj: dict) -> tuple[str, str]:
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return "", ""
    return (api_version.rpartition("/")[0], kind)


def _expand(node: object, done: tuple, rest: tuple) -> Iterator[tuple[tuple, object]]:
    if not rest:
        yield done, node
        return
    part, rest = rest[0], rest[1:]
    if part == "*":
        items = enumerate(node) if isinstance(node, list) else node.items() if isinstance(node, dict) else ()
        for key, child in items:
            yield from _expand(child, done + (key,), rest)
    elif isinstance(node, dict) and part in node:
        yield from _expand(node[part], done + (part,), rest)


def _kserve(spec: dict, service: bool) -> Iterator[PodTemplate]:
    """The pods of an InferenceService's components or of a serving runtime, with their workers."""
    components = (
        [(("spec", c), spec[c]) for c in _KSERVE_COMPONENTS if isinstance(spec.get(c), dict)]
        if service
        else [(("spec",), spec)]
    )
    for path, component in components:
        found = list(containers(path, component))
        models = [
            (path + (k,), component[k]) for k in _KSERVE_MODEL_KEYS if service and isinstance(component.get(k), dict)
        ]
        yield PodTemplate(path, component, tuple(models + found), partial=bool(models) or not service)
        worker = component.get("workerSpec")
        if isinstance(worker, dict):
            wpath = path + ("workerSpec",)
            yield PodTemplate(wpath, worker, tuple(containers(wpath, worker)), partial=True)


CONTAINER_LISTS = ("initContainers", "containers")
GPU_RESOURCE_PREFIXES = ("nvidia.com/", "amd.com/", "gpu.intel.com/")
# The training fabric's resources: the RDMA shared device plugin's `rdma/<name>` (its default
# prefix, the only one gpu-gitops renders) and the EFA device plugin's one name.
FABRIC_RESOURCE_PREFIXES = ("rdma/", "vpc.amazonaws.com/efa")


def containers(spec_path: tuple, spec: dict) -> Iterator[tuple[tuple, dict]]:
    """``(path, container)`` for every init and app container."""
    for key in CONTAINER_LISTS:
        items = spec.get(key)
        if isinstance(items, list):
            for i, container in enumerate(items):
                if isinstance(container, dict):
                    yield spec_path + (key, i), container


def resources(container: dict) -> tuple[dict, dict]:
    """``(requests, limits)`` of a container, empty dicts when absent."""
    res = container.get("resources")
    res = res if isinstance(res, dict) else {}
    requests, limits = res.get("requests"), res.get("limits")
    return (requests if isinstance(requests, dict) else {}), (limits if isinstance(limits, dict) else {})


def is_hugepages(name: str) -> bool:
    return name.startswith("hugepages-")


def is_extended(name: str) -> bool:
    """Kubernetes' IsExtendedResourceName: a domain-prefixed name outside kubernetes.io."""
    if "/" not in name or name.startswith("requests."):
        return False
    domain = name.split("/", 1)[0]
    return not (domain == "kubernetes.io" or domain.endswith(".kubernetes.io"))


def is_gpu(name: str) -> bool:
    return name.startswith(GPU_RESOURCE_PREFIXES) and is_extended(name)


def is_fabric(name: str) -> bool:
    return name.startswith("rdma/") or name == "vpc.amazonaws.com/efa"


def gpu_names(container: dict) -> set[str]:
    requests, limits = resources(container)
    return {n for n in (*requests, *limits) if isinstance(n, str) and is_gpu(n)}


def tolerates(spec: dict, key: str, effect: str = "NoSchedule") -> bool:
    """Whether the pod's tolerations let it onto nodes tainted ``key`` with ``effect``."""
    tolerations = spec.get("tolerations")
    for tol in tolerations if isinstance(tolerations, list) else []:
        if not isinstance(tol, dict):
            continue
        tol_effect = tol.get("effect") or ""
        if tol_effect and tol_effect != effect:
            continue
        operator = tol.get("operator") or "Equal"
        tol_key = tol.get("key") or ""
        if tol_key == "" and operator == "Exists":
            return True
        if tol_key == key:
            return True
    return False


def secured(pod: PodTemplate, test: Callable[[object], bool]) -> bool:
    """Whether ``test`` holds for the pod's securityContext, or for every container's (a
    pod-level setting is the default each container may override)."""
    if test(pod.spec.get("securityContext")):
        return True
    return bool(pod.containers) and all(test(c.get("securityContext")) for _, c in pod.containers)


def container_resources(obj: dict) -> Iterator[tuple[tuple, dict, dict, dict]]:
    """``(path, container, requests, limits)`` for every container of a workload object."""
    for pod in templates(obj):
        for cpath, container in pod.containers:
            yield (cpath, container, *resources(container))


_gpu_memo: list = [None, frozenset()]  # (pod, names): the rules of one object ask back to back
_device_memo: list = [None, False]


def uses_devices(pod: PodTemplate) -> bool:
    """Whether the pod asks for anything a cluster's pools offer: GPUs, huge pages, the training
    fabric or devices through resource claims (what the cluster rules judge; most pods ask for none)."""
    if _device_memo[0] is not pod:
        _device_memo[:] = pod, _asks_gpus_or_hugepages(pod) or claims_devices(pod)
    return _device_memo[1]


_DEVICE_PREFIXES = (*GPU_RESOURCE_PREFIXES, *FABRIC_RESOURCE_PREFIXES, "hugepages-")
_extended_memo: list = [None, False]


def names_extended(pod: PodTemplate) -> bool:
    """Whether a container requests or limits an extended resource (``is_extended``: GPUs, the
    fabric, any other domain's device); most pods name only cpu, memory and storage."""
    if _extended_memo[0] is not pod:
        _extended_memo[:] = (
            pod,
            any(
                isinstance(name, str) and "/" in name and is_extended(name)
                for _, container in pod.containers
                for section in resources(container)
                for name in section
            ),
        )
    return _extended_memo[1]


def _asks_gpus_or_hugepages(pod: PodTemplate) -> bool:
    """Whether a container requests or limits a GPU (``is_gpu``), the fabric or huge pages, in one pass
    that looks at most names only as far as their first letters."""
    for _, container in pod.containers:
        for section in resources(container):
            for name in section:
                if (
                    isinstance(name, str)
                    and name.startswith(_DEVICE_PREFIXES)
                    and (is_hugepages(name) or is_extended(name))
                ):
                    return True
    return False


def pod_requests_gpu(pod: PodTemplate) -> frozenset[str]:
    """The GPU resources any of the pod's containers requests or limits."""
    if _gpu_memo[0] is not pod:
        names: set[str] = set()
        for _, container in pod.containers:
            names |= gpu_names(container)
        _gpu_memo[:] = pod, frozenset(names)
    return _gpu_memo[1]


def pod_requests(pod: PodTemplate, wanted: Callable[[str], bool]) -> dict[str, Fraction]:
    """What the scheduler counts the pod as requesting of each resource ``wanted(name)`` selects
    (``effective_requests``), remembered for the pod the rules of one object ask about."""
    if _requests_memo[0] is not pod or _requests_memo[1] is not wanted:
        _requests_memo[:] = pod, wanted, effective_requests(pod, wanted)
    return dict(_requests_memo[2])


_requests_memo: list = [None, None, {}]


def complete_pods(obj: dict, wanted: Callable[[str], bool]) -> Iterator[tuple[PodTemplate, dict[str, Fraction]]]:
    """Each pod template whose pod-level fields the object holds (not ``partial``), with what it
    requests of the resources ``wanted`` selects (``pod_requests``): what the rules that judge
    where a pod runs, or which networks it joins, walk."""
    for pod in templates(obj):
        if not pod.partial:
            yield pod, pod_requests(pod, wanted)


def effective_requests(pod: PodTemplate, wanted: Callable[[str], bool]) -> dict[str, Fraction]:
    """What the scheduler counts the pod as requesting of each resource ``wanted(name)`` selects:
    the sum over app containers or the largest init container, whichever is more (the pod's
    effective request, kubernetes.io docs "Init containers", "Resource sharing within
    containers"); a container's limit stands for a missing request. Values are ``Fraction``s."""
    from fractions import Fraction

    from generator.kube import quantity

    app: dict[str, Fraction] = {}
    init: dict[str, Fraction] = {}
    for cpath, container in pod.containers:
        requests, limits = resources(container)
        into = init if cpath[-2:-1] == ("initContainers",) else app  # a NIMService's container is its spec
        for name in {*requests, *limits}:
            if not isinstance(name, str) or not wanted(name):
                continue
            value = quantity.parse(requests.get(name, limits.get(name)))
            if value is None:
                continue
            if into is app:
                app[name] = app.get(name, Fraction(0)) + value
            else:
                init[name] = max(init.get(name, Fraction(0)), value)
    return {name: max(app.get(name, Fraction(0)), init.get(name, Fraction(0))) for name in {*app, *init}}


def claims(pod: PodTemplate) -> list[str]:
    """The names in the pod's ``spec.resourceClaims`` (Dynamic Resource Allocation)."""
    listed = pod.spec.get("resourceClaims")
    return (
        [c["name"] for c in listed if isinstance(c, dict) and isinstance(c.get("name"), str)]
        if isinstance(listed, list)
        else []
    )


def claims_devices(pod: PodTemplate) -> bool:
    """Whether the pod gets devices through resource claims: it lists claims and a container uses one."""
    if not claims(pod):
        return False
    for _, container in pod.containers:
        res = container.get("resources")
        if isinstance(res, dict) and isinstance(res.get("claims"), list) and res["claims"]:
            return True
    return False


def tolerates_taint(spec: dict, key: str, value: str, effect: str) -> bool:
    """Whether one of the pod's tolerations matches the taint, as the scheduler decides it
    (k8s.io/api core/v1 toleration.go, ``Toleration.ToleratesTaint``)."""
    tolerations = spec.get("tolerations")
    for tol in tolerations if isinstance(tolerations, list) else []:
        if not isinstance(tol, dict):
            continue
        if (tol.get("effect") or "") not in ("", effect):
            continue
        tol_key = tol.get("key") or ""
        operator = tol.get("operator") or "Equal"
        if tol_key != key and not (tol_key == "" and operator == "Exists"):
            continue
        if operator == "Exists" or str(tol.get("value") or "") == value:
            return True
    return False


def may_select(spec: dict, labels: dict) -> bool:
    """Whether nodes with ``labels`` (and others lint does not know) may satisfy the pod's
    node selector and required node affinity: False only where a known label decides it."""
    selector = spec.get("nodeSelector")
    if isinstance(selector, dict):
        for key, value in selector.items():
            if key in labels and labels[key] != str(value):
                return False
    affinity = spec.get("affinity")
    node = affinity.get("nodeAffinity") if isinstance(affinity, dict) else None
    required = node.get("requiredDuringSchedulingIgnoredDuringExecution") if isinstance(node, dict) else None
    terms = required.get("nodeSelectorTerms") if isinstance(required, dict) else None
    if not isinstance(terms, list) or not terms:
        return True
    return any(_term_may_select(term, labels) for term in terms)


def _term_may_select(term: object, labels: dict) -> bool:
    if not isinstance(term, dict):
        return True
    for expr in term.get("matchExpressions") or []:
        if not isinstance(expr, dict) or expr.get("key") not in labels:
            continue  # a label lint does not know: it may be there
        value, values = labels[expr["key"]], [str(v) for v in expr.get("values") or []]
        op = expr.get("operator")
        if (op == "In" and value not in values) or (op == "NotIn" and value in values) or op == "DoesNotExist":
            return False
    return True
