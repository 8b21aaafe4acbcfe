"""Built-in API versions an API server has but serves only when ``--runtime-config`` turns them on.

The bundled schemas of a Kubernetes version hold every API version its code has, served or
not, so a schema alone does not say the cluster answers for it. Off by default are:

- every alpha version (``v1alpha1``...: kubernetes.io docs, reference/using-api "API
  versioning": alpha APIs are disabled by default);
- the beta versions added since 1.24 (KEP-3136 "Beta APIs Off by Default"): here the ones of
  the bundled range with their first version: ``admissionregistration.k8s.io/v1beta1``
  (ValidatingAdmissionPolicy 1.28, MutatingAdmissionPolicy 1.34), ``networking.k8s.io/v1beta1``
  (IPAddress, ServiceCIDR, 1.31), ``storage.k8s.io/v1beta1`` VolumeAttributesClass (1.31),
  ``resource.k8s.io/v1beta1`` (1.32) and ``v1beta2`` (1.33), which stay off after
  ``resource.k8s.io/v1`` (1.34) is served (the DRA docs: "enable the v1beta1 API group with
  ``--runtime-config=resource.k8s.io/v1beta1=true``").

A cluster whose API server runs with ``--runtime-config=<group/version>=true`` says so in its
input (``apiServer.runtimeConfig``), or lint's configuration does (``lint.runtimeConfig``).
"""

from __future__ import annotations

_GROUP = frozenset("abcdefghijklmnopqrstuvwxyz0123456789.-")  # [a-z0-9.-]
# (group/version, kind or "*") → the first minor version that has it (off by default from there on)
_BETA_OFF = {
    ("admissionregistration.k8s.io/v1beta1", "*"): (1, 28),
    ("networking.k8s.io/v1beta1", "*"): (1, 31),
    ("storage.k8s.io/v1beta1", "VolumeAttributesClass"): (1, 31),
    ("resource.k8s.io/v1beta1", "*"): (1, 32),
    ("resource.k8s.io/v1beta2", "*"): (1, 33),
}


def off_by_default(api_version: str, kind: str, target: tuple[int, int]) -> bool:
    """Whether the API server of ``target`` has this built-in version but does not serve it
    unless ``--runtime-config`` enables it (the caller knows it is a built-in there)."""
    if _alpha(api_version):
        return True
    since = _BETA_OFF.get((api_version, kind)) or _BETA_OFF.get((api_version, "*"))
    return since is not None and target >= since


def _alpha(api_version: str) -> bool:
    """``[a-z0-9.-]+/v[0-9]+alpha[0-9]+``, the whole string, read without compiling a pattern
    (``re`` compiles in Python): a group, ``/v``, digits, ``alpha``, digits."""
    group, slash, version = api_version.partition("/")
    major, alpha, minor = version[1:].partition("alpha")
    return (
        bool(slash and group and alpha)
        and _GROUP.issuperset(group)
        and version.startswith("v")
        and all(part.isascii() and part.isdigit() for part in (major, minor))
    )


def flag(api_version: str) -> str:
    return f"--runtime-config={api_version}=true"
