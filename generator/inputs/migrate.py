"""``gpu-gitops migrate``: input files of an older version rewritten for the current one.

Each file a cluster reads (its ``cluster.yaml`` and every base it uses) is read with ruamel's
round-trip loader, so comments, key order, quoting and flow style stay as written; the header
(``apiVersion``, ``kind``) is set to the current version, and every migration of
``migrations.MIGRATIONS`` runs on it whatever its header says: each acts only where its old
key, which the current contract no longer has, still is (a file given the current header by
hand may keep one, and render's hint for it says ``migrate`` rewrites it). Comments around a
removed key stay with the keys they describe (``_keep_comments``). Nothing is written when one file cannot be migrated (a ``Stuck``): all
files, or none, and each one replaced by rename.

May import: generator.errors, generator.paths, generator.yamlio, generator.library.
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap

import io
import re
from dataclasses import dataclass, field
from pathlib import Path

from generator import regex
from generator.errors import InputError, InputErrors
from generator.inputs import contract
from generator.inputs.migrations import MIGRATIONS, Context, Stuck, mappings
from generator.paths import CLUSTER_FILE, Project
from generator.replace import replace_file


@dataclass
class FileMigration:
    """One file's rewrite: what changed (as lines to print) and the new text."""

    path: Path
    shown: str
    changes: list[str] = field(default_factory=list)
    text: str = ""


def _yaml(text: str) -> YAML:
    """A round-trip YAML that writes ``text``'s indentation back: ruamel guesses the lists' (the
    dash's offset and the item's indent); a nested mapping's is the first indented key's."""
    from ruamel.yaml import YAML
    from ruamel.yaml.util import load_yaml_guess_indent

    _data, sequence, offset = load_yaml_guess_indent(text)
    mapping = next((len(m.group(1)) for m in _NESTED_KEY.finditer(text)), 2)
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096  # never fold a long line
    yaml.indent(mapping=mapping, sequence=sequence or mapping, offset=offset or 0)
    return yaml


# a top-level key opening a block, then its first key, indented
_NESTED_KEY = regex.compile(r"^[^\s#-][^\n]*:[ \t]*\n(?:[ \t]*#[^\n]*\n)*( +)[^\s#-]", re.M)


def _plan(project: Project, path: Path, kind: str, context: Context) -> FileMigration:
    """The migration of one file; raises ``InputError`` for what it cannot carry over."""
    from ruamel.yaml.error import YAMLError

    shown = project.display(path)
    text = path.read_text(encoding="utf-8")
    try:
        yaml = _yaml(text)
        data = yaml.load(text)
    except YAMLError as exc:
        raise InputError(f"cannot migrate: {exc}".splitlines()[0], path=shown, hint="fix the YAML first") from None
    plan = FileMigration(path, shown)
    if not hasattr(data, "insert"):
        raise InputError("cannot migrate: not a YAML mapping", path=shown)
    version = data.get("apiVersion")
    if version is not None and version != contract.CURRENT and version not in contract.OLDER:
        raise InputError(
            f"cannot migrate from apiVersion {version!r}: not a version this gpu-gitops knows",
            path=shown,
            hint=f"versions known: {', '.join((*contract.OLDER, contract.CURRENT))}",
        )
    # Every migration runs, whatever the header says: each acts only where its key, removed from
    # the current contract, still is (a file given the current header by hand can keep one).
    for migration in MIGRATIONS:
        for where, node in mappings(data, migration.where):
            if migration.key in node:
                try:
                    plan.changes.append(
                        f"{where}: {_keep_comments(cast('CommentedMap', node), migration.key, migration.apply, context)}"
                    )
                except Stuck as stuck:
                    line = node.lc.key(migration.key)[0] + 1 if hasattr(node, "lc") else 0
                    raise InputError(f"{where}: {stuck}", path=shown, line=line, col=1, hint=stuck.hint) from None
    if version == contract.CURRENT and not plan.changes:
        return plan
    if version is None:
        data.insert(0, "kind", kind)
        data.insert(0, "apiVersion", contract.CURRENT)
        plan.changes.insert(0, f"added apiVersion: {contract.CURRENT} and kind: {kind}")
    elif version != contract.CURRENT:
        data["apiVersion"] = contract.CURRENT
        plan.changes.insert(0, f"apiVersion: {version} → {contract.CURRENT}")
    out = io.StringIO()
    yaml.dump(data, out)
    plan.text = out.getvalue()
    return plan


