"""The reader's two paths over libyaml give the same data and the same positions.

The compiled path (``generator.yamlio._cread``) takes what it can and sends the rest on
(``Slow``); whatever it takes, the event path (ruamel's C parser events) must build the same
data, types included (``True`` is not ``1``), and the same position map. The event path's
bundled libyaml refuses a ``:`` inside a flow scalar, which the compiled path's reads: it masks
it, and where that does not take the text, ruamel's Python parser reads it. Where the event
path still refuses what the compiled path reads, the full loaders, which read it too (lint's
for manifests, the round-trip loader for inputs), are the reference. Checked on every
manifest and input of this repository and ../shared, on the lint fuzzer's mutated manifests
and on generated flow collections with ':' in their scalars; and lint's reports and a render's
tree are byte-identical with the compiled path off.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import REPO, SHARED, cache_with_charts
from hypothesis import given
from hypothesis import strategies as st
from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from generator.cli import cli
from generator.errors import InputError
from generator.lint import loader
from generator.yamlio import events, goyaml, positions, read
from tests.fuzz.budget import fuzz_settings
from tests.fuzz.mutations import mutated_yaml

pytestmark = pytest.mark.skipif(
    read._compiled(read.GO_YAML, None) is None,
    reason="the compiled backend is not in use (not built, or GPU_GITOPS_YAML_BACKEND=events)",
)

MANIFEST_FILES = sorted(
    p
    for root in (REPO / "rendered", REPO / "tests" / "fixtures", SHARED / "upstream-examples", SHARED / "upstream-crds")
    for p in root.rglob("*")
    if p.suffix in (".yaml", ".yml")
)
# what the lint fuzzer mutates: well-formed manifests (the fixtures are broken on purpose)
SEEDS = [p for p in MANIFEST_FILES if REPO / "tests" not in p.parents and SHARED / "upstream-crds" not in p.parents]
INPUT_FILES = sorted((REPO / "clusters").rglob("*.yaml")) + sorted((REPO / "tests" / "fixtures").rglob("cluster*.yaml"))


# position maps are compared for documents up to this size (CRDs run to megabytes: the suite's time)
POSITIONS_BYTES = 32 * 1024


def same(a: Any, b: Any) -> bool:
    """Equal data of equal types, keys in the same order; NaN equals NaN."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return a == b


def compiled(text: str, resolution: read.Resolution, depth: int):
    """The compiled path's data, or the exception it raised."""
    try:
        return read._compiled(resolution, depth).load(text)
    except Exception as exc:  # noqa: BLE001 - the exception is the result compared
        return exc


def event_path(text: str, resolution: read.Resolution, depth: int):
    """What ``read.load`` does without the compiled path: data, or the exception."""
    reader = read._compiled
    read._compiled = lambda *_: None  # type: ignore[assignment]
    try:
        return read.load(text, resolution, depth)
    except Exception as exc:  # noqa: BLE001
        return exc
    finally:
        read._compiled = reader  # type: ignore[assignment]


def mapped(text: str, resolution: read.Resolution | None, compiled_path: bool) -> read.Positions:
    """The position map of ``text``, built by one path (a built map answers ``find`` itself)."""
    reader = read._compiled
    if not compiled_path:
        read._compiled = lambda *_: None  # type: ignore[assignment]
    try:
        where = read.Positions(text, resolution)
        where._map()
        return where
    finally:
        read._compiled = reader  # type: ignore[assignment]


def positions_table(where: read.Positions) -> dict:
    """Every path's key and value marks, and the plain text there, in a built map."""
    return {path: (marks, read.plain_text(where.find(path, True)[0])) for path, marks in where.table().items()}


def found_alone(
    text: str, resolution: read.Resolution | None, paths: list[tuple], built: read.Positions | None
) -> list:
    """What ``find`` answers for each path and ``at_value``, as the mark, and whether a node is
    there and its plain text: by the compiled path (``built`` None), each from a new ``Positions``
    (no map built: it reads the text again for the one path), or by the event path's ``built`` map."""
    answers = []
    for path in paths:
        for at_value in (False, True):
            node, mark = (read.Positions(text, resolution) if built is None else built).find(path, at_value)
            where = None if mark is None else (mark.line, mark.column)
            answers.append((path, at_value, where, node is None, read.plain_text(node)))
    return answers


