"""A real Helm, found and run as a subprocess (as kubeconform is): ``helm template`` is what the
engines themselves run (helm-controller links Helm's Go packages, Argo CD's repo-server runs
the ``helm`` binary), so inflation uses it rather than a reimplementation of Go templates.

``GPU_GITOPS_HELM`` names the binary, else ``helm`` on ``PATH``. Helm 3.14 or later and 4.x
are supported: 3.14 is the oldest release whose ``helm template`` takes every flag used here
with today's meaning (``--kube-version``, ``--api-versions``, ``--include-crds``,
``--skip-tests``), and helm-controller v1.x / Argo CD 3.x build against 3.14+ or 4.x.

Helm runs with its configuration, cache and data folders in a fresh temporary folder, and with
no repository configured: ``helm template`` of a local package reads nothing else and reaches
no network (a chart with unmet dependencies fails instead of downloading them).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass

from generator import regex
from generator.errors import InputError

ENV = "GPU_GITOPS_HELM"
OLDEST = (3, 14)
INSTALL_HINT = (
    f"install Helm 3.14+ or 4.x (https://helm.sh/docs/intro/install/) and put it on PATH, or name the binary in {ENV}"
)
_VERSION = regex.compile(r"^v?(\d+)\.(\d+)\.(\d+)")


@dataclass(frozen=True)
class Helm:
    path: str
    version: str  # as the binary reports it, e.g. v4.1.4

    @property
    def major(self) -> int:
        return int(_VERSION.match(self.version).group(1))  # type: ignore[union-attr]  # checked in find()


def supported(version: str) -> bool:
    match = _VERSION.match(version)
    if not match:
        return False
    major, minor = int(match.group(1)), int(match.group(2))
    return major == 4 or (major, minor) >= OLDEST and major == 3


@functools.cache
def find() -> Helm:
    """The Helm to use, its version checked; one located error when there is none, or an
    unsupported one."""
    named = os.environ.get(ENV)
    path = named or shutil.which("helm")
    if not path:
        raise InputError("no helm found: inflating charts needs a real Helm", hint=INSTALL_HINT)
    try:
        done = subprocess.run(
            [path, "version", "--template", "{{.Version}}"],
            capture_output=True,
            text=True,
            timeout=60,
            env=_environment(tempfile.gettempdir()),
        )
    except OSError as exc:
        raise InputError(f"cannot run {path}: {exc.strerror or exc}", hint=INSTALL_HINT) from None
    version = done.stdout.strip()
    if done.returncode != 0 or not supported(version):
        raise InputError(
            f"{path} is Helm {version or '(unknown version)'}; Helm 3.14+ or 4.x is needed",
            hint=INSTALL_HINT,
        )
    return Helm(path, version)


def _environment(home: str) -> dict[str, str]:
    """Helm's environment: only what a subprocess needs, every Helm folder inside ``home``, so no
    user repository, registry login or plugin is read."""
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "TMPDIR")}
    env.update(
        HOME=home,
        HELM_CONFIG_HOME=os.path.join(home, "config"),
        HELM_CACHE_HOME=os.path.join(home, "cache"),
        HELM_DATA_HOME=os.path.join(home, "data"),
        HELM_REGISTRY_CONFIG=os.path.join(home, "config", "registry.json"),
        HELM_REPOSITORY_CONFIG=os.path.join(home, "config", "repositories.yaml"),
        HELM_REPOSITORY_CACHE=os.path.join(home, "cache", "repository"),
        HELM_PLUGINS=os.path.join(home, "plugins"),
    )
    return env


@dataclass(frozen=True)
class Invocation:
    """What the engine passes ``helm template`` for one release (``inflate`` builds it)."""

    release: str
    namespace: str
    kube_version: str  # e.g. 1.32.0
    api_versions: tuple[str, ...]  # group/version and group/version/Kind, sorted
    include_crds: bool
    values_json: str  # the merged values, as JSON (YAML 1.2 reads it as written)

    def arguments(self, chart: str, values_file: str) -> list[str]:
        args = [
            "template",
            self.release,
            chart,
            "--namespace",
            self.namespace,
            "--kube-version",
            self.kube_version,
            "--values",
            values_file,
            "--skip-tests",
        ]
        if self.include_crds:
            args.append("--include-crds")
        for api in self.api_versions:
            args += ["--api-versions", api]
        return args


def template(helm: Helm, chart: str, invocation: Invocation, what: str) -> str:
    """``helm template`` of the package at ``chart``: its standard output (the manifests). A
    failure is one error naming the release (``what``) with Helm's own message."""
    with tempfile.TemporaryDirectory(prefix="gpu-gitops-helm-") as home:
        values_file = os.path.join(home, "values.json")
        with open(values_file, "w", encoding="utf-8") as handle:
            handle.write(invocation.values_json)
        try:
            done = subprocess.run(
                [helm.path, *invocation.arguments(chart, values_file)],
                capture_output=True,
                text=True,
                timeout=300,
                env=_environment(home),
                cwd=home,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise InputError(f"{what}: helm template did not run: {exc}", hint=INSTALL_HINT) from None
    if done.returncode != 0:
        message = _error(done.stderr) or f"exit code {done.returncode}"
        raise InputError(
            f"{what}: helm template failed: {message}",
            hint="the values the tree renders do not inflate with this chart; fix them in the input "
            "or the library, as helm-controller and Argo CD would fail the same way",
            detail=done.stderr,
        )
    return done.stdout


def _error(stderr: str) -> str:
    """Helm's error on one line: Helm 4 spreads a template's error over several (file and line,
    then what it was executing, then the message) and ends with a notice about ``--debug``."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip() and not line.startswith("Use --debug")]
    return " ".join(lines).removeprefix("Error: ")