def _keep_comments(
    node: CommentedMap, key: str, apply: Callable[[MutableMapping, Context], str], context: Context
) -> str:
    """``apply`` on ``node`` without losing comments. ruamel keeps the comment after a key's value
    with that key: its inline comment, and the full-line comments below it, which describe the
    next key. A key replaced in place passes them to its successor; a key removed passes the
    lines below it to the key before it (or to the mapping's start), and its own inline comment
    goes with it."""
    items = getattr(getattr(node, "ca", None), "items", None)
    entry = items.get(key) if items is not None else None
    token = entry[2] if entry and len(entry) > 2 else None
    keys = list(node)
    position = keys.index(key)
    done = apply(node, context)
    if token is None or key in node or items is None:
        return done
    now = list(node)
    if position < len(now) and now[position] not in keys:  # replaced in place by a new key
        items.setdefault(now[position], [None, None, None, None])[2] = token
        return done
    below = token.value.partition("\n")[2]
    if not below.strip():
        return done
    from ruamel.yaml.tokens import CommentToken

    if position > 0:
        previous = items.setdefault(now[position - 1], [None, None, None, None])
        if previous[2] is None:
            previous[2] = CommentToken("\n" + below, token.start_mark, None)
        else:
            previous[2].value += below
    else:
        column = node.lc.key(now[0])[1] if now and hasattr(node, "lc") else 0  # the keys' indentation
        text = "\n".join(
            line.strip().removeprefix("#").removeprefix(" ") for line in below.splitlines() if line.strip()
        )
        node.yaml_set_start_comment(text, indent=column)
    return done


def plan(project: Project, clusters: list[str]) -> list[FileMigration]:
    """What ``migrate`` would do to the files of ``clusters`` (each file once, bases first);
    every problem found is raised together, before anything is written."""
    from generator.inputs import bases
    from generator.library import providers

    used_by: dict[Path, set[str]] = {}  # a file → the providers of the clusters that read it
    kinds: dict[Path, str] = {}
    for name in clusters:
        top = bases.read(project, project.clusters / name / CLUSTER_FILE)
        layers = [*bases.chain(project, top), top]
        provider = next(
            (p for layer in reversed(layers) if isinstance(p := _get(layer.doc.data, "provider"), str)), None
        )
        for layer in layers:
            used_by.setdefault(layer.source, set()).add(provider or "")
            kinds[layer.source] = contract.CLUSTER if layer is top else contract.BASE
    plans, errors = [], []
    for path in sorted(used_by, key=lambda p: (kinds[p] != contract.BASE, str(p))):
        defaults = {
            p: providers.facts(p, project.libsonnet).get("localDiskIdPattern") if p else None for p in used_by[path]
        }
        try:
            found = _plan(project, path, kinds[path], Context(defaults))
        except InputError as exc:
            errors.append(exc)
            continue
        if found.changes:
            plans.append(found)
    if errors:
        raise InputErrors(errors)
    return plans


def _get(data: object, key: str) -> object:
    return data.get(key) if isinstance(data, dict) else None


def write(plans: list[FileMigration]) -> None:
    """Replace each file by its migrated text (a rename: a reader sees the old file or the new)."""
    for one in plans:
        try:
            replace_file(one.path, one.text)
        except OSError as exc:
            raise InputError(f"cannot write the migrated file: {exc.strerror or exc}", path=one.shown) from None