def found_together(text: str, resolution: read.Resolution | None, paths: list[tuple], whole: bool) -> list:
    """``found_alone``'s answers (compiled path) from one ``find_all`` of every path and ``at_value``:
    one read, stopped once the answers are settled when ``whole`` (the compiled reader loaded the text)."""
    queries = [(path, at_value) for path in paths for at_value in (False, True)]
    found = read.Positions(text, resolution, whole=whole).find_all(queries)
    return [
        (path, at_value, None if mark is None else (mark.line, mark.column), node is None, read.plain_text(node))
        for (path, at_value), (node, mark) in zip(queries, found, strict=True)
    ]


def probes(paths: list[tuple], count: int = 4) -> list[tuple]:
    """A spread of ``count`` of the paths, the root, and below each a key and an index that are not there."""
    sample = [(), *paths[:: max(1, len(paths) // count)]]
    return sample + [(*p, "no such key") for p in sample] + [(*p, 10**30) for p in sample] + [(*p, 0) for p in sample]


def agree(text: str, resolution: read.Resolution, depth: int, location: str) -> bool:
    """Assert the paths agree on ``text``; True when the compiled path took it."""
    fast = compiled(text, resolution, depth)
    if isinstance(fast, read._cread.Slow):
        return False
    slow = event_path(text, resolution, depth)
    if isinstance(fast, Exception):  # a resolution's Fallback (a null key): the event path stops there, or
        # its older libyaml before it: either sends the text to the full loader
        assert isinstance(fast, read.Fallback), f"{location}: compiled raised {fast!r}"
        assert isinstance(slow, (read.Fallback, YAMLError)), (
            f"{location}: compiled raised {fast!r}, event path {slow!r}"
        )
        return False
    refused = isinstance(slow, YAMLError)
    if refused:  # the event path's older libyaml (or ruamel's Python parser) refused it: the full loaders decide
        try:
            slow = goyaml.load_full(goyaml.safe_loader(), text) if resolution is read.GO_YAML else full_input(text)
        except (YAMLError, InputError) as exc:  # and refused it too, for a reason of ruamel's own scanner
            assert any(apart in str(exc) for apart in SCANNERS_APART), f"{location}: only the compiled path read it"
            return True
    assert same(fast, slow), f"{location}: the paths built different data"
    table = None if resolution is read.GO_YAML else resolution
    if len(text) <= POSITIONS_BYTES and not refused:
        located, events_map = positions_table(mapped(text, table, True)), mapped(text, table, False)
        assert located == positions_table(events_map), f"{location}: positions"
        paths = probes(list(located))
        alone = found_alone(text, table, paths, None)
        assert alone == found_alone(text, table, paths, events_map), f"{location}: find"
        for whole in (False, True):  # the compiled path took the text
            assert found_together(text, table, paths, whole) == alone, f"{location}: find_all"
    return True


def full_input(text: str):
    return positions._ruamel_load(text, "input").data


# What ruamel's Python scanner refuses and libyaml (go-yaml's origin) reads: a tab inside a plain
# scalar (YAML 1.2's nb-ns-plain-in-line allows it). It decides only texts the bundled libyaml
# also refused, for a reason of its age (a ':' in a flow scalar), where the compiled path's reads,
# and masking did not take.
SCANNERS_APART = ("found character '\\t' that cannot start any token",)


def chunks(path: Path):
    for first_line, chunk in loader.split_documents(path.read_text(encoding="utf-8")):
        yield f"{path}:{first_line + 1}", chunk


@pytest.mark.slow
def test_both_paths_read_every_manifest_here_alike():
    taken = sum(
        agree(chunk, read.GO_YAML, read.MANIFESTS.depth, where)
        for path in MANIFEST_FILES
        for where, chunk in chunks(path)
    )
    assert taken > 500  # the comparison is not empty: most documents take the compiled path


def test_both_paths_read_every_input_here_alike():
    resolution = positions.yaml_1_2()
    taken = sum(agree(p.read_text(encoding="utf-8"), resolution, read.INPUTS.depth, str(p)) for p in INPUT_FILES)
    assert taken >= len(list((REPO / "clusters").glob("*/cluster.yaml")))


@pytest.mark.parametrize(
    "text",
    [
        "a: &x 1\nb: *x\n",  # anchors and aliases
        "a: !!str 1\n",  # tags
        "a: 1\na: 2\n",  # duplicate keys
        "<<: {a: 1}\n",  # merge keys
        "? [a]\n: 1\n",  # complex keys
        "a: 1\n---\nb: 2\n",  # two documents
        "a: [1\n",  # a syntax error
        "a: '\ud800'\n",  # a lone surrogate
        "a: 1\n\ufeff# b\n",  # a byte order mark past the start: libyaml drops it, ruamel's scanner reads it
        "a: b\u2028c\n",  # YAML 1.1's other line breaks (LS, PS, NEL), read apart likewise
        "a: b\x85c\n",
        "%YAML 1.2\n---\na: 1\n",  # directives: inputs refuse a 1.1 one, the loaders check them
        "a:\n" + "".join("  " * i + "- \n" for i in range(1, 4)),
    ],
)
def test_what_the_compiled_path_sends_on_the_event_path_decides(text):
    assert isinstance(compiled(text, read.GO_YAML, 3), read._cread.Slow)
    fast_off, both = event_path(text, read.GO_YAML, 3), _load(text, read.GO_YAML, 3)
    assert type(both) is type(fast_off) and (isinstance(both, Exception) or same(both, fast_off))


def _load(text, resolution, depth):
    try:
        return read.load(text, resolution, depth)
    except Exception as exc:  # noqa: BLE001
        return exc


def test_the_depth_bound_is_the_event_paths_error():
    text = "a:\n  b:\n    c: 1\n"
    assert same(read.load(text, read.GO_YAML, 3), {"a": {"b": {"c": 1}}})
    with pytest.raises(read.TooDeep) as deep:
        read.load(text, read.GO_YAML, 2)
    assert (deep.value.line, deep.value.col) == (2, 4)


def test_a_null_key_stops_both_paths_with_the_resolutions_fallback():
    assert isinstance(compiled("~: 1\n", read.GO_YAML, 8), read.Fallback)
    assert isinstance(event_path("~: 1\n", read.GO_YAML, 8), read.Fallback)


# plain scalars with ':' in flow collections: libyaml 0.2.5 (the compiled path's), go-yaml and
# ruamel's Python scanner read the ':' as part of the scalar; the bundled libyaml 0.1.7 refuses
# it, and the event path masks each such ':' and reads the text's libyaml events (``events._masked``)
FLOW_COLONS = [
    "metadata:\n  annotations: {url: http://prometheus:9090}\n",
    "a: [12:30]\n",
    "a: {b: 12:30, c: [1:2:3, x]}\n",
    "a: [a:b, c]\n",
    "a: {x:1}\n",
    "a: [http://h:1/x, 'q']\n",
    "y: [12:30]\nn: {on: 1:1}\n",  # keys YAML 1.1 resolves (`true`, `false`) located alike
    "a:\n  - {u: http://h:9090}\n  - b: [0:0]\n    c: |\n      text\n",
    # empty values, which ruamel's parser marks at the next token and libyaml just past the ':'
    "a: {x: 1:2}\nb:\nc: 1\n",
    "a: {x: 1:2}\nb :   # note\nc:",
    "- {x: 1:2}\n- a:\n  b:\n    -\n    - c:\n",
    "a: {x: 1:2}\nb: ''\nc: \"\"\n",  # empty quoted values: marked at their quote by both
    "a: {b: http://h:1/x, c: [d:e, f:g:h]}\nd: [i:j]\n",  # several in a text, one re-read each
    "\ufeffa: {x: http://h:1}\n",  # a leading byte order mark, which libyaml's marks do not count
    "a: {é: ü:ö, x: [日本:語]}\n",  # characters of several bytes before the ':'
    "a: {x: h\n  :9, y: 1}\n",  # a ':' that starts a continuation line of the scalar
    "a: {x: 1:2}\r\nb: [3:4]\r\n",
    'a: [x:#y, \'q:r\', "s:t", "\\ue000"]\n',  # quoted ':' and an escaped mask are left as written
    "a: {k:v: w, k:x: [y:z]}\n",  # in keys
    "a: [x:y\tz]\n",  # a tab in the scalar, which ruamel's Python scanner refuses
    "a: [" + ", ".join(f"{i}:{i}" for i in range(events.MASKED_COLONS)) + "]\n",
]
# ... and those the event path leaves to ruamel's Python parser's events: a ':' 0.2.5 refuses
# too, a text the masked read still refuses, one holding the mask, more ':' than it masks
FLOW_COLONS_UNMASKED = [
    "a: [http://h:1/x?y=1]\n",  # a '?' in a flow scalar, which the bundled libyaml stops at
    "a: [\ue000, b:c]\n",
    "a: [" + ", ".join(f"{i}:{i}" for i in range(events.MASKED_COLONS + 1)) + "]\n",
]
# ... and those neither libyaml reads: ruamel's Python parser's reading decides, as before
FLOW_COLONS_REFUSED = [
    "a: {b: http://h, c: [1}\n",  # refused past a masked ':'
    "a: [b:]\n",  # a ':' before a flow indicator, which libyaml 0.2.5 refuses too (ruamel reads it)
    "a: {b: c:d, e: [f:g, h:{i: 1}]}\n",
    'a: {b: c:d, e: "x\\\'y"}\n',  # an escape the bundled libyaml refuses
    "a: {b: c:d}\n b: 1\n",
]


@pytest.mark.parametrize("text", FLOW_COLONS + FLOW_COLONS_UNMASKED)
@pytest.mark.parametrize("resolution", ["go-yaml", "yaml-1.2"])
def test_a_colon_in_a_flow_scalar_is_read_alike_by_both_paths(text, resolution):
    chosen = read.GO_YAML if resolution == "go-yaml" else positions.yaml_1_2()
    fast = compiled(text, chosen, 64)
    assert not isinstance(fast, Exception), fast
    assert same(event_path(text, chosen, 64), fast)
    table = None if chosen is read.GO_YAML else chosen
    assert positions_table(mapped(text, table, False)) == positions_table(mapped(text, table, True))


@pytest.mark.parametrize("text", FLOW_COLONS)
def test_the_event_path_reads_a_colon_in_a_flow_scalar_from_libyamls_events(text, monkeypatch):
    """Masked, not read by ruamel's Python parser (~20 times slower than libyaml)."""
    expected = event_path(text, read.GO_YAML, 64), positions_table(mapped(text, None, False))
    monkeypatch.setattr(events, "_pure_events", _not_called)
    assert same(event_path(text, read.GO_YAML, 64), expected[0])
    assert positions_table(mapped(text, None, False)) == expected[1]


def _not_called(text: str):
    raise AssertionError(f"ruamel's Python parser read {text!r}")


@pytest.mark.parametrize("text", FLOW_COLONS_REFUSED)
def test_what_no_libyaml_reads_of_a_flow_scalar_text_is_the_python_parsers_to_decide(text):
    """The data, or the refusal (its problem, position, wording), of ruamel's Python parser, as
    before the masking; the full loaders word what the reader hands over alike on both paths."""
    assert isinstance(compiled(text, read.GO_YAML, 64), read._cread.Slow)
    slow = event_path(text, read.GO_YAML, 64)
    try:
        expected: Any = events._load_events(events._pure_events(text), read.GO_YAML, 64)
    except YAMLError as exc:
        expected = exc
    assert type(slow) is type(expected) and (
        str(slow) == str(expected) if isinstance(slow, YAMLError) else same(slow, expected)
    )
    assert _documents(text) == _documents_without_the_compiled_path(text)


def test_the_depth_bound_is_found_past_a_masked_colon_where_the_python_parser_found_it(monkeypatch):
    """The compiled path leaves the bound's error to the event path, which masks, as before."""
    text = "a: {b: [c:d, [e:f, [g:h]]]}\n"
    assert isinstance(compiled(text, read.GO_YAML, 3), read._cread.Slow)
    with pytest.raises(read.TooDeep) as before:
        events._load_events(events._pure_events(text), read.GO_YAML, 3)
    monkeypatch.setattr(events, "_pure_events", _not_called)
    deep = event_path(text, read.GO_YAML, 3)
    assert isinstance(deep, read.TooDeep) and (deep.line, deep.col) == (before.value.line, before.value.col) == (0, 13)


def _documents_without_the_compiled_path(text: str) -> list:
    reader = read._compiled
    read._compiled = lambda *_: None  # type: ignore[assignment]
    try:
        return _documents(text)
    finally:
        read._compiled = reader  # type: ignore[assignment]


# plain scalars whose ':' is part of the scalar, ends it, or comes before a flow indicator
_PLAIN = st.builds("".join, st.lists(st.sampled_from(["a", "1", ":", "/", ".", "#", "-", ":?"]), max_size=5)).map(
    lambda rest: "a" + rest
)
_FLOW = st.recursive(
    _PLAIN | st.sampled_from(["'q:r'", '"s:t"', '"\\ue000"', "''", "http://h:1"]),  # quoted ones, the mask
    lambda inner: (
        st.builds(
            lambda items, sep: f"[{sep.join(items)}]",
            st.lists(inner, max_size=3),
            st.sampled_from([", ", ",", ",\n  "]),
        )
        | st.builds(
            lambda items, sep: "{" + sep.join(k + c + v for k, c, v in items) + "}",
            st.lists(st.tuples(_PLAIN, st.sampled_from([": ", ":", " : "]), inner), max_size=3),
            st.sampled_from([", ", ",", ",\n  "]),
        )
    ),
    max_leaves=8,
)
# a block mapping of flow collections
FLOW_TEXTS = st.lists(st.tuples(_PLAIN, _FLOW), min_size=1, max_size=3).map(
    lambda pairs: "".join(f"{key}{i}: {value}\n" for i, (key, value) in enumerate(pairs))
)


@fuzz_settings(default=60)
@given(text=FLOW_TEXTS)
def test_both_paths_read_colons_in_flow_scalars_alike(text):
    """The differential test over the shapes masking reads: what the compiled path reads, the
    event path reads alike (data and positions), and what the event path refuses it refuses as
    ruamel's Python parser does (``_refused_before``)."""
    for resolution in (read.GO_YAML, positions.yaml_1_2()):
        agree(text, resolution, read.MANIFESTS.depth, "flow text")
        slow = event_path(text, resolution, read.MANIFESTS.depth)
        if isinstance(slow, YAMLError):
            expected = _refused_before(text)
            assert type(slow) is type(expected) and str(slow) == str(expected)


def _refused_before(text: str) -> YAMLError:
    """What refused ``text`` on the event path before any ':' was masked: the bundled libyaml,
    or, where it refused a ':' in a flow scalar, ruamel's Python parser."""
    for parse in (lambda: iter(events._events(text), None), lambda: YAML(typ="safe", pure=True).parse(text)):
        try:
            list(parse())
        except YAMLError as exc:
            if not events._flow_colon(exc):
                return exc
    raise AssertionError("nothing refuses it")


def test_a_colon_in_a_flow_scalar_is_located_by_either_path(monkeypatch):
    text = "metadata:\n  annotations: {url: http://prometheus:9090}\n"
    for compiled_path in (True, False):
        if not compiled_path:
            monkeypatch.setattr(read, "_compiled", lambda *_: None)
        assert same(read.load(text, read.GO_YAML, 8), {"metadata": {"annotations": {"url": "http://prometheus:9090"}}})
        node, mark = read.Positions(text).find(("metadata", "annotations", "url"), at_value=True)
        assert (read.plain_text(node), mark.line, mark.column) == ("http://prometheus:9090", 1, 21)


def test_lint_reports_on_flow_colons_are_byte_identical_without_the_compiled_path(tmp_path, monkeypatch):
    for i, text in enumerate(FLOW_COLONS):
        (tmp_path / f"{i}.yaml").write_text(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  " + text.replace("\n", "\n  "),
            encoding="utf-8",
        )
    args = ["--format", "json", str(tmp_path)]
    assert _lint_report(args, monkeypatch, True) == _lint_report(args, monkeypatch, False)


@fuzz_settings(default=60)
@given(data=st.data())
def test_both_paths_read_mutated_manifests_alike(data):
    seed = data.draw(st.sampled_from(SEEDS))
    mutated = data.draw(mutated_yaml(seed.read_text(encoding="utf-8")))
    try:
        text = mutated.decode("utf-8")
    except UnicodeDecodeError:
        return  # lint refuses it before any parser sees it
    for first_line, chunk in loader.split_documents(text):
        agree(chunk, read.GO_YAML, read.MANIFESTS.depth, f"mutated {seed.name}, line {first_line + 1}")


@fuzz_settings(default=30)
@given(data=st.data())
def test_both_paths_read_mutated_inputs_alike(data):
    seed = data.draw(st.sampled_from(sorted((REPO / "clusters").glob("*/cluster.yaml"))))
    mutated = data.draw(mutated_yaml(seed.read_text(encoding="utf-8")))
    try:
        text = mutated.decode("utf-8")
    except UnicodeDecodeError:
        return
    agree(text, positions.yaml_1_2(), read.INPUTS.depth, f"mutated {seed}")


def _lint_report(args: list[str], monkeypatch, compiled_path: bool) -> str:
    with monkeypatch.context() as patch:
        if not compiled_path:
            patch.setattr(read, "_compiled", lambda *_: None)
        result = CliRunner().invoke(cli, ["--root", str(REPO), "lint", "--jobs", "1", "--no-cache", *args])
    assert result.exit_code in (0, 1), result.output
    return result.stdout


def test_lint_reports_are_byte_identical_without_the_compiled_path(monkeypatch):
    targets = [str(p) for p in (REPO / "tests" / "fixtures", SHARED / "upstream-examples") if p.is_dir()]
    for fmt in ("json", "text"):
        args = ["--format", fmt, *targets]
        report = _lint_report(args, monkeypatch, True)
        assert report == _lint_report(args, monkeypatch, False)
        if fmt == "json":
            assert json.loads(report)["findings"]


def test_a_render_is_byte_identical_without_the_compiled_path(tmp_path, monkeypatch):
    """Inputs are read by both paths too: the committed tree comes out either way."""
    committed = REPO / "rendered" / "aks-h100-training"
    expected = {p.relative_to(committed): p.read_bytes() for p in sorted(committed.rglob("*")) if p.is_file()}
    for compiled_path in (True, False):
        root = tmp_path / str(compiled_path)
        for name in ("clusters", "libsonnet", "schemas"):
            shutil.copytree(REPO / name, root / name)
        shutil.copy(REPO / ".gpu-gitops.yaml", root)
        with monkeypatch.context() as patch:
            if not compiled_path:
                patch.setattr(read, "_compiled", lambda *_: None)
            # nothing evaluated is reused (the chart packages and inflations are the test's)
            env = {"GPU_GITOPS_CACHE_DIR": str(cache_with_charts(tmp_path / f"cache-{compiled_path}"))}
            result = CliRunner().invoke(cli, ["--root", str(root), "render", "aks-h100-training"], env=env)
        assert result.exit_code == 0, result.output
        out = root / "rendered" / "aks-h100-training"
        assert {p.relative_to(out): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()} == expected


# Line endings: libyaml (go-yaml's origin) breaks lines at CR LF and at a lone CR as at LF, so a
# file saved with either reads as its LF text: the same documents, data, errors and marks.
LINE_ENDINGS = pytest.mark.parametrize("end", ["\r\n", "\r"], ids=["crlf", "cr"])
SMALL_MANIFESTS = [
    p for p in MANIFEST_FILES if p.stat().st_size <= POSITIONS_BYTES and SHARED / "upstream-crds" not in p.parents
]


def _documents(text: str) -> list:
    """What lint reads of a file: per document its first line, data, error and every path's marks."""
    return [
        (doc.first_line, doc.data, doc.error and doc.error.message, doc.error_line, doc.error_col, _marks(doc))
        for doc in loader.parse_text(text, "f.yaml")
    ]


def _marks(doc) -> dict:
    if doc.where is not None:
        return doc.where.table()
    return {path: doc.position(path) for path in _paths(doc.data)}


def _paths(data, path: tuple = ()):
    yield path
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else ()
    for key, value in items:
        yield from _paths(value, (*path, key))


def _one_per_component(paths: list[Path]) -> list[Path]:
    """``paths`` with one rendered file per name under its cluster: the same component's file in
    another cluster is written by the same emitter in the same shapes (block mappings and
    sequences, literal blocks, quoted scalars), only its values differ, so it adds no line break
    the scanner meets elsewhere. The fixtures and upstream examples, written by hand, all stay."""
    kept: dict[tuple, Path] = {}
    for path in paths:
        rendered = REPO / "rendered" in path.parents
        kept.setdefault(path.relative_to(REPO / "rendered").parts[1:] if rendered else (path,), path)
    return sorted(kept.values())


# the event path reads a manifest eight times slower than the compiled path: it reads the sample
LINE_ENDING_MANIFESTS = {True: SMALL_MANIFESTS, False: _one_per_component(SMALL_MANIFESTS)}
_lf_documents: dict[tuple[Path, bool], list] = {}


@LINE_ENDINGS
@pytest.mark.parametrize("compiled_path", [True, False], ids=["compiled", "event"])
def test_crlf_and_cr_only_manifests_read_as_their_lf_text(end, compiled_path, monkeypatch):
    """Each path reads a file saved with CR LF or a lone CR as the same file with LF; the LF text
    is read once per path and module, for both line endings."""
    if not compiled_path:
        monkeypatch.setattr(read, "_compiled", lambda *_: None)
    assert len(LINE_ENDING_MANIFESTS[compiled_path]) > 50
    for path in LINE_ENDING_MANIFESTS[compiled_path]:
        text = path.read_text(encoding="utf-8")
        if "\r" in text:
            continue
        if (path, compiled_path) not in _lf_documents:
            _lf_documents[path, compiled_path] = _documents(text)
        assert _documents(text.replace("\n", end)) == _lf_documents[path, compiled_path], path


@LINE_ENDINGS
def test_a_multi_document_file_with_other_line_endings_is_every_object(end):
    """The reported case: a CRLF file of two objects was one document ("found another document")."""
    text = "# two\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---   # b\napiVersion: v1\n"
    text += "kind: ConfigMap\nmetadata:\n  name: b\ndata:\n  x: !!int 1\n"
    docs = _documents(text.replace("\n", end))
    assert [(first, data["metadata"]["name"]) for first, data, *_ in docs] == [(1, "a"), (6, "b")]
    assert docs == _documents(text)
    broken = text + "y: [\n"
    assert _documents(broken.replace("\n", end)) == _documents(broken)
    assert [d.error_line for d in loader.parse_text(broken.replace("\n", end), "f")] == [0, 14]


@LINE_ENDINGS
def test_crlf_and_cr_only_inputs_read_as_their_lf_text(end):
    for path in INPUT_FILES:
        text = path.read_text(encoding="utf-8")
        lf, other = _input(text), _input(text.replace("\n", end))
        assert same(other, lf), path


def _input(text: str):
    """An input's data and marks, or its located error."""
    try:
        located = positions.load_text(text, "in")
    except InputError as exc:
        return str(exc)
    return [located.data, located.positions]


@LINE_ENDINGS
@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("a: 1\nb: [1\n", (3, 1)),  # a syntax error at the end of the stream
        ("a: 1\nb: \x01\n", (2, 4)),  # a character YAML refuses
        ("a: 1\n\n%YAML 1.3\n---\nb: 1\n", (3, 1)),  # a directive of an unknown version
        ("a: 1\nb:\n  c: 1\n  c: 2\n", (4, 3)),  # a duplicate key
    ],
)
def test_input_errors_are_located_alike_whatever_the_line_endings(end, text, where):
    errors = []
    for written in (text, text.replace("\n", end)):
        with pytest.raises(InputError) as raised:
            positions.load_text(written, "in")
        errors.append((raised.value.diagnostic.location.line, raised.value.diagnostic.location.col))
    assert errors == [where, where]


def test_the_compiled_reader_resolves_each_text_once():
    """A resolution's callables are functions of the text: the reader keeps what each gave, so
    the keys and values manifests repeat are resolved once (a key apart from a value: ``on: on``
    is ``{"true": True}``)."""
    calls: list[tuple[str, str]] = []

    def value(text: str):
        calls.append(("value", text))
        return read.resolve_plain(text)

    def key(text: str) -> str:
        calls.append(("key", text))
        return read._plain_key(text)

    reader = read._cread.Reader("".join(sorted(read.GO_YAML.hinted)), value, key, -1)
    text = "name: 1\non: on\nother: [1, 1, yes, '1']\n"
    expected = event_path(text, read.GO_YAML, read.MANIFESTS.depth)
    assert same(reader.load(text), expected) and same(reader.load(text), expected)
    assert expected == {"name": 1, "true": True, "other": [1, 1, True, "1"]}
    assert sorted(calls) == [
        ("key", "name"),
        ("key", "on"),
        ("key", "other"),
        ("value", "1"),
        ("value", "on"),
        ("value", "yes"),
    ]
