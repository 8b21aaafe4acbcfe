"""A pod's containers, volumes, mounts or ports are named in a way the API server refuses.

Rationale: the OpenAPI schema types these names as plain strings; the API server's pod
validation (kubernetes ``pkg/apis/core/validation``, ``ValidatePodSpec``) requires every
container and init container name to be unique in the pod (``validateContainers``,
``validateInitContainers``: ``Duplicate value``), every volume name unique (``ValidateVolumes``),
each ``volumeMounts[].name`` and ``volumeDevices[].name`` to name one of the pod's volumes
(``ValidateVolumeMounts``: ``Not found``), each mount (and device) path used once per container (``must be
unique``), and each container port name to be an IANA service name, unique in its container
(``validateContainerPorts``, ``IsValidPortName``: at most 15 characters of ``a-z``, ``0-9`` and
``-``, at least one letter, no leading, trailing or double ``-``). A workload whose pod
template breaks one is refused at apply time, and a Service's ``targetPort`` that names the
port finds nothing.

Fix: rename the duplicate, add the missing volume (or fix the mount's name), and shorten the
port name to an IANA service name (``metrics``, ``grpc-api``).

PASS:

    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: llm-server
      namespace: gpu-inference
    spec:
      selector:
        matchLabels: {app: llm-server}
      template:
        metadata:
          labels: {app: llm-server}
        spec:
          volumes:
            - {name: models, emptyDir: {}}
          containers:
            - name: server
              image: "vllm/vllm-openai:v0.6.3"
              ports:
                - {name: http, containerPort: 8000}
              volumeMounts:
                - {name: models, mountPath: /models}

FAIL:

    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: llm-server
      namespace: gpu-inference
    spec:
      selector:
        matchLabels: {app: llm-server}
      template:
        metadata:
          labels: {app: llm-server}
        spec:
          containers:
            - name: server
              image: "vllm/vllm-openai:v0.6.3"
              ports:
                - {name: openai-compatible-http, containerPort: 8000}
"""

from collections.abc import Iterator

from generator import addresses, jsonpath
from generator.kube import pods
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, ObjectRule
from generator.rulemeta import RuleMeta

META = RuleMeta(
    "K8S008",
    "pod-names-invalid",
    "error",
    "A pod's container, volume, mount or port names are duplicated, dangling or invalid",
    __doc__,
)


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    for pod in pods.templates(res.obj, custom=False):  # custom resources' templates are not pods yet
        yield from _pod(pod)


def _pod(pod: pods.PodTemplate) -> Iterator[Hit]:
    volumes = pod.spec.get("volumes")
    names: set = set()
    for i, volume in enumerate(volumes if isinstance(volumes, list) else []):
        name = volume.get("name") if isinstance(volume, dict) else None
        if isinstance(name, str):
            if name in names:
                yield _duplicate(pod.path + ("volumes", i, "name"), name)
            names.add(name)
    containers: set = set()
    for cpath, container in pod.containers:
        name = container.get("name")
        if isinstance(name, str):
            if name in containers:
                yield _duplicate(cpath + ("name",), name)
            containers.add(name)
        yield from _mounts(cpath, container, names)
        yield from _ports(cpath, container)


def _duplicate(path: tuple, name: str) -> Hit:
    return Hit(
        f'{jsonpath.dotted(path)}: Duplicate value: "{name}"', path, at_value=True, hint="give each a name of its own"
    )


def _mounts(cpath: tuple, container: dict, volumes: set) -> Iterator[Hit]:
    for key, field in (("volumeMounts", "mountPath"), ("volumeDevices", "devicePath")):
        paths: set = set()
        items = container.get(key)
        for i, mount in enumerate(items if isinstance(items, list) else []):
            if not isinstance(mount, dict):
                continue
            name, target = mount.get("name"), mount.get(field)
            if isinstance(name, str) and name not in volumes:
                yield Hit(
                    f'{jsonpath.dotted(cpath + (key, i, "name"))}: Not found: "{name}"',
                    cpath + (key, i, "name"),
                    at_value=True,
                    hint=f"add a volume named {name} to the pod's volumes, or mount one it has",
                )
            if isinstance(target, str):
                if target in paths:
                    yield Hit(
                        f'{jsonpath.dotted(cpath + (key, i, field))}: Invalid value: "{target}": must be unique',
                        cpath + (key, i, field),
                        at_value=True,
                        hint="mount each path once per container",
                    )
                paths.add(target)


def _ports(cpath: tuple, container: dict) -> Iterator[Hit]:
    ports = container.get("ports")
    seen: set = set()
    for i, port in enumerate(ports if isinstance(ports, list) else []):
        name = port.get("name") if isinstance(port, dict) else None
        if not isinstance(name, str) or not name:
            continue
        path = cpath + ("ports", i, "name")
        problems = addresses.port_name_problems(name)  # IsValidPortName's first complaint
        if problems:
            yield Hit(
                f'{jsonpath.dotted(path)}: Invalid value: "{name}": {problems[0].message}',
                path,
                at_value=True,
                hint="name the port with at most 15 characters of a-z, 0-9 and single inner '-' (e.g. metrics)",
            )
        elif name in seen:
            yield _duplicate(path, name)
        seen.add(name)


RULE = ObjectRule(meta=META, check=check, pod_templates=True)
