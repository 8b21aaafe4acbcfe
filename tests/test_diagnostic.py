"""One diagnostic record and one text format for inputs, render, check and lint."""

from __future__ import annotations

import pickle

import click

from generator.diagnostic import Diagnostic, Location, ObjectRef, format_text
from generator.errors import InputError, InputErrors, InputWarning
from generator.tree.write import LeftoverError


def test_text_names_what_is_known_of_the_place():
    assert format_text(Diagnostic(Location(), "error", "no clusters")) == "error: no clusters"
    assert format_text(Diagnostic(Location("a.yaml"), "warning", "m")) == "a.yaml: warning: m"
    assert format_text(Diagnostic(Location("a.yaml", 3), "error", "m")) == "a.yaml:3:1: error: m"
    assert (
        format_text(Diagnostic(Location("a.yaml", 3, 7), "info", "m", rule="GPU001")) == "a.yaml:3:7: info: m [GPU001]"
    )


def test_a_hint_is_its_own_indented_line_after_the_rule():
    found = Diagnostic(Location("a.yaml", 2, 5), "error", "bad", "do this", "K8S001")
    assert format_text(found) == "a.yaml:2:5: error: bad [K8S001]\n  hint: do this"


def test_colour_styles_the_severity_and_the_hint_of_every_severity():
    for severity, colour in (("error", "red"), ("warning", "yellow"), ("info", "cyan")):
        found = Diagnostic(Location("a.yaml", 1, 1), severity, "m", "h", "R001")
        assert format_text(found, color=True) == (
            f"a.yaml:1:1: {click.style(severity + ':', fg=colour, bold=True)} m [R001]\n"
            + click.style("  hint: h", fg="cyan")
        )
        assert click.unstyle(format_text(found, color=True)) == format_text(found)


def test_diagnostics_sort_by_place_then_rule():
    later = Diagnostic(Location("a", 2, 1), "error", "x", rule="A001")
    earlier = Diagnostic(Location("a", 1, 9), "error", "y", rule="B001")
    assert sorted([later, earlier], key=Diagnostic.sort_key) == [earlier, later]
    assert (later.file, later.line, later.col) == ("a", 2, 1)
    assert str(ObjectRef("v1", "ConfigMap", "ns", "n")) == "ConfigMap ns/n" and str(ObjectRef()) == ""


def test_an_input_error_carries_its_diagnostic():
    err = InputError("bad key", path="c.yaml", line=4, col=3, hint="remove it")
    assert err.diagnostics == [Diagnostic(Location("c.yaml", 4, 3), "error", "bad key", "remove it")]
    assert (err.message, str(err.location), err.hint) == ("bad key", "c.yaml:4:3", "remove it")
    assert err.format() == str(err) == "c.yaml:4:3: error: bad key\n  hint: remove it"
    assert InputWarning("odd", path="c.yaml").diagnostic.severity == "warning"


def test_a_hint_found_later_replaces_the_diagnostics_hint():
    err = InputError("bad", path="c.yaml", line=1)
    err.hint = "found later"
    assert err.diagnostics[0].hint == "found later" and err.format().endswith("\n  hint: found later")


def test_several_errors_are_one_exception_with_every_diagnostic():
    errors = InputErrors([InputError("a", path="x", line=1), InputError("b", path="x", line=2, hint="h")])
    assert [d.message for d in errors.diagnostics] == ["a", "b"]
    assert errors.format() == "x:1:1: error: a\nx:2:1: error: b\n  hint: h"


def test_errors_survive_the_trip_from_a_worker_process():
    leftover = LeftoverError("old tree stayed", changes="the changes", path="rendered/x")
    several = InputErrors([InputError("a", path="x", line=1), InputWarning("w", path="x", line=2, hint="h")])
    for err in (InputWarning("w", path="p", line=2, hint="h"), several, leftover):
        back = pickle.loads(pickle.dumps(err))
        assert type(back) is type(err) and back.diagnostics == err.diagnostics and back.format() == err.format()
    assert pickle.loads(pickle.dumps(leftover)).changes == "the changes"
    assert [e.message for e in pickle.loads(pickle.dumps(several)).errors] == ["a", "w"]


def test_a_diagnostic_pickles_as_one_constructor_call():
    """Lint's workers send their findings back pickled: each comes back equal, built by one
    call of its class, not field by field from a saved state (which loads several times slower)."""
    import pickletools

    found = Diagnostic(Location("a.yaml", 3, 7), "error", "m", "h", "CL004", ObjectRef("v1", "Pod", "n", "p"), "note")
    data = pickle.dumps(found)
    assert pickle.loads(data) == found
    assert "BUILD" not in {op.name for op, _arg, _pos in pickletools.genops(data)}


def test_line_col_counts_characters_from_one():
    from generator.diagnostic import line_col

    text = "ab\ncdé\n\nf"
    assert [line_col(text, i) for i in range(len(text) + 1)] == [
        (1, 1), (1, 2), (1, 3), (2, 1), (2, 2), (2, 3), (2, 4), (3, 1), (4, 1), (4, 2),
    ]  # fmt: skip


def test_text_escapes_what_is_not_printable_in_every_part():
    """A CR, NUL, DEL, an escape sequence or a bidi override from an input cannot rewrite the
    line a reader sees: path, message and hint are escaped, for every command."""
    found = Diagnostic(Location("a\rb.yaml", 2, 5), "error", "key 'x\x00\x7f\u202e'", "fix \x1b[2K it")
    assert format_text(found) == "a\\rb.yaml:2:5: error: key 'x\\x00\\x7f\\u202e'\n  hint: fix \\x1b[2K it"
    assert str(InputError("bad \r value", path="c.yaml", line=1, col=1)) == "c.yaml:1:1: error: bad \\r value"
