"""Manifests' full loader: ruamel's safe loader with go-yaml v2's rules, for the documents the
reader's backends (``yamlio.read``) do not build (anchors, tags, duplicate keys, errors to word).

kubectl and the API server read YAML with sigs.k8s.io/yaml over go-yaml v2: plain scalars
resolve as ``yamlread.resolve_plain`` says (YAML 1.1), keys become JSON keys, tags are read
as go-yaml's decoder reads them, and a repeated key keeps its later value. Cluster inputs have
their own full loader (ruamel's round-trip loader, YAML 1.2, ``yamlio.positions``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from ruamel.yaml import YAML
from ruamel.yaml.constructor import ConstructorError, SafeConstructor
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from ruamel.yaml.resolver import VersionedResolver
from ruamel.yaml.scanner import ScannerError
from ruamel.yaml.tag import Tag

from generator.yamlio import aliases as yamlaliases
from generator.yamlio import depth as yamldepth
from generator.yamlio import read as yamlread

_GO_PLAIN = "tag:gpu-gitops,2026:go-plain"  # a plain scalar, resolved as go-yaml v2 does
_MERGE = "tag:yaml.org,2002:merge"


class Constructor(SafeConstructor):
    """The safe constructor with plain scalars resolved the Kubernetes way (``yamlread``), and
    repeated keys read as go-yaml v2 reads them: the later value wins. The repeats of the document
    being loaded are kept in ``repeated`` (key, mark of the later one)."""

    repeated: list = []

    def check_mapping_key(self, node: Node, key_node: Node, mapping: dict, key: Any, value: Any) -> bool:
        if key in mapping:
            Constructor.repeated.append((key, key_node.start_mark))
        return True  # ruamel keeps the first value of a repeated key; kubectl keeps the last

    def construct_go_plain(self, node: ScalarNode) -> Any:
        return yamlread.resolve_plain(node.value)

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict:
        """Keys as JSON object keys: sigs.k8s.io/yaml turns ``1`` and ``yes`` into strings and
        refuses null, mapping and sequence keys."""
        for key_node, _ in node.value:
            if not isinstance(key_node, ScalarNode):
                raise ConstructorError(
                    None,
                    None,
                    "a mapping or sequence cannot be a map key (Kubernetes objects are JSON: keys are strings)",
                    key_node.start_mark,
                )
            if key_node.tag == _GO_PLAIN and yamlread.resolve_plain(key_node.value) is None:
                raise ConstructorError(
                    None,
                    None,
                    f"a null map key ({key_node.value or 'empty'!s}) has no JSON form; quote it if it is text",
                    key_node.start_mark,
                )
        mapping = super().construct_mapping(node, deep)
        return {yamlread.json_key(key): value for key, value in mapping.items()}

    def construct_non_recursive_object(self, node: Node, tag: str | None = None) -> Any:
        """go-yaml v2 decodes by node kind, not by tag: a mapping or sequence is one whatever it is
        tagged, and a scalar whose tag it cannot resolve (a local ``!foo bar``, ``!!python/name``)
        is its text (resolve.go: ``resolvableTag`` fails, ``resolve`` returns the input unchanged)."""
        if tag is None:
            tag = _go_tag(node)
        return super().construct_non_recursive_object(node, tag)


_YAML_TAG = "tag:yaml.org,2002:"
# tags go-yaml v2 resolves a scalar with (resolve.go resolvableTag, plus !!binary in decode.go)
_SCALAR_TAGS = frozenset(
    {_GO_PLAIN, _MERGE, *(_YAML_TAG + kind for kind in ("str", "bool", "int", "float", "null", "timestamp", "binary"))}
)


def _go_tag(node: Node) -> str:
    """The tag ``node`` is built with, as go-yaml v2's decoder treats it."""
    if isinstance(node, MappingNode):
        return _YAML_TAG + "map"
    if isinstance(node, SequenceNode):
        return _YAML_TAG + "seq"
    tag = str(node.tag)
    return tag if tag in _SCALAR_TAGS else _YAML_TAG + "str"


_TAGGED_TYPES = {"int": (int,), "float": (float, int), "bool": (bool,), "null": (type(None),)}


def _construct_tagged(kind: str) -> Callable[[SafeConstructor, ScalarNode], Any]:
    """``!!int 7``, ``!!bool yes``...: the text resolved as a plain scalar must be of the tag's
    type (go-yaml's "cannot decode !!str `abc` as a !!int"); a located error otherwise."""

    def construct(self: SafeConstructor, node: ScalarNode) -> Any:
        value: Any = yamlread.resolve_plain(node.value)
        if isinstance(value, _TAGGED_TYPES[kind]) and not (kind != "bool" and isinstance(value, bool)):
            return float(cast(float, value)) if kind == "float" else value
        raise ConstructorError(
            None, None, f"cannot decode {yamlread.describe(node.value)} as a !!{kind}", node.start_mark
        )

    return construct


Constructor.add_constructor(_GO_PLAIN, Constructor.construct_go_plain)
for _kind in _TAGGED_TYPES:
    Constructor.add_constructor(f"tag:yaml.org,2002:{_kind}", _construct_tagged(_kind))
Constructor.add_constructor(_MERGE, SafeConstructor.construct_yaml_str)  # ``<<`` as a value is text
Constructor.add_constructor("tag:yaml.org,2002:timestamp", SafeConstructor.construct_yaml_str)
Constructor.add_constructor("tag:yaml.org,2002:binary", SafeConstructor.construct_yaml_str)


class Resolver(VersionedResolver):
    """Every plain scalar gets one tag, built by ``yamlread.resolve_plain``; ``<<`` merges.

    Skipping ruamel's YAML 1.2 regular expressions also skips its per-scalar version lookup.
    """

    def resolve(self, kind: type, value: str, implicit: tuple[bool, bool]) -> Tag:
        if kind is ScalarNode and implicit[0]:
            return Tag(suffix=_MERGE if value == "<<" else _GO_PLAIN)
        return super().resolve(kind, value, (False, False))


def safe_loader(pure: bool = False) -> YAML:
    """ruamel's safe loader (its C parser, or with ``pure`` its Python one) with these rules."""
    yaml = YAML(typ="safe", pure=pure)
    yaml.Constructor = Constructor
    yaml.Resolver = Resolver
    return yaml


def load_full(yaml: YAML, chunk: str) -> Any:
    """Plain data of a document the fast path does not take (anchors, tags, errors to word)."""
    # ruamel's C composer recurses in C: the depth bound first, or deep nesting kills the
    # interpreter (and libyaml takes quadratic time in flow nesting: stop at the bound)
    yamldepth.check(chunk, yamlread.MANIFESTS.depth)
    # the fast path takes no aliases; ruamel would share, not copy, them
    yamlaliases.check(chunk, yamlread.MANIFESTS.alias_nodes)
    try:
        return yaml.load(chunk)
    except ScannerError as exc:
        # ruamel.yaml.clib bundles a libyaml older than the rule go-yaml (and so kubectl)
        # follows: in a flow collection, ':' not followed by a space is part of a plain
        # scalar (`{value: http://prometheus:9090}`). ruamel's Python scanner follows it too.
        if exc.problem != "found unexpected ':'":
            raise
        data = safe_loader(pure=True).load(chunk)
        yamlaliases.check_data(data, yamlread.MANIFESTS.alias_nodes)
        return data
