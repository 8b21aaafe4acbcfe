"""kubeconform-style schema locations for custom resources.

A location is a path template such as
``schemas/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json``; locations are tried in
order and the first one that has the file wins (kubeconform's rule). The variables are the
ones kubeconform documents, so users can reuse the locations they already have.

``http(s)`` templates are downloaded once into an on-disk cache named like kubeconform's
(the SHA-256 of the URL), so a kubeconform ``-cache`` folder can be reused and later runs
work offline. A 404 moves on to the next location and is not cached; a host that cannot be
reached (or answers with another error) stops the run: an offline CI job must fail, not pass
with the kinds it could not check.
"""

from __future__ import annotations

import os

from generator import regex
from generator.errors import InputError
from generator.paths import plain
from generator.record import Frozen
from generator.sha import sha256

DEFAULT_LOCATION = (
    "https://raw.githubusercontent.com/yannh/kubernetes-json-schema/master/"
    "{{.NormalizedKubernetesVersion}}-standalone{{.StrictSuffix}}/{{.ResourceKind}}{{.KindSuffix}}.json"
)
DOWNLOAD_TIMEOUT = 30
_VARIABLE = regex.compile(r"\{\{\s*\.(\w+)\s*\}\}")
KNOWN_VARIABLES = frozenset(
    {"Group", "ResourceKind", "ResourceAPIVersion", "KindSuffix", "NormalizedKubernetesVersion", "StrictSuffix"}
)


def _is_file(path: str) -> bool:
    """``os.path.isfile``, False also where the path cannot exist (a name longer than the file system takes)."""
    try:
        return os.path.isfile(path)
    except (OSError, ValueError):
        return False


def template_variables(api_version: str, kind: str, kubernetes_version: str) -> dict[str, str]:
    """The values kubeconform gives its template variables for one object."""
    group, _, version = api_version.rpartition("/")
    first = group.split(".")[0] if group else ""
    kind_suffix = f"-{first}-{version}" if first else f"-{version}"
    return {
        # kubeconform names the core group after its version ("v1")
        "Group": group or version,
        "ResourceKind": kind.lower(),
        "ResourceAPIVersion": version,
        "KindSuffix": kind_suffix,
        "NormalizedKubernetesVersion": f"v{kubernetes_version}",
        "StrictSuffix": "-strict",
    }


class SchemaLocation(Frozen):
    """One template, checked for unknown variables when it is given, not when it is used."""

    __slots__ = _fields = ("template",)

    template: str

    def __init__(self, template: str):
        if template == "default":
            template = DEFAULT_LOCATION
        object.__setattr__(self, "template", template)
        unknown = sorted(set(_VARIABLE.findall(self.template)) - KNOWN_VARIABLES)
        if unknown:
            raise InputError(
                f"schema location {self.template!r} uses unknown variable(s): {', '.join(unknown)}",
                hint=f"known variables: {', '.join(sorted(KNOWN_VARIABLES))}",
            )

    @property
    def is_remote(self) -> bool:
        return self.template.startswith(("http://", "https://"))

    def expand_text(self, variables: dict[str, str]) -> str:
        template = self.template
        if not template.endswith("json"):
            # kubeconform appends its standard layout to a bare folder
            template = template.rstrip("/") + (
                "/{{.NormalizedKubernetesVersion}}-standalone{{.StrictSuffix}}/{{.ResourceKind}}{{.KindSuffix}}.json"
            )
        return _VARIABLE.sub(lambda m: variables[m.group(1)], template)

    def expand(self, variables: dict[str, str]) -> str:
        """The local file for these variables, spelt as a path (``paths.plain``)."""
        return plain(self.expand_text(variables))


def cache_dir() -> str:
    """``$GPU_GITOPS_SCHEMA_CACHE``, else ``schemas/`` in gpu-gitops' user cache folder."""
    explicit = os.environ.get("GPU_GITOPS_SCHEMA_CACHE")
    if explicit:
        return plain(explicit)
    from generator.paths import cache_folder

    return plain(cache_folder(), "schemas")


def fetch(url: str, cache: str | os.PathLike[str]) -> str | None:
    """The cached copy of ``url``, downloading it first when needed; None when the server says 404.

    Only JSON is cached: an HTML page (a proxy's login page, a moved repository) is an error
    naming the URL, and the next run asks again.
    """
    cached = plain(cache, sha256(url.encode()).hexdigest())
    if os.path.isfile(cached):
        return cached
    import urllib.error  # with http, ssl and email: only a download needs them
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT) as response:  # noqa: S310 (http(s) only)
            body = response.read()
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            return None  # not at this location: try the next one
        raise InputError(
            f"schema location answered HTTP {exc.code}",
            path=url,
            hint="check the --schema-location URL; a schema that is not there must answer 404",
        ) from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        raise InputError(
            f"cannot reach schema location: {reason}",
            path=url,
            hint="check the network or proxy; offline, use local locations or `gpu-gitops schemas sync --from DIR`",
        ) from None
    import json  # a download to check: json's decoder, with re, only then

    try:
        json.loads(body)
    except ValueError:
        raise InputError(
            "schema location returned something that is not JSON",
            path=url,
            hint="check the --schema-location URL in a browser; it must serve JSON Schema files",
        ) from None
    from generator.replace import replace_file

    os.makedirs(cache, exist_ok=True)
    replace_file(cached, body)
    return cached


def find_schema_file(
    locations: list[SchemaLocation],
    variables: dict[str, str],
    cache: str | os.PathLike[str] | None = None,
    consulted: list[tuple[str, bool]] | None = None,
) -> str | None:
    """The first existing schema among ``locations`` for these variables (remote ones cached).

    ``consulted`` gets each local path looked at and whether a file was there (a download's
    cached copy counts as local); a download that found nothing appends ``("", False)``: that
    lookup cannot be repeated offline (``fingerprint.record_validated``)."""
    trail = consulted if consulted is not None else []
    for location in locations:
        if location.is_remote:
            found = fetch(location.expand_text(variables), cache or cache_dir())
            if found is not None:
                trail.append((found, True))
                return found
            trail.append(("", False))
            continue
        candidate = location.expand(variables)
        if _is_file(candidate):
            trail.append((candidate, True))
            return candidate
        trail.append((candidate, False))
    return None
