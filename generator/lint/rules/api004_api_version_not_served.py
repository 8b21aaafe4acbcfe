"""A built-in apiVersion and kind that the target Kubernetes version does not serve.

Rationale: the API server answers ``no matches for kind "DeviceClass" in version
"resource.k8s.io/v1"`` for a group version it does not serve yet (``resource.k8s.io/v1`` is
served from 1.34) or no longer serves (alpha versions removed after a later one went beta),
and the GitOps engine stops the sync. Which versions serve a kind is read from the bundled
Kubernetes schemas of every version: a built-in kind that has no schema at the target
version but has one at another is not served there; the hint says from or until which
version it is. A version the target has but serves only when the API server's
``--runtime-config`` turns it on (alpha versions, and beta versions added since 1.24:
``resource.k8s.io/v1beta1`` on 1.34) is not served either, unless the cluster says its API
server runs with that flag (``apiServer.runtimeConfig`` of its input with a target cluster,
``lint.runtimeConfig`` otherwise); without a target cluster or ``lint.runtimeConfig`` that is
a warning, the flags being unknown. Removals the deprecation table knows are API001's, with
their replacement.
Without this rule such an object would be a K8S004 "no schema" warning. The target version
is ``--kubernetes-version``, ``lint.kubernetesVersion`` or the target cluster's.

Fix: use an apiVersion the target version serves (the hint names the range), or upgrade the
cluster first; for a version off by default, use the served one or list it in the cluster's
``apiServer.runtimeConfig`` once its API server runs with the flag.

PASS:

    # gpu-gitops-config: {lint: {kubernetesVersion: "1.34"}}
    apiVersion: resource.k8s.io/v1
    kind: DeviceClass
    metadata:
      name: gpu.example.com
    spec:
      selectors:
        - cel: {expression: "device.driver == 'gpu.example.com'"}

FAIL:

    # gpu-gitops-config: {lint: {kubernetesVersion: "1.32"}}
    apiVersion: resource.k8s.io/v1
    kind: DeviceClass
    metadata:
      name: gpu.example.com
    spec:
      selectors:
        - cel: {expression: "device.driver == 'gpu.example.com'"}
"""

import functools
from collections.abc import Iterator

from generator.kube import deprecations, runtimeconfig
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, ObjectRule
from generator.rulemeta import RuleMeta
from generator.validate import kubernetes

META = RuleMeta(
    "API004",
    "api-version-not-served",
    "error",
    "The target Kubernetes version does not serve the object's built-in apiVersion",
    __doc__,
)


@functools.cache
def not_served(api_version: str, kind: str, target: tuple[int, int]) -> str | None:
    """Why ``target`` does not serve a built-in ``apiVersion``/``kind`` ("served from 1.34"),
    or None when it does, when it is no built-in, or when API001 reports it."""
    if deprecations.is_removed(api_version, kind, target):
        return None
    resolved = kubernetes.resolve_version(f"{target[0]}.{target[1]}")
    if kubernetes.builtin_schema(resolved, api_version, kind) is not None:
        return None  # served: the other versions' files are not read (a lint after an edit reads them first)
    versions = kubernetes.served_in(api_version, kind)
    if not versions:
        return None
    later = [v for v in versions if v > resolved]
    earlier = [v for v in versions if v < resolved]
    if later:
        return f"served from {later[0][0]}.{later[0][1]}"
    return f"served until {earlier[-1][0]}.{earlier[-1][1]}"


def check(res: Resource, ctx: Context) -> tuple[Hit, ...]:
    settings = ctx.settings
    return _hits(res.obj["apiVersion"], res.obj["kind"], settings.target_version, settings.runtime_config)


@functools.cache
def _hits(api_version: str, kind: str, target: tuple[int, int], enabled: tuple[str, ...] | None) -> tuple[Hit, ...]:
    """The hits of every object of this apiVersion and kind: they depend on nothing else."""
    why = not_served(api_version, kind, target)
    if why is None:
        return tuple(_off_by_default(api_version, kind, target, enabled))
    if not why:
        return ()
    return (
        Hit(
            f'no matches for kind "{kind}" in version "{api_version}": Kubernetes {target[0]}.{target[1]} '
            f"does not serve it ({why})",
            ("apiVersion",),
            at_value=True,
            hint=f"{api_version} {kind} is {why}: "
            + (
                "use a version the cluster serves, or upgrade the cluster first"
                if "from" in why
                else "use its successor"
            ),
        ),
    )


@functools.cache
def _off(api_version: str, kind: str, target: tuple[int, int]) -> bool:
    """Whether ``target`` has this built-in version off by default: asked for every object, of a few kinds."""
    return runtimeconfig.off_by_default(api_version, kind, target) and bool(kubernetes.served_in(api_version, kind))


def _off_by_default(
    api_version: str, kind: str, target: tuple[int, int], enabled: tuple[str, ...] | None
) -> Iterator[Hit]:
    """A built-in version the target has but serves only with ``--runtime-config``."""
    if not _off(api_version, kind, target):
        return
    if enabled is not None and api_version in enabled:
        return
    flag = runtimeconfig.flag(api_version)
    message = f"Kubernetes {target[0]}.{target[1]} serves {api_version} only when its API server runs with {flag}" + (
        "" if enabled is not None else " (the cluster's flags are unknown here)"
    )
    yield Hit(
        message,
        ("apiVersion",),
        at_value=True,
        hint=f"use the version the cluster serves by default, or list {api_version} in the cluster's "
        "apiServer.runtimeConfig (lint.runtimeConfig) once the API server runs with the flag",
        severity="" if enabled is not None else "warning",
    )


RULE = ObjectRule(meta=META, check=check)
