"""``gpu-gitops schemas sync``: the pinned upstream CRDs, verified and converted into the user's cache.

The package ships a list of sources (``schema_sources.json``): for every custom resource the
generator can emit, and for the kinds GPU platforms commonly run beside them, the upstream CRD
file's URL at the release tag the platform deploys and its sha256. The repository carries no
upstream CRDs and no schemas made from them; ``sync`` fetches them (or reads them from a local
mirror with ``--from``), refuses any file whose checksum differs, converts them with
``schemas import`` and installs the result as one schema set in the cache. The set replaces the
previous one in a single rename, so a failed sync leaves the old set whole.

Render, check and lint look custom resources up in the installed set after the user's own
schema locations, with no flag, and name the set (the source list's version) they used.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from generator.errors import InputError
from generator.paths import cache_root
from generator.validate.schemaset import SET_FILE, SchemaSet

SOURCES_FILE = "schema_sources.json"
DOWNLOAD_TIMEOUT = 60


@dataclass(frozen=True)
class Source:
    """One upstream CRD file: where it is published and what its bytes hash to."""

    project: str
    repo: str
    ref: str
    path: str
    url: str
    sha256: str
    kinds: tuple[str, ...]
    note: str = ""  # why the ref is not the deployed release's tag, where it is not

    @property
    def filename(self) -> str:
        return self.path.rsplit("/", 1)[-1]


@dataclass(frozen=True)
class SourceList:
    version: str
    sources: tuple[Source, ...]


def load_sources(text: str | None = None) -> SourceList:
    """The shipped source list (or ``text``, for tests)."""
    from importlib import resources  # only a sync reads the list: lint and render ask for `installed`

    raw = json.loads(
        text if text is not None else resources.files("generator").joinpath(SOURCES_FILE).read_text(encoding="utf-8")
    )
    return SourceList(raw["version"], tuple(Source(**{**s, "kinds": tuple(s["kinds"])}) for s in raw["sources"]))


def _download(source: Source) -> bytes:
    import urllib.error  # with http, ssl and email: only a download needs them
    import urllib.request

    try:
        with urllib.request.urlopen(source.url, timeout=DOWNLOAD_TIMEOUT) as response:  # noqa: S310 (https URLs we ship)
            return response.read()
    except (OSError, ValueError) as exc:  # HTTPError and URLError are OSErrors
        reason = f"HTTP {exc.code}" if isinstance(exc, urllib.error.HTTPError) else getattr(exc, "reason", exc)
        raise InputError(
            f"cannot download {source.filename}: {reason}",
            path=source.url,
            hint="check the network or proxy, or use `schemas sync --from DIR` with a local mirror",
        ) from None


class Mirror:
    """A local folder holding the same files: found by file name, else by checksum.

    A file it does not have is skipped (an air-gapped mirror may carry only what a site runs);
    a file by the same name with other bytes is an error, as a download's would be.
    """

    def __init__(self, folder: Path):
        if not folder.is_dir():
            raise InputError("mirror folder not found", path=str(folder), hint="--from takes a folder of CRD files")
        self.files = sorted(p for p in folder.rglob("*") if p.is_file())
        self._by_sum: dict[str, Path] | None = None

    def read(self, source: Source) -> bytes | None:
        for path in self.files:
            if path.name == source.filename:
                body = path.read_bytes()
                if _sha256(body) == source.sha256:
                    return body
        if self._by_sum is None:
            self._by_sum = {_sha256(p.read_bytes()): p for p in self.files if p.suffix in (".yaml", ".yml", ".json")}
        found = self._by_sum.get(source.sha256)
        if found is not None:
            return found.read_bytes()
        named = [p for p in self.files if p.name == source.filename]
        if named:
            raise InputError(
                f"{source.filename} ({source.repo} {source.ref}) in the mirror has a different checksum: {named[0]}",
                path=source.url,
                hint=f"the mirror needs the file byte for byte (sha256 {source.sha256})",
            )
        return None


def _sha256(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


def sync(
    mirror: Path | None = None,
    root: Path | None = None,
    sources: SourceList | None = None,
    fetch: Callable[[Source], bytes] = _download,
) -> SchemaSet:
    """Fetch, verify, convert and install every source; the previous set stays until all succeeded."""
    from generator.lint.crdimport import import_files
    from generator.validate.validator import load_schema

    listed = sources or load_sources()
    root = root or cache_root()
    root.mkdir(parents=True, exist_ok=True)
    work = root / f"crd-schemas.{os.getpid()}.part"
    shutil.rmtree(work, ignore_errors=True)
    try:
        reader = Mirror(mirror).read if mirror is not None else fetch
        downloaded = work / "crds"
        downloaded.mkdir(parents=True)
        files: list[Path] = []
        urls: dict[Path, str] = {}
        absent: list[str] = []
        origins: dict[str, str] = {}
        for i, source in enumerate(listed.sources):
            body = reader(source)
            if body is None:
                absent.extend(source.kinds)
                continue
            digest = _sha256(body)
            if digest != source.sha256:
                raise InputError(
                    f"checksum mismatch for {source.filename}: got sha256 {digest}, "
                    f"the source list pins {source.sha256}",
                    path=source.url,
                    hint="the file changed upstream or in transit; nothing was installed",
                )
            target = downloaded / f"{i:03}-{source.filename}"
            target.write_bytes(body)
            files.append(target)
            urls[target] = source.url
            origins.update(dict.fromkeys(source.kinds, f"{source.repo} {source.ref[:12]}"))
        schemas = work / "schemas"
        written = import_files(files, schemas, lambda p: urls.get(p, str(p)))
        for path in written:
            load_schema(path)  # checked once here, so render, check and lint need not
        shutil.rmtree(downloaded)
        schemas.mkdir(exist_ok=True)
        (schemas / SET_FILE).write_text(
            json.dumps({"version": listed.version, "kinds": len(written), "absent": absent, "origins": origins}) + "\n",
            encoding="utf-8",
        )
        final = root / "crd-schemas"
        result = SchemaSet(listed.version, final, len(written), tuple(absent), origins)
        old = root / f"crd-schemas.{os.getpid()}.old"
        if final.exists():
            final.rename(old)
        try:
            schemas.rename(final)
        except OSError:
            if old.exists():
                old.rename(final)
            raise
        shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return result
