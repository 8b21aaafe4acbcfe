"""What the engine installs: each Helm release the tree renders, read from the engine's own
objects (a Flux HelmRelease with its HelmRepository, or an Argo CD Application with a Helm
chart source), never from a table kept beside the library: any chart a component renders
through ``lib/helm.libsonnet``, or an overrides file adds, is found the same way.

Release name and namespace are derived as the engines derive them:

- helm-controller (``api/v2`` HelmRelease ``GetReleaseName``, ``GetReleaseNamespace``):
  ``spec.releaseName``, else ``<targetNamespace>-<name>`` when ``spec.targetNamespace`` is set,
  else the object's name; the namespace is ``spec.targetNamespace``, else the object's.
  ``spec.install.crds`` ``Skip`` leaves the chart's ``crds/`` out; anything else applies them.
  Values are ``spec.valuesFrom`` in order, then ``spec.values`` over them (``chartutil``
  ``MergeTables`` semantics: maps merged, everything else replaced).
- Argo CD (repo-server ``helmTemplate``): ``spec.source.helm.releaseName``, else the
  Application's name; the namespace is ``spec.destination.namespace``; ``skipCrds`` leaves the
  CRDs out; values are ``values`` (text), then ``valuesObject`` over them (``parameters`` and ``valueFiles``, which the library
  never renders, are refused).
"""

from __future__ import annotations

from dataclasses import dataclass

from generator.errors import InputError

FLUX_RELEASE = ("helm.toolkit.fluxcd.io", "HelmRelease")
FLUX_REPOSITORY = ("source.toolkit.fluxcd.io", "HelmRepository")
ARGO_APPLICATION = ("argoproj.io", "Application")


@dataclass(frozen=True)
class Release:
    name: str  # the Helm release name
    namespace: str
    repository: str  # https://... or oci://...
    chart: str
    version: str
    values: dict
    include_crds: bool
    engine: str  # flux | argocd
    component: str  # the component that renders the engine's object
    source: str  # the engine's object, "<Kind> <namespace>/<name>", for messages


def _group(obj: dict) -> str:
    return str(obj.get("apiVersion", "")).rpartition("/")[0]


def _identity(obj: dict) -> tuple[str, str]:
    return (_group(obj), str(obj.get("kind")))


def merge(base: dict, over: dict) -> dict:
    """Helm's ``MergeTables`` for values: ``over`` wins, maps merged key by key."""
    merged = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _values(text: str, what: str) -> dict | None:
    """Values given as YAML text, read as Helm reads them (go-yaml); one error when they are not
    a mapping of YAML."""
    from ruamel.yaml.error import YAMLError

    from generator.yamlio.read import MANIFESTS, TooDeep, load_data

    try:
        read = load_data(text, max_depth=MANIFESTS.depth)
    except (YAMLError, TooDeep) as exc:
        problem = (str(exc).splitlines() or [type(exc).__name__])[0]
        raise InputError(f"{what} is not YAML Helm can read: {problem}", hint="write the values as YAML") from None
    if read is not None and not isinstance(read, dict):
        raise InputError(f"{what} is not a mapping of values", hint="write the values as a YAML mapping")
    return read


def find(components: dict[str, list[dict]]) -> list[Release]:
    """Every Helm release of the components, sorted by namespace and name."""
    objects = [(component, obj) for component, objs in components.items() for obj in objs]
    by_identity = {
        (_identity(o), o.get("metadata", {}).get("namespace", ""), o.get("metadata", {}).get("name")): o
        for _, o in objects
    }
    found = []
    for component, obj in objects:
        if _identity(obj) == FLUX_RELEASE:
            found.append(_flux(component, obj, by_identity))
        elif _identity(obj) == ARGO_APPLICATION and obj.get("spec", {}).get("source", {}).get("chart"):
            found.append(_argocd(component, obj, by_identity))
    return sorted(found, key=lambda r: (r.namespace, r.name))


def _shown(obj: dict) -> str:
    meta = obj.get("metadata", {})
    return f"{obj.get('kind')} {meta.get('namespace', '')}/{meta.get('name')}"


