"""``gpu-gitops charts pull``: the packages of the charts the clusters deploy into the cache, and
their digests into the lock. The only code of gpu-gitops that downloads a chart.

A package comes from a local folder (``--from DIR``: air-gapped sites, tests), found by its
file name ``<chart>-<version>.tgz`` or else by the name and version in its ``Chart.yaml``;
from an HTTPS chart repository (its ``index.yaml``, then the package URL it lists, with the
index's own sha256 checked where it gives one); or from an OCI registry (``helm pull``, as the
engines pull OCI charts). Whatever the source, a package whose ``Chart.yaml`` names another
chart or version is refused, and so is one whose digest differs from the lock's, naming both
digests: a lock changes only when a chart's version does. All packages are fetched and
checked before anything is stored or written.
"""

from __future__ import annotations

import io
import os
import subprocess
import tarfile
import tempfile
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from generator.charts import helm, lock, store
from generator.errors import InputError

TIMEOUT = 60  # seconds per download


@dataclass(frozen=True)
class Wanted:
    repository: str
    chart: str
    version: str

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.repository, self.chart, self.version)

    def shown(self) -> str:
        return f"{self.chart} {self.version} ({self.repository})"


@dataclass
class Pulled:
    entries: dict[tuple[str, str, str], lock.Entry]
    fetched: list[lock.Entry]  # not in the cache before
    dropped: list[lock.Entry]  # in the lock before, deployed by no cluster now


def chart_metadata(data: bytes) -> tuple[str, str]:
    """(name, version) of a package's ``Chart.yaml``; an error when it is not a chart package."""
    from ruamel.yaml.error import YAMLError

    from generator.yamlio.read import TooDeep, load_data

    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
            for member in archive.getmembers():
                parts = member.name.split("/")
                if len(parts) == 2 and parts[1] == "Chart.yaml" and member.isfile():
                    handle = archive.extractfile(member)
                    meta = load_data(handle.read().decode("utf-8")) if handle else None
                    if isinstance(meta, dict):
                        return str(meta.get("name", "")), str(meta.get("version", ""))
    except (tarfile.TarError, OSError, EOFError, UnicodeDecodeError, YAMLError, TooDeep):
        pass
    raise ValueError("not a Helm chart package (no <chart>/Chart.yaml in a gzipped tar)")


def _from_folder(folder: Path, wanted: Wanted) -> bytes:
    named = folder / f"{wanted.chart}-{wanted.version}.tgz"
    candidates = [named] if named.is_file() else sorted(folder.glob("*.tgz"))
    for path in candidates:
        data = path.read_bytes()
        try:
            if chart_metadata(data) == (wanted.chart, wanted.version):
                return data
        except ValueError:
            continue
        if path == named:
            break
    raise InputError(
        f"chart {wanted.shown()} is not in {folder}",
        path=str(folder),
        hint=f"add {wanted.chart}-{wanted.version}.tgz (the package the repository serves) to the folder",
    )


def _get(url: str) -> bytes:
    request = urllib.request.Request(url, headers={"User-Agent": "gpu-gitops"})
    with urllib.request.urlopen(request, timeout=TIMEOUT) as response:  # noqa: S310 (https only, checked below)
        return response.read()


def _from_https(wanted: Wanted) -> tuple[bytes, str | None]:
    """The package and the sha256 the repository's index gives for it (None when it gives none)."""
    from ruamel.yaml.error import YAMLError

    from generator.yamlio.read import TooDeep, load_data

    base = wanted.repository.rstrip("/") + "/"
    try:
        index = load_data(_get(base + "index.yaml").decode("utf-8")) or {}
    except (YAMLError, TooDeep, UnicodeDecodeError) as exc:
        raise OSError(f"its index.yaml is not YAML: {(str(exc).splitlines() or [type(exc).__name__])[0]}") from None
    for entry in (index.get("entries") or {}).get(wanted.chart, []) or []:
        if str(entry.get("version")) == wanted.version and entry.get("urls"):
            url = urllib.parse.urljoin(base, entry["urls"][0])
            if urllib.parse.urlparse(url).scheme != "https":
                raise InputError(f"chart {wanted.shown()}: the repository lists it at {url}, not https")
            return _get(url), entry.get("digest")
    raise InputError(
        f"chart {wanted.shown()} is not in the repository's index.yaml",
        hint="check the version the library or the input pins",
    )


def _from_oci(wanted: Wanted) -> bytes:
    found = helm.find()
    with tempfile.TemporaryDirectory(prefix="gpu-gitops-pull-") as folder:
        done = subprocess.run(
            [found.path, "pull", f"{wanted.repository.rstrip('/')}/{wanted.chart}", "--version", wanted.version],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=folder,
            env={**os.environ, "HOME": folder},
        )
        packages = sorted(Path(folder).glob("*.tgz"))
        if done.returncode != 0 or not packages:
            raise InputError(f"chart {wanted.shown()}: helm pull failed: {done.stderr.strip()}")
        return packages[0].read_bytes()


def fetch(wanted: Wanted, mirror: Path | None) -> bytes:
    """One package, from the mirror folder or its repository, its Chart.yaml checked."""
    if mirror is not None:
        data = _from_folder(mirror, wanted)
    elif wanted.repository.startswith("oci://"):
        data = _from_oci(wanted)
    elif wanted.repository.startswith("https://"):
        try:
            data, indexed = _from_https(wanted)
        except OSError as exc:
            raise InputError(
                f"chart {wanted.shown()}: cannot download it: {exc}",
                hint="check the network, or pull from a folder of packages with --from DIR",
            ) from None
        if indexed and store.digest(data) != f"sha256:{indexed}":
            raise InputError(
                f"chart {wanted.shown()}: the package's digest {store.digest(data)} differs from "
                f"sha256:{indexed} that the repository's index gives",
            )
    else:
        raise InputError(f"chart {wanted.shown()}: only https:// and oci:// repositories are pulled")
    try:
        meta = chart_metadata(data)
    except ValueError as exc:
        raise InputError(f"chart {wanted.shown()}: {exc}") from None
    if meta != (wanted.chart, wanted.version):
        raise InputError(f"chart {wanted.shown()}: the package is {meta[0]} {meta[1]}")
    return data


def pull(wanted: list[Wanted], locked: dict | None, mirror: Path | None, lock_shown: str) -> Pulled:
    """Fetch every wanted chart not cached at its locked digest, check each against the lock,
    then store them; the lock's new entries are returned, not written."""
    locked = locked or {}
    entries, fetched, packages = {}, [], []
    for item in sorted(set(wanted), key=lambda w: w.key):
        old = locked.get(item.key)
        if old is not None and store.read(old.hex) is not None:
            entries[item.key] = old
            continue
        data = fetch(item, mirror)
        digest = store.digest(data)
        if old is not None and old.digest != digest:
            raise InputError(
                f"chart {item.shown()}: the package's digest {digest} differs from {old.digest} in {lock_shown}",
                path=lock_shown,
                hint="a published chart version never changes: check where the package came from; "
                "if the lock is wrong, remove its entry and pull again",
            )
        entry = lock.Entry(item.repository, item.chart, item.version, digest)
        entries[item.key] = entry
        fetched.append(entry)
        packages.append(data)
    for data in packages:
        store.add(data)
    dropped = sorted(e for k, e in locked.items() if k not in entries)
    return Pulled(entries, fetched, dropped)
