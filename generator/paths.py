"""Where a project's folders are, how a folder is walked, and how paths are shown to the user.

May import: generator.diagnostic, generator.errors, generator.record.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from operator import attrgetter

from generator.errors import InputError
from generator.record import Frozen

TYPE_CHECKING = False  # typing's flag without importing typing (PEP 781; mypy reads it as True)
if TYPE_CHECKING:
    from pathlib import Path

# The paths lint joins are text, joined by ``os.path`` and ``plain``: importing ``pathlib`` (with
# the ``urllib.parse``, ``ipaddress`` and ``fnmatch`` it imports) is ~4 ms and 180 pages of a lint
# after an edit (``python bench/bench_import_cost.py --after collections,functools,re,json
# pathlib``). The other commands take the
# same places as ``Path`` objects (``Project.root``, ``cache_root``).


def plain(*parts: str | os.PathLike[str]) -> str:
    """``str(PurePosixPath(*parts))``: the parts joined by ``/``, an absolute part starting over,
    empty and ``.`` names dropped, ``..`` kept, two leading slashes kept (POSIX leaves their
    meaning to the system) and more made one; ``.`` for nothing. Paths lint shows, compares and
    keys its cache by are spelt as they were when they were ``Path`` objects."""
    root, names = _parsed(parts)
    return root + "/".join(names) or "."


def _parsed(parts: tuple[str | os.PathLike[str], ...]) -> tuple[str, list[str]]:
    """The root ('', '/' or '//') and the names of the path the parts make, as ``PurePosixPath`` parses them."""
    root = ""
    names: list[str] = []
    for given in parts:
        part = os.fspath(given)
        if part.startswith("/"):
            root = "//" if part.startswith("//") and not part.startswith("///") else "/"
            names = []
        names += [name for name in part.split("/") if name and name != "."]
    return root, names


def inside(path: str, folder: str) -> bool:
    """``PurePosixPath(path).is_relative_to(folder)``: the same root, and ``folder``'s names begin ``path``'s."""
    (root, names), (folder_root, folder_names) = _parsed((path,)), _parsed((folder,))
    return root == folder_root and names[: len(folder_names)] == folder_names


def walk(
    top: str, descend: Callable[[str], bool], unlisted: Callable[[OSError], object]
) -> Iterator[tuple[os.DirEntry, str]]:
    """Every file under folder ``top``, with its ``/``-separated path relative to it, as
    ``os.walk(top)`` visits them: parents first, names sorted, links to folders not followed,
    folders whose names ``descend`` refuses left out; a folder that cannot be listed goes to
    ``unlisted``, none of it yielded. One ``scandir`` a folder and no other call: ``os.walk``
    added an ``lstat`` a folder and the callers a Python ``join`` a file (~9 M instructions for a
    corpus of 200 folders and 1,200 files, ~5 M for the package's code fingerprint)."""
    stack = [(top, "")]  # a folder's path, and its path relative to ``top`` with a final '/'
    while stack:
        folder, relative = stack.pop()
        try:
            with os.scandir(folder) as listed:
                entries = sorted(listed, key=attrgetter("name"))
        except OSError as exc:
            unlisted(exc)
            continue
        folders = []
        for entry in entries:
            if not is_folder(entry):
                yield entry, relative + entry.name
            elif descend(entry.name) and not _is_link(entry):
                folders.append(entry)
        stack.extend((entry.path, f"{relative}{entry.name}/") for entry in reversed(folders))


def is_folder(entry: os.DirEntry) -> bool:
    """Whether a listed entry is a folder or a link to one (``Path.is_dir``: False when it cannot be told)."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def _is_link(entry: os.DirEntry) -> bool:
    try:
        return entry.is_symlink()
    except OSError:
        return False


def is_project_root(folder: str | os.PathLike[str]) -> bool:
    """A project root holds ``clusters/`` or ``.gpu-gitops.yaml`` (a fleet not yet started)."""
    return os.path.isdir(os.path.join(folder, "clusters")) or os.path.isfile(os.path.join(folder, ".gpu-gitops.yaml"))


def find_root(start: str | os.PathLike[str]) -> str | None:
    """The nearest folder at or above ``start`` that is a project root, as git finds ``.git``."""
    folder = os.path.realpath(start)
    while True:
        if is_project_root(folder):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _bundled(name: str) -> str:
    """A data folder shipped inside the installed package (``generator/_data/<name>``), found
    beside this module: the package is installed as files, which ``importlib.resources`` would
    only find again (its import, with zipfile and tempfile, is a tenth of a no-op check)."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "_data", name)


CLUSTER_FILE = "cluster.yaml"  # a cluster's input: clusters/<name>/cluster.yaml
SUM_FILE = ".gpu-gitops.sum"  # in each rendered tree: what render hashed (``tree.fingerprint`` writes it)


CACHE_ENV = "GPU_GITOPS_CACHE_DIR"


def cache_folder() -> str:
    """``$GPU_GITOPS_CACHE_DIR``, else the platform's user cache folder for gpu-gitops
    (``$XDG_CACHE_HOME/gpu-gitops`` or ``~/.cache/gpu-gitops`` on Linux), as text: what the
    lint path joins with ``os.path`` (it imports no ``pathlib``, ``docs/performance.md``)."""
    explicit = os.environ.get(CACHE_ENV)
    if explicit:
        return explicit
    import platformdirs

    return platformdirs.user_cache_dir("gpu-gitops", appauthor=False)


def cache_root() -> Path:
    """``cache_folder`` as a path."""
    from pathlib import Path

    return Path(cache_folder())


class Project(Frozen):
    """A gpu-gitops project root: ``clusters/`` in, ``rendered/`` out.

    ``libsonnet/`` and ``schemas/`` come from the root when it has them (this repository,
    or a fork that customises the library), else from the copy installed with the package.
    """

    __slots__ = _fields = ("folder",)

    folder: str  # the root as text (``plain``), for the lint path

    def __init__(self, folder: str | os.PathLike[str]):
        object.__setattr__(self, "folder", plain(folder))

    @property
    def root(self) -> Path:
        from pathlib import Path

        return Path(self.folder)

    @property
    def clusters(self) -> Path:
        return self.root / "clusters"

    @property
    def rendered(self) -> Path:
        return self.root / "rendered"

    @property
    def chart_lock(self) -> Path:
        """The committed record of every chart the clusters deploy, with its digest."""
        return self.root / "clusters" / "charts.lock"

    @property
    def libsonnet(self) -> Path:
        from pathlib import Path

        own = self.root / "libsonnet"
        return own if (own / "main.libsonnet").is_file() else Path(_bundled("libsonnet"))

    @property
    def schemas(self) -> Path:
        from pathlib import Path

        return Path(self.schemas_folder)

    @property
    def schemas_folder(self) -> str:
        """``schemas`` as text: the project's own when it has them, else the installed copy."""
        own = os.path.join(self.folder, "schemas")
        return own if os.path.isfile(os.path.join(own, "cluster.schema.json")) else _bundled("schemas")

    @property
    def schema_file(self) -> Path:
        return self.schemas / "cluster.schema.json"

    def cluster_names(self) -> list[str]:
        """Names of all clusters under ``clusters/``, sorted: every folder not starting with ``.``
        or ``_`` (``_bases/`` holds the inputs clusters share; no cluster name starts so).

        A folder is a cluster whether or not its ``cluster.yaml`` is readable: one renamed to
        ``cluster.yml``, emptied or unreadable is the cluster's input error, never a cluster
        skipped (whose rendered tree would then look orphaned, and be pruned by the engine).
        """
        folder = str(self.clusters)  # plain strings: a no-op check lists a whole fleet here
        if not os.path.isdir(folder):
            return []
        try:
            names = os.listdir(folder)
        except OSError as exc:
            raise self.unreadable_clusters(exc) from None
        return sorted(n for n in names if not n.startswith((".", "_")) and os.path.isdir(os.path.join(folder, n)))

    def unreadable_clusters(self, exc: OSError) -> InputError:
        """``clusters/`` itself cannot be listed: one error that names it, never "no clusters"
        (a render would have nothing to do, a check nothing to compare, and exit 0)."""
        return InputError(
            f"cannot read folder: {exc.strerror or exc}",
            path=self.display(self.clusters),
            hint="check that this user may list clusters/ and read what it holds (`ls -ld clusters`)",
        )

    def clusters_readable(self) -> None:
        """Raise ``unreadable_clusters`` when ``clusters/`` exists but cannot be listed (before a
        command names one cluster's input, whose read would fail inside it)."""
        folder = str(self.clusters)
        if os.path.isdir(folder):
            try:
                os.listdir(folder)
            except OSError as exc:
                raise self.unreadable_clusters(exc) from None

    def display(self, path: str | os.PathLike[str]) -> str:
        """A path relative to the root when it is inside it (stable in messages and SARIF)."""
        shown = plain(path)
        try:
            return os.path.relpath(shown, self.folder) if os.path.isabs(shown) else shown
        except ValueError:
            return shown
