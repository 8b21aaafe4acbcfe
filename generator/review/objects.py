"""A rendered tree's files as Kubernetes objects, keyed by identity: (group, kind, namespace, name),
what the API server and the engines' inventories key an object by. The apiVersion's version is
not part of it: ``v1beta1`` → ``v1`` of the same kind is the same object, served at both.

Where an object sits says which sync object applies it: ``<layer>/<component>/<file>`` for the
layers (one Flux Kustomization or Argo CD Application per layer), ``gitops/<file>`` for the
engine's own objects. Kustomize's ``kustomization.yaml`` files and the one-time bootstrap values
are not cluster objects.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from generator.errors import InputError

GITOPS = "gitops"
NOT_SYNCED = ("bootstrap/",)  # applied once by hand, never by the engine


@dataclass(frozen=True, order=True)
class Identity:
    group: str
    kind: str
    namespace: str
    name: str

    def __str__(self) -> str:
        where = f"{self.namespace}/" if self.namespace else ""
        return f"{self.kind} {where}{self.name}"


@dataclass(frozen=True)
class Placed:
    """One object and the file it is rendered to (relative to the cluster's tree)."""

    identity: Identity
    path: str
    obj: dict[str, Any]

    @property
    def layer(self) -> str:
        return self.path.split("/", 1)[0] if "/" in self.path else ""

    @property
    def component(self) -> str:
        parts = self.path.split("/")
        return parts[1] if len(parts) > 2 else ""

    @property
    def unit(self) -> str:
        """The sync unit and component that apply it, as a reviewer names them."""
        return f"{self.layer}/{self.component}" if self.component else self.layer or "(root)"


def identity(obj: Any) -> Identity | None:
    """The identity of a Kubernetes object; None for anything else (Kustomize's own files)."""
    if not isinstance(obj, dict):
        return None
    api_version, kind, metadata = obj.get("apiVersion"), obj.get("kind"), obj.get("metadata")
    if not isinstance(api_version, str) or not isinstance(kind, str) or not isinstance(metadata, dict):
        return None
    if api_version.startswith("kustomize.config.k8s.io/"):
        return None
    group = api_version.rsplit("/", 1)[0] if "/" in api_version else ""
    return Identity(group, kind, str(metadata.get("namespace") or ""), str(metadata.get("name") or ""))


def is_synced(path: str) -> bool:
    """Whether the engine applies the file at ``path`` (relative to the cluster's tree)."""
    name = path.rsplit("/", 1)[-1]
    return not name.startswith(".") and not path.startswith(NOT_SYNCED) and name.endswith((".yaml", ".yml"))


def parse(path: str, data: bytes, shown: str) -> Placed | None:
    """The object a rendered file holds (render writes one a file), None for a file of Kustomize's."""
    from ruamel.yaml.error import YAMLError

    from generator.yamlio import read

    try:
        obj = read.load_data(data.decode("utf-8"), read.GO_YAML, read.MANIFESTS.depth)
    except (UnicodeDecodeError, read.TooDeep, YAMLError) as exc:
        raise InputError(
            f"cannot read a rendered file: {(str(exc).splitlines() or [type(exc).__name__])[0]}",
            path=shown,
            hint="render it again with `gpu-gitops render`, and commit the result",
        ) from None
    found = identity(obj)
    return Placed(found, path, obj) if found is not None else None