def _values_from(obj: dict, refs: list, by_identity: dict) -> dict:
    """``spec.valuesFrom`` of a HelmRelease, read from the ConfigMaps and Secrets the tree
    renders (helm-controller reads them from the HelmRelease's namespace)."""
    namespace = obj.get("metadata", {}).get("namespace", "")
    values: dict = {}
    for ref in refs:
        kind, name = ref.get("kind"), ref.get("name")
        source = by_identity.get((("", kind), namespace, name))
        if source is None:
            if ref.get("optional"):
                continue
            raise InputError(
                f"{_shown(obj)}: valuesFrom names {kind} {namespace}/{name}, which the tree does not render",
                hint="render the values object with the release, or mark the reference optional",
            )
        key = ref.get("valuesKey", "values.yaml")
        data = source.get("data" if kind == "ConfigMap" else "stringData", {}) or {}
        if key not in data:
            raise InputError(
                f"{_shown(obj)}: valuesFrom {kind} {namespace}/{name} has no key {key!r}",
                hint="helm-controller fails the release the same way",
            )
        read = _values(data[key], f"{_shown(obj)}: valuesFrom {kind} {namespace}/{name} key {key!r}")
        if ref.get("targetPath"):
            raise InputError(
                f"{_shown(obj)}: valuesFrom targetPath is not inflated offline",
                hint="put the value under spec.values instead",
            )
        values = merge(values, read or {})
    return values


def _flux(component: str, obj: dict, by_identity: dict) -> Release:
    meta, spec = obj.get("metadata", {}), obj.get("spec", {})
    chart_spec = spec.get("chart", {}).get("spec", {})
    ref = chart_spec.get("sourceRef", {})
    repository_obj = by_identity.get(
        (FLUX_REPOSITORY, ref.get("namespace", meta.get("namespace", "")), ref.get("name"))
    )
    if ref.get("kind") != "HelmRepository" or repository_obj is None:
        raise InputError(
            f"{_shown(obj)}: its chart source {ref.get('kind')} {ref.get('name')} is not a HelmRepository the tree renders",
            hint="charts are inflated from HelmRepository sources rendered beside the release",
        )
    url = repository_obj.get("spec", {}).get("url", "")
    if repository_obj.get("spec", {}).get("type") == "oci" and not url.startswith("oci://"):
        url = "oci://" + url
    target = spec.get("targetNamespace")
    name = spec.get("releaseName") or (f"{target}-{meta['name']}" if target else meta["name"])
    values = merge(_values_from(obj, spec.get("valuesFrom", []), by_identity), spec.get("values") or {})
    return Release(
        name=name,
        namespace=target or meta.get("namespace", ""),
        repository=url,
        chart=chart_spec.get("chart", ""),
        version=str(chart_spec.get("version", "")),
        values=values,
        include_crds=spec.get("install", {}).get("crds", "Create") != "Skip",
        engine="flux",
        component=component,
        source=_shown(obj),
    )


def _argocd(component: str, obj: dict, by_identity: dict) -> Release:
    meta, spec = obj.get("metadata", {}), obj.get("spec", {})
    source = spec["source"]
    helm = source.get("helm", {})
    url = source.get("repoURL", "")
    if "://" not in url:  # Argo CD names OCI chart repositories without the scheme
        url = "oci://" + url
    text = helm.get("values")
    values = merge(
        _values(text, f"{_shown(obj)}: spec.source.helm.values") or {} if text else {}, helm.get("valuesObject") or {}
    )
    if helm.get("parameters") or helm.get("valueFiles") or helm.get("fileParameters"):
        raise InputError(
            f"{_shown(obj)}: helm parameters and value files are not inflated offline",
            hint="set the values in spec.source.helm.valuesObject",
        )
    return Release(
        name=helm.get("releaseName") or meta["name"],
        namespace=spec.get("destination", {}).get("namespace", ""),
        repository=url,
        chart=source["chart"],
        version=str(source.get("targetRevision", "")),
        values=values,
        include_crds=not helm.get("skipCrds", False),
        engine="argocd",
        component=component,
        source=_shown(obj),
    )
